//! `CREATE TRIGGER` with a MySQL body, for a target with PL/pgSQL: a trigger function and a
//! trigger, where the body is plain row logic — `INSERT`/`UPDATE`/`DELETE` statements, `SET
//! NEW.col = expr` (written `NEW.col := expr`), and `IF … THEN … [ELSEIF … THEN …] [ELSE …] END IF`
//! around them, referring to `NEW`/`OLD` as PL/pgSQL does. Anything else (DECLARE, CALL, SIGNAL,
//! loops, cursors, CASE statements, `SELECT … INTO`) is not translated: the caller writes the
//! trigger commented out (DDL-019), because a half-translated body would fail when the trigger
//! first fires, in the middle of the data.

use super::literal::{LiteralNotes, ident_name, target_ident, translate_tokens, word};
use crate::sql::lexer::{Token, TokenKind};

/// The statements that replace the trigger: the function, then the trigger. Err says why the body
/// stays commented out.
pub(super) fn translate(
    src: &[u8],
    toks: &[Token],
    notes: &mut LiteralNotes,
) -> Result<Vec<String>, String> {
    // Positions of the code tokens (no whitespace) in `toks`.
    let code: Vec<usize> = (0..toks.len())
        .filter(|&i| toks[i].kind != TokenKind::Whitespace)
        .collect();
    let w = |k: usize| {
        code.get(k)
            .map(|&i| word(&toks[i], src))
            .unwrap_or_default()
    };
    // CREATE [DEFINER = user@host] TRIGGER
    let at = (1..code.len().min(12))
        .find(|&k| w(k) == "TRIGGER")
        .ok_or("no TRIGGER keyword after CREATE")?;
    let (name, mut k) = qualified_name(src, toks, &code, at + 1).ok_or("no trigger name")?;
    let timing = w(k);
    if timing != "BEFORE" && timing != "AFTER" {
        return Err(format!("trigger timing {timing} is not BEFORE or AFTER"));
    }
    let event = w(k + 1);
    if !matches!(event.as_str(), "INSERT" | "UPDATE" | "DELETE") {
        return Err(format!(
            "trigger event {event} is not INSERT, UPDATE or DELETE"
        ));
    }
    if w(k + 2) != "ON" {
        return Err("no ON table".into());
    }
    let (table, after_table) = qualified_name(src, toks, &code, k + 3).ok_or("no table name")?;
    k = after_table;
    if (w(k), w(k + 1), w(k + 2)) != ("FOR".into(), "EACH".into(), "ROW".into()) {
        return Err("no FOR EACH ROW".into());
    }
    k += 3;
    if matches!(w(k).as_str(), "FOLLOWS" | "PRECEDES") {
        return Err(format!(
            "{} another trigger: PostgreSQL fires a table's triggers in name order",
            w(k)
        ));
    }
    let Some(&body_start) = code.get(k) else {
        return Err("no trigger body".into());
    };
    let (inner, single) = if w(k) == "BEGIN" {
        let last = *code.last().ok_or("no trigger body")?;
        if word(&toks[last], src) != "END" || code.len() < k + 2 {
            return Err("BEGIN without a closing END".into());
        }
        (&toks[body_start + 1..last], false)
    } else {
        (&toks[body_start..], true)
    };
    let body = body_statements(src, inner)?;
    // The body translated, with each `SET NEW.col =` written as PL/pgSQL's `NEW.col :=`.
    let mut text = String::new();
    let mut rest = inner;
    for (from, to, col) in &body.assignments {
        let before = rest.iter().take_while(|t| t.end <= *from).count();
        text.push_str(&translate_tokens(src, &rest[..before], notes));
        text.push_str(&format!("NEW.{col} :="));
        let skipped = rest[before..].iter().take_while(|t| t.start < *to).count();
        rest = &rest[before + skipped..];
    }
    text.push_str(&translate_tokens(src, rest, notes));
    let mut text = text.trim().to_string();
    if single {
        text.push(';');
    }
    if text.contains("$cutover$") {
        return Err("the body contains the function's quoting tag".into());
    }
    let returns = match (timing.as_str(), event.as_str()) {
        ("AFTER", _) => "NULL",
        (_, "DELETE") => "OLD",
        _ => "NEW",
    };
    let func = target_ident(&format!("{name}_fn"));
    let body_text = text
        .lines()
        .map(|l| format!("  {}", l.trim_end()))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(vec![
        format!(
            "CREATE FUNCTION {func}() RETURNS trigger LANGUAGE plpgsql AS $cutover$\nBEGIN\n{body_text}\n  RETURN {returns};\nEND\n$cutover$"
        ),
        format!(
            "CREATE TRIGGER {} {timing} {event} ON {} FOR EACH ROW EXECUTE FUNCTION {func}()",
            target_ident(&name),
            target_ident(&table)
        ),
    ])
}

/// `name` or `db.name` starting at code token `k`: the last part, and the code token after it.
fn qualified_name(src: &[u8], toks: &[Token], code: &[usize], k: usize) -> Option<(String, usize)> {
    let name_at = |k: usize| {
        let t = &toks[*code.get(k)?];
        matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent).then(|| ident_name(t, src))
    };
    let mut name = name_at(k)?;
    let mut next = k + 1;
    while code.get(next).is_some_and(|&i| toks[i].text(src) == b".") {
        name = name_at(next + 1)?;
        next += 2;
    }
    Some((name, next))
}

/// What the body's checks found: the `SET NEW.col =` to write as assignments, as (first byte, end
/// byte of the `=`, the column's name on the target), in body order.
struct Body {
    assignments: Vec<(usize, usize, String)>,
}

