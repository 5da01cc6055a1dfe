//! The audit's use of the profile's rewriter ([`crate::profile::rewrite`]): a statement rewritten with
//! its own findings.

use super::emit::literal::{LiteralNotes, code_tokens, ident_name, target_ident, word};
use super::emit::table;
use super::{Context, Finding};
use super::{StatementOrigin, detect, judge};
use crate::profile::Severity;
#[cfg(test)]
use crate::profile::rewrite::Rewrite;
use crate::profile::rewrite::rewrite_with;
use crate::schema::ddl::table_from_statement;
use std::collections::HashSet;

/// The audit's rewrite of a statement it does not pass as it is: a whole-statement translation of
/// what the token rewriter cannot do (a `CREATE TABLE` through the `--emit-sql` table translator),
/// else the profile's token rewriter, kept only when complete.
pub fn statement_rewrite(sql: &str, ctx: &Context, findings: &[Finding]) -> Option<String> {
    // `a = 1 || b = 2` is MySQL's OR, which the tree misreads as a concatenation (it binds tighter
    // than `=` there): the statement with OR written, audited afresh.
    if findings
        .iter()
        .any(|f| matches!(f.rule.as_str(), "LEX-007" | "LEX-007E"))
        && let Some(or_sql) = crate::profile::rewrite::pipes_as_or(sql, ctx.profile)
    {
        let again = findings_of(&or_sql, ctx);
        return statement_rewrite(&or_sql, ctx, &again)
            .or_else(|| (!again.iter().any(|f| f.severity == Severity::Error)).then_some(or_sql));
    }
    if let Some(s) = create_table(sql, ctx, findings) {
        return Some(s);
    }
    let errors = || findings.iter().filter(|f| f.severity == Severity::Error);
    // `a || b` between single values: the tree pass writes MySQL's OR of them.
    let value_pipes = findings.iter().any(|f| f.rule == "LEX-007")
        && crate::profile::rewrite::pipes_between_single_values(sql);
    let dml = |f: &Finding| {
        super::rewrite_dml::handles(&f.rule, f.detail.as_deref())
            || (f.rule == "LEX-007" && value_pipes)
    };
    let has = |r: &str| findings.iter().any(|f| f.rule == r);
    // SUM/AVG of a boolean (an integer in MySQL).
    let bool_args = |f: &Finding| {
        f.rule == "FN-ARGS"
            && f.detail.as_deref().is_some_and(|d| {
                let d = d.to_ascii_lowercase();
                d.starts_with("sum(boolean") || d.starts_with("avg(boolean")
            })
    };
    let sem = super::rewrite_dml::Semantics {
        decimal_division: has("SEM-002"),
        case_insensitive: has("CASE-002") || has("CASE-003"),
        booleans: has("SEM-015") || findings.iter().any(bool_args),
        null_divisors: has("SEM-003"),
        like_on_text: has("SEM-019"),
        null_order: has("SEM-005"),
        avg_scale: has("SEM-025"),
        coalesce_text: findings.iter().any(|f| {
            f.rule == "SEM-001L"
                && f.detail
                    .as_deref()
                    .is_some_and(|d| d.ends_with(" in COALESCE()"))
        }),
        calls: findings
            .iter()
            .any(|f| super::rewrite_calls::handles(&f.rule, f.detail.as_deref())),
        // One translation per occurrence: its companions (SUM/AVG of a string's FN-ARGS, BINARY's
        // cast) not counted; a BINARY cast without a BINARY comparison left over fails the pass.
        lenient: {
            let counted = |f: &&Finding| {
                let d = f.detail.as_deref();
                super::rewrite_lenient::handles(&f.rule, d)
                    && !super::rewrite_lenient::companion(&f.rule, d)
            };
            let casts = findings
                .iter()
                .filter(|f| f.rule == "DML-017" && f.detail.as_deref() == Some("AS BINARY"))
                .count();
            let comparisons = findings.iter().filter(|f| f.rule == "LEX-024").count();
            let pipes = if value_pipes {
                findings.iter().filter(|f| f.rule == "LEX-007").count()
            } else {
                0
            };
            findings.iter().filter(counted).count() + casts.saturating_sub(comparisons) + pipes
        },
        value_pipes,
    };
    if errors().any(|f| super::rewrite_ddl::RULES.contains(&f.rule.as_str()))
        && let Some(s) = super::rewrite_ddl::rewrite(sql, ctx)
    {
        // A view's query may need the expression pass too (a boolean column compared with 1).
        // SEM-015 only when none is left, as for DML below.
        if sem.booleans
            && !findings.iter().any(|f| dml(f) && f.rule != "SEM-015")
            && let Some(v) = super::rewrite_dml::rewrite(&s, ctx, sem)
            && super::ast::parse(&v).is_some()
            && !super::detect(&v, ctx).0.iter().any(|h| h.rule == "SEM-015")
        {
            let rest: Vec<Finding> = findings.iter().filter(|f| !dml(f)).cloned().collect();
            return then_tokens(v, ctx, &rest, super::rewrite_ddl::RULES);
        }
        // A view's DEFINER=user@host is dropped with the options: its LEX-019 goes with it.
        let rest: Vec<Finding> = findings
            .iter()
            .filter(|f| f.rule != "LEX-019" || f.detail.as_deref().is_none_or(|d| s.contains(d)))
            .cloned()
            .collect();
        return then_tokens(s, ctx, &rest, super::rewrite_ddl::RULES);
    }
    // Structural DML on the AST, then the tokens. Not when a string has backslash escapes: the tree
    // prints them unescaped, which the token rewriter would read as escapes again.
    if findings.iter().any(dml)
        && !findings.iter().any(|f| f.rule.starts_with("LEX-003"))
        && let Some(s) = super::rewrite_dml::rewrite(sql, ctx, sem)
    {
        // SEM-015 has many forms: translated only when the audit finds none left in the result
        // (checked when the result still reads as MySQL).
        let booleans_left = sem.booleans
            && (super::ast::parse(&s).is_none()
                || super::detect(&s, ctx)
                    .0
                    .iter()
                    .any(|h| matches!(h.rule.as_str(), "SEM-015" | "FN-ARGS")));
        let rest: Vec<Finding> = findings
            .iter()
            .filter(|f| !dml(f) || ((f.rule == "SEM-015" || bool_args(f)) && booleans_left))
            .cloned()
            .collect();
        // Incomplete: the token rewriter alone may still do it.
        if let Some(r) = then_tokens(s, ctx, &rest, &[]) {
            return Some(r);
        }
    }
    rewrite_with(sql, ctx.profile, findings)
        .filter(|r| r.complete)
        .map(|r| r.sql)
}

