//! Audit: checks every distinct statement an application runs against a target profile and says,
//! with reasons and rewrites, whether it runs unchanged (`ok`), runs with different results (`warn`)
//! or is rejected (`fail`).
//!
//! Detectors are code; what they mean for a target is data ([`crate::profile`]): a detector reports a hit
//! under a rule id, and the target profile gives the rule's severity, message, rewrite and evidence
//! (or switches it off). Statements are checked on their tokens (`lexical`, `tokens`) and, when
//! sqlparser can parse them, on the AST with a schema-aware type checker (`ast`, `typing`).

mod ast;
pub mod emit;
mod input;
mod lexical;
mod live;
mod rewrite;
mod rewrite_calls;
mod rewrite_ddl;
mod rewrite_dml;
mod rewrite_expr;
mod rewrite_lenient;
mod rewrite_numeric;
mod run;
mod timeseries;
mod tokens;
mod typing;

pub use crate::profile::Finding;
use crate::profile::{Profile, Severity};
use crate::schema::Schema;
use crate::workload::Header;
pub use input::{AuditInput, DistinctStatement, InputError, script_statements};
pub use live::{LiveAnswer, LiveSummary};
pub use run::{AuditError, AuditRun, SchemaSource, run, run_for_rewrites};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a detector found, before the profile gives it a meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub rule: String,
    /// Byte offset in the statement text (for line/column), when known.
    pub offset: Option<usize>,
    /// Line and column within the statement (1-based), when known from the AST.
    pub position: Option<(u64, u64)>,
    /// What exactly: the function, the type, the value.
    pub detail: Option<String>,
    /// A rewrite specific to this occurrence (overrides the rule's general one).
    pub rewrite: Option<String>,
}

impl Hit {
    pub fn new(rule: &str) -> Hit {
        Hit {
            rule: rule.to_string(),
            offset: None,
            position: None,
            detail: None,
            rewrite: None,
        }
    }
    pub fn at(mut self, offset: usize) -> Hit {
        self.offset = Some(offset);
        self
    }
    pub fn pos(mut self, line: u64, column: u64) -> Hit {
        if line > 0 {
            self.position = Some((line, column));
        }
        self
    }
    pub fn detail(mut self, d: impl Into<String>) -> Hit {
        self.detail = Some(d.into());
        self
    }
    pub fn rewrite(mut self, r: impl Into<String>) -> Hit {
        self.rewrite = Some(r.into());
        self
    }
}

/// The verdict on one statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Runs unchanged with the same meaning.
    Ok,
    /// Runs, but results or behaviour may differ (or a claim needs checking on a live target).
    Warn,
    /// The target rejects it.
    Fail,
}

/// Where a statement came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StatementOrigin {
    pub file: String,
    pub line: u64,
    pub column: u64,
}

/// The audit of one distinct statement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StatementAudit {
    /// 0-based position in a .sql input, or the order of first appearance in a log.
    pub ordinal: usize,
    /// The fingerprint (text) and its id.
    pub fingerprint: String,
    pub fingerprint_id: String,
    /// The statement (a sample execution for logs), passwords masked.
    pub sql: String,
    /// Executions in the log (1 for .sql inputs).
    pub count: u64,
    /// Total execution time in the log, when it recorded one.
    pub total_time_s: Option<f64>,
    pub verdict: Verdict,
    /// sqlparser parsed it (otherwise it was checked on tokens only).
    pub parsed: bool,
    pub findings: Vec<Finding>,
    /// A mechanical rewrite for the target, when one could be made.
    pub rewrite: Option<String>,
    pub origin: StatementOrigin,
}

/// Tallies for the summary.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditSummary {
    pub statements: usize,
    pub ok: usize,
    pub warn: usize,
    pub fail: usize,
    pub not_parsed: usize,
    /// Findings by category, then by severity.
    pub by_category: BTreeMap<String, BTreeMap<Severity, usize>>,
    pub by_severity: BTreeMap<Severity, usize>,
    /// Share of executions whose statement is `ok` (logs; for .sql every statement counts once).
    pub ready_by_executions: f64,
    /// Share of recorded execution time whose statement is `ok`, when the log recorded durations.
    pub ready_by_time: Option<f64>,
    /// Share of executions that the target would reject.
    pub failing_by_executions: f64,
}

