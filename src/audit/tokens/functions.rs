//! Function and CAST checks on tokens (for statements sqlparser could not parse), and the
//! per-name and per-type findings the AST stage shares.

use super::stream::Stream;
use crate::audit::{Context, Hit};
use crate::profile::Profile;
use crate::sql::lexer::TokenKind;

/// Checks the AST stage does, on tokens, for statements sqlparser could not parse: function names and
/// CAST/CONVERT targets.
pub fn fallback_hits(sql: &str, ctx: &Context) -> Vec<Hit> {
    let s = Stream::new(sql);
    let mut h = Vec::new();
    for i in 0..s.len() {
        let t = &s.toks[i];
        if t.t.kind != TokenKind::Word || s.w(i + 1) != "(" || s.toks[i + 1].spaced {
            continue;
        }
        let name = s.w(i);
        // A table's column list (INTO t (…), TABLE t (…), REFERENCES t (…)) is not a call.
        if i > 0
            && matches!(
                s.w(i - 1),
                "INTO"
                    | "TABLE"
                    | "REFERENCES"
                    | "EXISTS"
                    | "ON"
                    | "UPDATE"
                    | "JOIN"
                    | "FROM"
                    | "KEY"
                    | "INDEX"
                    | "PRIMARY"
                    | "UNIQUE"
            )
        {
            continue;
        }
        if name == "CAST" || name == "CONVERT" {
            cast_target(&s, i, name, &mut h);
            continue;
        }
        function_hit(ctx.profile, name, s.at(i), &mut h);
    }
    // Column types of a CREATE TABLE sqlparser rejected.
    if s.w(0) == "CREATE"
        && (1..4).any(|k| s.is_word(k, "TABLE"))
        && let Some(t) = crate::schema::ddl::schema_from_ddl(sql, "statement")
            .schema
            .tables
            .first()
    {
        for c in &t.columns {
            crate::audit::ast::type_hits(ctx.profile, &c.mysql_type, None, &mut h);
        }
    }
    h
}

/// A function call by name: missing, different syntax, or different behaviour on the target.
pub fn function_hit(profile: &Profile, name: &str, offset: usize, h: &mut Vec<Hit>) {
    if name == "ISNULL" {
        h.push(Hit::new("DML-016").at(offset));
        return;
    }
    let Some(f) = profile.function(name) else {
        return;
    };
    let rw = f.rewrite.clone();
    let mut hit = match f.status.as_deref() {
        Some("missing") => Hit::new("FN-MISSING"),
        Some("syntax") => Hit::new("FN-SYNTAX"),
        Some("differs") if f.differs_when.as_deref() == Some("always") => Hit::new("FN-DIFFERS"),
        _ => return,
    }
    .at(offset)
    .detail(format!(
        "{name}(){}",
        f.note
            .as_deref()
            .map(|n| format!(": {n}"))
            .unwrap_or_default()
    ));
    if let Some(r) = rw {
        hit = hit.rewrite(r);
    }
    h.push(hit);
}

/// CAST(x AS type) / CONVERT(x, type) / CONVERT(x USING cs) on tokens.
fn cast_target(s: &Stream, i: usize, name: &str, h: &mut Vec<Hit>) {
    let d = s.depth[i + 1] + 1;
    let close = (i + 2..s.len())
        .find(|&k| s.depth[k] == d - 1 && s.w(k) == ")")
        .unwrap_or(s.len());
    if name == "CONVERT" {
        h.push(Hit::new("DML-017V").at(s.at(i)));
        return;
    }
    if let Some(as_at) = (i + 2..close)
        .rev()
        .find(|&k| s.depth[k] == d && s.is_word(k, "AS"))
    {
        let ty: Vec<&str> = (as_at + 1..close).map(|k| s.w(k)).collect();
        cast_type_hit(&ty.join(" "), s.at(as_at), h);
    }
}

/// The finding for a CAST target type written the MySQL way (shared with the AST stage).
pub fn cast_type_hit(ty: &str, offset: usize, h: &mut Vec<Hit>) {
    let t = ty.trim().to_ascii_uppercase();
    let base = t.split([' ', '(']).next().unwrap_or("");
    let rewrite = match base {
        "SIGNED" => Some("bigint"),
        "UNSIGNED" => Some("numeric(20) or bigint"),
        "DATETIME" => Some("timestamp"),
        "BINARY" => Some("bytea"),
        "NCHAR" | "NVARCHAR" => Some("varchar"),
        "YEAR" => Some("smallint"),
        _ => None,
    };
    if base == "DOUBLE" && !t.contains("PRECISION") {
        // A rule of its own: some targets (KaiwuDB) have the type name DOUBLE.
        h.push(
            Hit::new("DML-017D")
                .at(offset)
                .detail(format!("AS {t}"))
                .rewrite("CAST(x AS double precision)"),
        );
    } else if let Some(r) = rewrite {
        h.push(
            Hit::new("DML-017")
                .at(offset)
                .detail(format!("AS {t}"))
                .rewrite(format!("CAST(x AS {r})")),
        );
    } else if base == "CHAR" && !t.contains('(') {
        h.push(Hit::new("DML-017C").at(offset));
    }
}