/// `sql`, already translated for the rules `done`, through the token rewriter for the statement's
/// other findings: None when one of those stays untranslated.
fn then_tokens(sql: String, ctx: &Context, findings: &[Finding], done: &[&str]) -> Option<String> {
    let rest: Vec<Finding> = findings
        .iter()
        .filter(|f| !done.contains(&f.rule.as_str()))
        .cloned()
        .collect();
    if rest.is_empty() {
        return Some(sql);
    }
    match rewrite_with(&sql, ctx.profile, &rest) {
        Some(r) => r.complete.then_some(r.sql),
        None => (!rest.iter().any(|f| f.severity == Severity::Error)).then_some(sql),
    }
}

/// `CREATE TABLE` written the way `--emit-sql` writes it (the profile's type map, identity, CHECK for
/// ENUM, inline indexes as CREATE INDEX, COMMENT ON, the update trigger, foreign keys inline in the
/// same block), or `CREATE TABLE a LIKE b` as `CREATE TABLE a (LIKE b INCLUDING ALL)`. None when the
/// translator leaves something out that changes what the table holds (a zero-date default, a
/// FULLTEXT or SPATIAL index, an ON UPDATE it cannot write) or a finding is not about the table's
/// definition (a function in a default or generated column).
fn create_table(sql: &str, ctx: &Context, findings: &[Finding]) -> Option<String> {
    let src = sql.as_bytes();
    let toks = code_tokens(src);
    let code: Vec<_> = toks
        .iter()
        .filter(|t| !matches!(t.kind, crate::sql::lexer::TokenKind::Whitespace))
        .collect();
    let w = |i: usize| code.get(i).map(|t| word(t, src)).unwrap_or_default();
    let temporary = w(1) == "TEMPORARY";
    let at = if temporary { 2 } else { 1 };
    if w(0) != "CREATE" || w(at) != "TABLE" {
        return None;
    }
    let fn_errors = || {
        findings
            .iter()
            .filter(|f| f.severity == Severity::Error && f.rule.starts_with("FN-"))
    };
    if fn_errors().any(|f| f.rule != "FN-MISSING") {
        return None;
    }
    let create = if temporary {
        "CREATE TEMPORARY TABLE "
    } else {
        "CREATE TABLE "
    };
    // CREATE TABLE [IF NOT EXISTS] a LIKE b
    let mut n = at + 1;
    let mut if_not_exists = "";
    if w(n) == "IF" && w(n + 1) == "NOT" && w(n + 2) == "EXISTS" {
        n += 3;
        if_not_exists = "IF NOT EXISTS ";
    }
    if w(n + 1) == "LIKE" && code.len() <= n + 3 + usize::from(w(n + 3) == ";") {
        let (a, b) = (code.get(n)?, code.get(n + 2)?);
        return Some(format!(
            "{create}{if_not_exists}{} (LIKE {} INCLUDING ALL)",
            target_ident(&ident_name(a, src)),
            target_ident(&ident_name(b, src))
        ));
    }
    let (t, _) = table_from_statement(sql)?;
    let mut notes = LiteralNotes::default();
    let tr = table::translate(sql, &t, ctx.profile, &mut HashSet::new(), &mut notes)?;
    // A missing function is answered only by a translated PARTITION BY expression, the one place
    // the statement calls it.
    let answered = |f: &Finding| {
        tr.partition_calls.iter().any(|c| {
            f.detail.as_deref() == Some(&format!("{c}()"))
                && code
                    .iter()
                    .filter(|t| word(t, src).eq_ignore_ascii_case(c))
                    .count()
                    == 1
        })
    };
    if !fn_errors().all(answered) {
        return None;
    }
    if notes.zero_dates > 0
        || notes.nul_bytes > 0
        || tr
            .notes
            .iter()
            .any(|n| !n.contains("table options dropped") && !n.contains(": SET("))
    {
        return None;
    }
    let mut stmts = tr.now;
    if temporary && let Some(first) = stmts.first_mut() {
        *first = first.replacen("CREATE TABLE ", create, 1);
    }
    stmts.extend(tr.foreign_keys);
    // The identity's start, when the table sets one (AUTO_INCREMENT=n); the reset is a no-op else.
    stmts.extend(
        tr.resets
            .into_iter()
            .filter(|r| !r.contains(", 1), false)"))
            .map(|r| r.replacen("SELECT ", "PERFORM ", 1)),
    );
    super::rewrite_ddl::one_statement(stmts)
}

/// The findings of `sql` on its own.
fn findings_of(sql: &str, ctx: &Context) -> Vec<crate::audit::Finding> {
    let (hits, _) = detect(sql, ctx);
    let origin = StatementOrigin {
        file: String::new(),
        line: 1,
        column: 1,
    };
    judge(&hits, sql, &origin, ctx.profile).0
}

/// Rewrites `sql`, computing its findings first.
#[cfg(test)]
pub fn rewrite(sql: &str, ctx: &Context) -> Option<Rewrite> {
    rewrite_with(sql, ctx.profile, &findings_of(sql, ctx))
}

#[cfg(test)]
#[path = "rewrite_tests.rs"]
mod tests;