/// The whole audit (`cutover.audit/1`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AuditReport {
    #[serde(flatten)]
    pub header: Header,
    pub target: String,
    pub profile: String,
    pub profile_lineage: Vec<String>,
    /// Where the schema came from (`--schema FILE`, `--source URL`) or null.
    pub schema_source: Option<String>,
    /// What could not be checked, and why (no schema, statements sqlparser could not parse, …).
    pub unchecked: Vec<String>,
    /// Findings about the schema itself (names that collide when folded, …).
    pub schema_findings: Vec<Finding>,
    pub statements: Vec<StatementAudit>,
    pub summary: AuditSummary,
    /// What the live target answered (`--live`), or null.
    pub live: Option<live::LiveSummary>,
    /// Proposed DDL for the target (KaiwuDB time-series tables from `--ts-table`).
    pub proposed_ddl: Vec<String>,
    /// Log notes (skipped records, truncated files).
    pub input_notes: Vec<String>,
    /// What `--emit-sql` wrote, or null.
    #[serde(default)]
    pub emitted: Option<emit::EmitSummary>,
}

/// The verdict that fails an audit (`--fail-on`): CI gates on it through the exit code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FailOn {
    /// Any statement that is `warn` or `fail`.
    Warn,
    /// Any statement that is `fail` (the target rejects it).
    #[default]
    Fail,
}

impl AuditReport {
    /// True when a statement's verdict reaches `on`.
    pub fn failed(&self, on: FailOn) -> bool {
        match on {
            FailOn::Fail => self.summary.fail > 0,
            FailOn::Warn => self.summary.fail > 0 || self.summary.warn > 0,
        }
    }

    /// The findings per fingerprint, for a replay that rewrites statements for the target
    /// (`replay --rewrite`): the replay applies the profile's rewriter with them.
    pub fn rewrites(&self) -> crate::profile::Rewrites {
        let mut r = crate::profile::Rewrites::default();
        for st in &self.statements {
            if let Ok(id) = u64::from_str_radix(&st.fingerprint_id, 16) {
                r.by_fingerprint
                    .entry(id)
                    .or_insert_with(|| std::sync::Arc::new(st.findings.clone()));
            }
        }
        r
    }
}

/// Options that shape the checks.
#[derive(Clone, Debug, Default)]
pub struct AuditOptions {
    /// Tables that become KaiwuDB time-series tables.
    pub ts_tables: Vec<String>,
}

/// Everything a detector may consult.
pub struct Context<'a> {
    pub profile: &'a Profile,
    pub schema: Option<&'a Schema>,
    pub options: &'a AuditOptions,
}

/// The audit's statement rewriter with what it owns (the profile, the schema and the options it
/// audited with), for a replay that rewrites each execution ([`run_for_rewrites`]).
pub struct AuditRewriter {
    profile: Profile,
    schema: Option<Schema>,
    options: AuditOptions,
}

impl crate::profile::StatementRewriter for AuditRewriter {
    fn rewrite(&self, sql: &str, findings: &[Finding]) -> Option<String> {
        let ctx = Context {
            profile: &self.profile,
            schema: self.schema.as_ref(),
            options: &self.options,
        };
        rewrite::statement_rewrite(sql, &ctx, findings)
    }
}

/// Runs `f` with the built-in PostgreSQL profile and no schema (for the detectors' unit tests).
#[cfg(test)]
pub(crate) fn with_postgres<R>(f: impl FnOnce(&Context) -> R) -> R {
    let p = crate::profile::load_profile("postgres", None)
        .expect("the built-in postgres profile loads");
    let o = AuditOptions::default();
    f(&Context {
        profile: &p,
        schema: None,
        options: &o,
    })
}

/// Statements larger than this that are multi-row INSERTs are checked on a sample of their rows.
const SAMPLE_OVER_BYTES: usize = 1 << 20;
/// The rows of such a sample.
const SAMPLE_ROWS: usize = 1_000;

