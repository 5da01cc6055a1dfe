//! `INSERT … VALUES` (mysqldump's multi-row form included) written for the target on tokens: the
//! table's column types (from the tables created earlier in the script, or `--schema`) decide how each
//! literal is written (booleans, bytea, bit, zero dates). `INSERT IGNORE` becomes `ON CONFLICT DO
//! NOTHING`, `REPLACE` an `ON CONFLICT (primary key) DO UPDATE`. Anything else (INSERT … SELECT,
//! INSERT … SET, ON DUPLICATE KEY UPDATE) goes to the audit's rewrite.

use super::literal::{
    LiteralNotes, Slot, ident_name, next_code, target_ident, translate_with_slot, word,
};
use crate::profile::Profile;
use crate::schema::Schema;
use crate::schema::target::column_type;
use crate::sql::lexer::{Token, TokenKind};

pub struct TranslatedInsert {
    pub sql: String,
    pub rows: u64,
}

/// Translates one INSERT/REPLACE; `Err(why)` when its form is not one handled here.
pub fn translate(
    src: &[u8],
    toks: &[Token],
    schema: &Schema,
    profile: &Profile,
    notes: &mut LiteralNotes,
) -> Result<TranslatedInsert, String> {
    let mut i = next_code(toks, 0).ok_or("empty")?;
    let replace = word(&toks[i], src) == "REPLACE";
    let mut ignore = false;
    i += 1;
    // Modifiers and INTO.
    let name_at = loop {
        let j = next_code(toks, i).ok_or("no table")?;
        match word(&toks[j], src).as_str() {
            "LOW_PRIORITY" | "DELAYED" | "HIGH_PRIORITY" | "INTO" => i = j + 1,
            "IGNORE" => {
                ignore = true;
                i = j + 1;
            }
            _ => break j,
        }
    };
    // A possibly qualified name: the last part names the table.
    let mut end = name_at;
    let mut name = ident_name(&toks[name_at], src);
    while let Some(d) = next_code(toks, end + 1)
        && toks[d].text(src) == b"."
        && let Some(n) = next_code(toks, d + 1)
    {
        name = ident_name(&toks[n], src);
        end = n;
    }
    let table = schema.table(&name);
    let mut j = next_code(toks, end + 1).ok_or("no VALUES")?;
    let mut columns: Vec<String> = Vec::new();
    if toks[j].text(src) == b"(" {
        loop {
            j = next_code(toks, j + 1).ok_or("unclosed column list")?;
            match toks[j].kind {
                TokenKind::Word | TokenKind::QuotedIdent => columns.push(ident_name(&toks[j], src)),
                _ if toks[j].text(src) == b")" => break,
                _ if toks[j].text(src) == b"," => {}
                _ => return Err("an unexpected column list".into()),
            }
        }
        j = next_code(toks, j + 1).ok_or("no VALUES")?;
    }
    if !matches!(word(&toks[j], src).as_str(), "VALUES" | "VALUE") {
        return Err("INSERT … SELECT / SET is translated by the rewriter".into());
    }
    if columns.is_empty()
        && let Some(t) = table
    {
        columns = t.columns.iter().map(|c| c.name.clone()).collect();
    }
    // Per column: its slot and target type.
    let slots: Vec<(Slot, String)> = columns
        .iter()
        .map(|c| {
            table
                .and_then(|t| t.column(c))
                .map(|col| {
                    let ty = column_type(profile, col);
                    (Slot::of_target_type(&ty), ty)
                })
                .unwrap_or((Slot::Any, String::new()))
        })
        .collect();
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    out.push_str("INSERT INTO ");
    out.push_str(&target_ident(&name));
    if !columns.is_empty() && (toks[end + 1..j].iter().any(|t| t.text(src) == b"(")) {
        out.push_str(" (");
        out.push_str(
            &columns
                .iter()
                .map(|c| target_ident(c))
                .collect::<Vec<_>>()
                .join(", "),
        );
        out.push(')');
    }
    out.push_str(" VALUES ");
    // Rows: `(` values `)` separated by commas; each depth-1 value is written for its column.
    let mut rows = 0u64;
    let mut k = j + 1;
    while let Some(open) = next_code(toks, k) {
        if toks[open].text(src) != b"(" {
            // ON DUPLICATE KEY UPDATE and the like.
            return Err("ON DUPLICATE KEY UPDATE is translated by the rewriter".into());
        }
        if rows > 0 {
            out.push_str(",\n");
        }
        out.push('(');
        let mut col = 0usize;
        let mut depth = 1;
        let mut value_start = open + 1;
        let mut m = open + 1;
        loop {
            let t = toks.get(m).ok_or("unclosed row")?;
            let text = t.text(src);
            if text == b"(" {
                depth += 1;
            } else if text == b")" || (text == b"," && depth == 1) {
                if text == b")" {
                    depth -= 1;
                }
                if depth == 0 || text == b"," {
                    let (slot, ty) = slots
                        .get(col)
                        .cloned()
                        .unwrap_or((Slot::Any, String::new()));
                    let v = translate_with_slot(src, &toks[value_start..m], slot, &ty, notes);
                    out.push_str(v.trim());
                    if depth == 0 {
                        out.push(')');
                        break;
                    }
                    out.push_str(", ");
                    col += 1;
                    value_start = m + 1;
                }
            }
            m += 1;
        }
        rows += 1;
        k = m + 1;
        match next_code(toks, k) {
            Some(c) if toks[c].text(src) == b"," => k = c + 1,
            Some(c) if toks[c].text(src) == b";" => break,
            Some(_) => {
                return Err("ON DUPLICATE KEY UPDATE is translated by the rewriter".into());
            }
            None => break,
        }
    }
    if ignore {
        out.push_str("\nON CONFLICT DO NOTHING");
    }
    if replace {
        let t =
            table.ok_or("REPLACE into a table the script does not create: its key is unknown")?;
        if t.primary_key.is_empty() {
            return Err("REPLACE into a table without a primary key".into());
        }
        let keys: Vec<String> = t.primary_key.iter().map(|k| target_ident(k)).collect();
        let sets: Vec<String> = columns
            .iter()
            .filter(|c| !t.primary_key.iter().any(|k| k.eq_ignore_ascii_case(c)))
            .map(|c| {
                let n = target_ident(c);
                format!("{n} = EXCLUDED.{n}")
            })
            .collect();
        if sets.is_empty() {
            out.push_str(&format!("\nON CONFLICT ({}) DO NOTHING", keys.join(", ")));
        } else {
            out.push_str(&format!(
                "\nON CONFLICT ({}) DO UPDATE SET {}",
                keys.join(", "),
                sets.join(", ")
            ));
        }
    }
    Ok(TranslatedInsert { sql: out, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ddl::schema_from_ddl;

    fn tr(ddl: &str, sql: &str) -> Result<TranslatedInsert, String> {
        let s = schema_from_ddl(ddl, "t.sql").schema;
        let p = crate::profile::load_profile("postgres", None).unwrap();
        let toks = super::super::literal::code_tokens(sql.as_bytes());
        translate(sql.as_bytes(), &toks, &s, &p, &mut LiteralNotes::default())
    }

    #[test]
    fn multi_row_inserts_take_their_columns_types() {
        let ddl = "CREATE TABLE `t` (`id` int NOT NULL, `ok` tinyint(1), `pic` blob, `d` datetime, `b` bit(3), `s` varchar(10), PRIMARY KEY (`id`))";
        let t = tr(ddl, r"INSERT INTO `t` VALUES (1,1,0x4142,'0000-00-00 00:00:00',b'101','a\'b\\c'),(2,0,NULL,'2020-01-01',0,_utf8mb4'x')").unwrap();
        assert_eq!(t.rows, 2);
        assert_eq!(
            t.sql,
            "INSERT INTO t VALUES (1, true, '\\x4142', NULL, CAST(B'101' AS bit(3)), 'a''b\\c'),\n(2, false, NULL, '2020-01-01', CAST(0 AS bit(3)), 'x')"
        );
        let r = tr(ddl, "REPLACE INTO t (id, s) VALUES (1, 'x')").unwrap();
        assert!(
            r.sql
                .ends_with("ON CONFLICT (id) DO UPDATE SET s = EXCLUDED.s"),
            "{}",
            r.sql
        );
        let g = tr(ddl, "INSERT IGNORE INTO t (id) VALUES (1)").unwrap();
        assert!(g.sql.ends_with("ON CONFLICT DO NOTHING"), "{}", g.sql);
        assert!(
            tr(
                ddl,
                "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE s = 'y'"
            )
            .is_err()
        );
        assert!(tr(ddl, "INSERT INTO t SELECT * FROM u").is_err());
    }
}