/// Checks that every statement of the body is one the translation keeps as it is.
fn body_statements(src: &[u8], inner: &[Token]) -> Result<Body, String> {
    const NEVER: &[&str] = &[
        "DECLARE",
        "CALL",
        "SIGNAL",
        "RESIGNAL",
        "LOOP",
        "WHILE",
        "REPEAT",
        "LEAVE",
        "ITERATE",
        "CURSOR",
        "FETCH",
        "OPEN",
        "CLOSE",
        "HANDLER",
        "CASE",
        "BEGIN",
        "RETURN",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
    ];
    let mut body = Body {
        assignments: Vec::new(),
    };
    let mut piece: Vec<Token> = Vec::new();
    let mut depth = 0i32;
    let mut pieces: Vec<Vec<Token>> = Vec::new();
    for t in inner {
        if t.kind == TokenKind::Whitespace {
            continue;
        }
        match t.text(src) {
            b"(" => depth += 1,
            b")" => depth -= 1,
            b";" if depth == 0 => {
                pieces.push(std::mem::take(&mut piece));
                continue;
            }
            _ => {}
        }
        piece.push(*t);
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    if pieces.is_empty() {
        return Err("an empty body".into());
    }
    for p in &pieces {
        let words: Vec<String> = p.iter().map(|t| word(t, src)).collect();
        if let Some(bad) = words.iter().find(|w| NEVER.contains(&w.as_str())) {
            return Err(format!(
                "{bad} in the body (procedural MySQL beyond row statements)"
            ));
        }
        // Strip the control flow that leads into a statement.
        let mut i = 0;
        loop {
            match words.get(i).map(String::as_str) {
                Some("IF") | Some("ELSEIF") => {
                    let then = words[i..]
                        .iter()
                        .position(|w| w == "THEN")
                        .ok_or("IF without THEN")?;
                    i += then + 1;
                }
                Some("ELSE") => i += 1,
                Some("END") if words.get(i + 1).map(String::as_str) == Some("IF") => i += 2,
                _ => break,
            }
        }
        match words.get(i).map(String::as_str) {
            None => {}
            Some("INSERT") | Some("UPDATE") | Some("DELETE") => {
                if let Some(s) = words.iter().position(|w| w == "SELECT")
                    && words[s..].iter().any(|w| w == "INTO")
                {
                    return Err("SELECT … INTO in the body".into());
                }
            }
            Some("SET") => {
                // SET NEW.col = expr (one assignment).
                let is_new = words.get(i + 1).map(String::as_str) == Some("NEW")
                    && p.get(i + 2).is_some_and(|t| t.text(src) == b".")
                    && p.get(i + 4).is_some_and(|t| t.text(src) == b"=");
                let commas = p[i..].iter().filter(|t| t.text(src) == b",").count();
                if !is_new || commas > 0 {
                    return Err("SET other than one NEW.column = value".into());
                }
                let col = target_ident(&ident_name(&p[i + 3], src));
                body.assignments.push((p[i].start, p[i + 4].end, col));
            }
            Some(other) => return Err(format!("{other} statement in the body")),
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::emit::literal::code_tokens;

    fn tr(sql: &str) -> Result<Vec<String>, String> {
        let toks = code_tokens(sql.as_bytes());
        translate(sql.as_bytes(), &toks, &mut LiteralNotes::default())
    }

    #[test]
    fn plain_row_logic_becomes_a_plpgsql_function_and_a_trigger() {
        let out = tr("CREATE TRIGGER `ins_film` AFTER INSERT ON `film` FOR EACH ROW BEGIN\n    INSERT INTO film_text (film_id, title) VALUES (new.film_id, new.title);\n  END")
            .unwrap();
        assert!(
            out[0].starts_with("CREATE FUNCTION ins_film_fn() RETURNS trigger"),
            "{}",
            out[0]
        );
        assert!(
            out[0].contains(
                "INSERT INTO film_text (film_id, title) VALUES (new.film_id, new.title);"
            ),
            "{}",
            out[0]
        );
        assert!(out[0].contains("RETURN NULL;"), "{}", out[0]);
        assert_eq!(
            out[1],
            "CREATE TRIGGER ins_film AFTER INSERT ON film FOR EACH ROW EXECUTE FUNCTION ins_film_fn()"
        );
        let out = tr("CREATE DEFINER=`root`@`localhost` TRIGGER s.bi BEFORE INSERT ON s.t FOR EACH ROW SET NEW.`Made` = NOW()").unwrap();
        assert!(out[0].contains("NEW.made := NOW();"), "{}", out[0]);
        assert!(out[0].contains("RETURN NEW;"), "{}", out[0]);
        let out = tr("CREATE TRIGGER u AFTER UPDATE ON t FOR EACH ROW BEGIN IF (old.a != new.a) THEN UPDATE x SET a = new.a WHERE id = old.id; ELSE DELETE FROM x WHERE id = old.id; END IF; END").unwrap();
        assert!(out[0].contains("END IF;"), "{}", out[0]);
    }

    #[test]
    fn procedural_bodies_stay_untranslated() {
        for sql in [
            "CREATE TRIGGER a BEFORE INSERT ON t FOR EACH ROW BEGIN DECLARE x INT; SET x = 1; END",
            "CREATE TRIGGER a BEFORE INSERT ON t FOR EACH ROW BEGIN IF new.a < 0 THEN SIGNAL SQLSTATE '45000'; END IF; END",
            "CREATE TRIGGER a BEFORE INSERT ON t FOR EACH ROW CALL p()",
            "CREATE TRIGGER a AFTER INSERT ON t FOR EACH ROW FOLLOWS b INSERT INTO x VALUES (1)",
            "CREATE TRIGGER a BEFORE INSERT ON t FOR EACH ROW SET @n = @n + 1",
        ] {
            assert!(tr(sql).is_err(), "{sql}");
        }
    }
}