/// Runs every detector on one statement text: (hits, parsed). A huge multi-row INSERT (a
/// mysqldump's) is checked on its first rows (see `sql::sample`), so that its audit takes a small
/// multiple of its size in memory, and carries an INPUT-002 note saying so.
pub fn detect(sql: &str, ctx: &Context) -> (Vec<Hit>, bool) {
    if sql.len() > SAMPLE_OVER_BYTES
        && let Some((sample, rows)) = crate::sql::sample::values_sample(sql, SAMPLE_ROWS)
    {
        let (mut hits, parsed) = detect_all(&sample, ctx);
        hits.push(Hit::new("INPUT-002").detail(format!(
            "{:.1} MB, {rows} rows: the first {SAMPLE_ROWS} rows were checked",
            sql.len() as f64 / 1e6
        )));
        return (hits, parsed);
    }
    detect_all(sql, ctx)
}

fn detect_all(sql: &str, ctx: &Context) -> (Vec<Hit>, bool) {
    let mut hits = lexical::hits(sql, ctx);
    hits.extend(tokens::hits(sql, ctx));
    hits.extend(timeseries::hits(sql, ctx));
    // A chain of thousands of operators would make a tree too deep to walk (see `sql::depth`).
    let chain = crate::sql::depth::longest_operator_chain(sql.as_bytes());
    if chain > crate::sql::depth::MAX_OPERATOR_CHAIN {
        hits.extend(tokens::fallback_hits(sql, ctx));
        hits.push(Hit::new("PARSE").detail(format!(
            "an expression chains {chain} operators, too deep to parse safely (more than {})",
            crate::sql::depth::MAX_OPERATOR_CHAIN
        )));
        return (dedup(hits), false);
    }
    let parsed = match ast::parse(sql) {
        Some(stmt) => {
            hits.extend(ast::hits(&stmt, sql, ctx));
            true
        }
        None => {
            hits.extend(tokens::fallback_hits(sql, ctx));
            hits.push(Hit::new("PARSE"));
            false
        }
    };
    (dedup(hits), parsed)
}

/// One hit per (rule, detail): a statement with ten backticks has one backtick finding.
fn dedup(hits: Vec<Hit>) -> Vec<Hit> {
    // A set, not a scan of what was kept: a 100,000-value IN list can hit once per value.
    let mut seen: std::collections::HashSet<(String, Option<String>)> =
        std::collections::HashSet::with_capacity(hits.len());
    hits.into_iter()
        .filter(|h| seen.insert((h.rule.clone(), h.detail.clone())))
        .collect()
}

/// Line and column of byte `offset` in `text` (1-based), shifted by where the text starts in its file.
pub fn locate(text: &str, offset: usize, base_line: u64, base_column: u64) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u64;
    let col = before
        .rfind('\n')
        .map_or(before.chars().count() as u64 + base_column, |p| {
            before[p + 1..].chars().count() as u64 + 1
        });
    (base_line + line, col)
}

/// Gives hits their meaning under the profile: findings, and the verdict.
pub fn judge(
    hits: &[Hit],
    sql: &str,
    origin: &StatementOrigin,
    profile: &Profile,
) -> (Vec<Finding>, Verdict) {
    let mut findings = Vec::new();
    for h in hits {
        let Some(rule) = profile.rule(&h.rule) else {
            continue;
        };
        let severity = rule.severity.unwrap_or(Severity::Info);
        if severity == Severity::Off {
            continue;
        }
        let (line, column) = match (h.position, h.offset) {
            (Some((l, c)), _) => {
                let (bl, bc) = (origin.line, origin.column);
                (Some(bl + l - 1), Some(if l == 1 { bc + c - 1 } else { c }))
            }
            (None, Some(off)) => {
                let (l, c) = locate(sql, off, origin.line, origin.column);
                (Some(l), Some(c))
            }
            _ => (Some(origin.line), Some(origin.column)),
        };
        findings.push(Finding {
            rule: h.rule.clone(),
            category: rule.category.clone(),
            severity,
            title: rule.title.clone(),
            message: rule.message.clone(),
            detail: h.detail.clone(),
            rewrite: h.rewrite.clone().or_else(|| rule.rewrite.clone()),
            evidence: rule.evidence.clone(),
            confidence: rule.confidence.clone(),
            line,
            column,
            live: None,
        });
    }
    findings.sort_by(|a, b| a.severity.cmp(&b.severity).then(a.rule.cmp(&b.rule)));
    let verdict = verdict_of(&findings);
    (findings, verdict)
}

/// fail if anything is an error, warn on warnings and notices, ok otherwise.
pub fn verdict_of(findings: &[Finding]) -> Verdict {
    if findings.iter().any(|f| f.severity == Severity::Error) {
        Verdict::Fail
    } else if findings
        .iter()
        .any(|f| matches!(f.severity, Severity::Warning | Severity::Notice))
    {
        Verdict::Warn
    } else {
        Verdict::Ok
    }
}

/// Findings about the schema as a whole.
pub fn schema_findings(schema: &Schema, profile: &Profile) -> Vec<Finding> {
    let mut hits = Vec::new();
    for group in schema.case_collisions() {
        hits.push(Hit::new("CASE-007").detail(group.join(", ")));
    }
    let origin = StatementOrigin {
        file: String::new(),
        line: 0,
        column: 0,
    };
    let (mut f, _) = judge(&hits, "", &origin, profile);
    for x in &mut f {
        x.line = None;
        x.column = None;
    }
    f
}

/// Tallies the summary of a list of audited statements.
pub fn summarize(statements: &[StatementAudit]) -> AuditSummary {
    let mut s = AuditSummary {
        statements: statements.len(),
        ..Default::default()
    };
    let (mut total_exec, mut ok_exec, mut fail_exec) = (0u64, 0u64, 0u64);
    let (mut total_time, mut ok_time) = (0f64, 0f64);
    let mut any_time = false;
    for st in statements {
        match st.verdict {
            Verdict::Ok => s.ok += 1,
            Verdict::Warn => s.warn += 1,
            Verdict::Fail => s.fail += 1,
        }
        if !st.parsed {
            s.not_parsed += 1;
        }
        for f in &st.findings {
            *s.by_category
                .entry(f.category.clone())
                .or_default()
                .entry(f.severity)
                .or_default() += 1;
            *s.by_severity.entry(f.severity).or_default() += 1;
        }
        total_exec += st.count;
        if st.verdict == Verdict::Ok {
            ok_exec += st.count;
        }
        if st.verdict == Verdict::Fail {
            fail_exec += st.count;
        }
        if let Some(t) = st.total_time_s {
            any_time = true;
            total_time += t;
            if st.verdict == Verdict::Ok {
                ok_time += t;
            }
        }
    }
    if total_exec > 0 {
        s.ready_by_executions = ok_exec as f64 / total_exec as f64;
        s.failing_by_executions = fail_exec as f64 / total_exec as f64;
    }
    if any_time && total_time > 0.0 {
        s.ready_by_time = Some(ok_time / total_time);
    }
    s
}

/// Assembles the report from audited statements.
pub fn build_report(
    profile: &Profile,
    header: Header,
    schema: Option<(&Schema, String)>,
    statements: Vec<StatementAudit>,
    input_notes: Vec<String>,
) -> AuditReport {
    let summary = summarize(&statements);
    AuditReport {
        header,
        target: profile.id.clone(),
        profile: profile.name.clone(),
        profile_lineage: profile.lineage.clone(),
        schema_source: schema.as_ref().map(|(_, n)| n.clone()),
        unchecked: unchecked_notes(schema.as_ref().map(|(s, _)| *s), &statements),
        schema_findings: schema
            .as_ref()
            .map(|(s, _)| schema_findings(s, profile))
            .unwrap_or_default(),
        statements,
        summary,
        live: None,
        proposed_ddl: Vec::new(),
        input_notes,
        emitted: None,
    }
}

/// Audits one statement.
pub fn audit_statement(
    ordinal: usize,
    st: &input::DistinctStatement,
    ctx: &Context,
) -> StatementAudit {
    let (mut hits, parsed) = detect(&st.sample, ctx);
    if let Some(u) = &st.unterminated {
        // Where the quote opened, relative to the statement (a hit's position is 1-based within it).
        let line = (u.line as u64).saturating_sub(st.origin.line) + 1;
        let column = if line == 1 {
            (u.column as u64).saturating_sub(st.origin.column) + 1
        } else {
            u.column as u64
        };
        hits.push(
            Hit::new("INPUT-001")
                .detail(format!(
                    "{} opened at line {}, column {} never closes",
                    u.what, u.line, u.column
                ))
                .pos(line, column),
        );
    }
    let (findings, verdict) = judge(&hits, &st.sample, &st.origin, ctx.profile);
    let rewrite = if verdict == Verdict::Ok {
        None
    } else {
        rewrite::statement_rewrite(&st.sample, ctx, &findings)
    };
    StatementAudit {
        ordinal,
        fingerprint: st.fingerprint.clone(),
        fingerprint_id: st.fingerprint_id.clone(),
        sql: st.sample.clone(),
        count: st.count,
        total_time_s: st.total_time_s,
        verdict,
        parsed,
        findings,
        rewrite,
        origin: st.origin.clone(),
    }
}

/// Audits every statement, in parallel, keeping their order.
pub fn audit_all(statements: &[input::DistinctStatement], ctx: &Context) -> Vec<StatementAudit> {
    use rayon::prelude::*;
    let all = || {
        statements
            .par_iter()
            .enumerate()
            .map(|(i, st)| audit_statement(i, st, ctx))
            .collect()
    };
    // The AST walks recurse once per level of an expression: up to `sql::depth::MAX_OPERATOR_CHAIN`
    // levels of about 10 KB each in a debug build, more than rayon's 2 MB default stacks (or the
    // main thread's 8 MB) hold. Stacks are reserved, not committed: 64 MB costs nothing unused.
    match rayon::ThreadPoolBuilder::new()
        .stack_size(64 << 20)
        .thread_name(|i| format!("cutover-audit-{i}"))
        .build()
    {
        Ok(pool) => pool.install(all),
        Err(_) => all(),
    }
}

/// What could not be checked, given what the audit was told.
pub fn unchecked_notes(schema: Option<&Schema>, statements: &[StatementAudit]) -> Vec<String> {
    let mut out = Vec::new();
    if schema.is_none() {
        out.push(
            "no schema given (--schema DDL.sql or --source mysql://…): case- and accent-insensitive comparisons, PAD SPACE, ORDER BY without a unique key, string/number coercions on columns, boolean columns and column types were not checked"
                .to_string(),
        );
    }
    out.extend(missing_table_notes(statements));
    let not_parsed = statements.iter().filter(|s| !s.parsed).count();
    if not_parsed > 0 {
        out.push(format!(
            "{not_parsed} statement(s) sqlparser could not parse were checked on tokens only (rule PARSE): type- and schema-aware checks did not run on them"
        ));
    }
    out
}

/// Fingerprint ids listed per table in a SCHEMA-001 note before the rest is counted.
const MISSING_TABLE_IDS: usize = 10;

/// One note per table the given schema lacks (SCHEMA-001 findings), naming the statements that
/// name it by fingerprint id, in the order the tables first appear.
fn missing_table_notes(statements: &[StatementAudit]) -> Vec<String> {
    // (table, statements naming it, their distinct fingerprint ids)
    let mut tables: Vec<(String, usize, Vec<&str>)> = Vec::new();
    for st in statements {
        for f in st.findings.iter().filter(|f| f.rule == "SCHEMA-001") {
            let Some(name) = &f.detail else {
                continue;
            };
            let i = match tables.iter().position(|(t, _, _)| t == name) {
                Some(i) => i,
                None => {
                    tables.push((name.clone(), 0, Vec::new()));
                    tables.len() - 1
                }
            };
            tables[i].1 += 1;
            let ids = &mut tables[i].2;
            if !ids.contains(&st.fingerprint_id.as_str()) {
                ids.push(&st.fingerprint_id);
            }
        }
    }
    tables
        .into_iter()
        .map(|(table, n, ids)| {
            let mut listed: Vec<String> = ids
                .iter()
                .take(MISSING_TABLE_IDS)
                .map(|id| format!("#{id}"))
                .collect();
            if ids.len() > MISSING_TABLE_IDS {
                listed.push(format!("and {} more", ids.len() - MISSING_TABLE_IDS));
            }
            format!(
                "table {table} is not in the schema: {} statement(s) naming it ({}) (SCHEMA-001)",
                n,
                listed.join(", ")
            )
        })
        .collect()
}
