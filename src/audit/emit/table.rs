//! `CREATE TABLE` written for a PostgreSQL-family target: the profile's type map (the one verify
//! expects), identity for AUTO_INCREMENT, CHECK for ENUM, inline indexes as CREATE INDEX, COMMENT ON,
//! an update trigger for ON UPDATE CURRENT_TIMESTAMP; foreign keys and the identity resets are kept
//! for the end of the script (after the data).

use super::literal::{
    LiteralNotes, Slot, code_tokens, ident_name, next_code, target_ident, translate_tokens,
    translate_with_slot, word,
};
use crate::profile::Profile;
use crate::schema::Table;
use crate::schema::target::column_type;
use crate::sql::lexer::{Token, TokenKind, unquote};
use std::collections::HashSet;

/// A translated table: the statements to write now, and what must wait for the data.
pub struct TranslatedTable {
    pub now: Vec<String>,
    /// Notes written as comments before the statements (dropped options, untranslatable parts).
    pub notes: Vec<String>,
    /// `ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY …`, for the end.
    pub foreign_keys: Vec<String>,
    /// Identity resets, for the end.
    pub resets: Vec<String>,
    /// Functions of a translated PARTITION BY expression (`YEAR`): none is left in the output.
    pub partition_calls: Vec<String>,
}

/// Whether the target runs PL/pgSQL triggers (KaiwuDB does not).
pub fn has_triggers(profile: &Profile) -> bool {
    !(profile.id == "kaiwudb" || profile.lineage.iter().any(|l| l == "kaiwudb"))
}

/// The depth-1 items of the column list, and the tokens after it (table options).
fn split_body(src: &[u8], toks: &[Token]) -> Option<(Vec<Vec<Token>>, Vec<Token>)> {
    let open = toks.iter().position(|t| t.text(src) == b"(")?;
    let mut items = Vec::new();
    let mut cur = Vec::new();
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.text(src) {
            b"(" => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            b")" => {
                depth -= 1;
                if depth == 0 {
                    items.push(std::mem::take(&mut cur));
                    return Some((items, toks[i + 1..].to_vec()));
                }
            }
            b"," if depth == 1 => {
                items.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(*t);
    }
    None
}

fn code(toks: &[Token]) -> Vec<Token> {
    toks.iter()
        .copied()
        .filter(|t| t.kind != TokenKind::Whitespace)
        .collect()
}

/// The names in the first parenthesised list of `toks`, prefix lengths dropped (`a(10)` → a).
fn paren_columns(src: &[u8], toks: &[Token]) -> Vec<String> {
    let c = code(toks);
    let Some(open) = c.iter().position(|t| t.text(src) == b"(") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0;
    let mut expect = true;
    for t in &c[open..] {
        match t.text(src) {
            b"(" => depth += 1,
            b")" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b"," if depth == 1 => expect = true,
            _ if depth == 1
                && expect
                && matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent) =>
            {
                out.push(target_ident(&ident_name(t, src)));
                expect = false;
            }
            _ => {}
        }
    }
    out
}

/// The string after `COMMENT` (optionally `=`) in `toks`.
fn comment_of(src: &[u8], toks: &[Token]) -> Option<Vec<u8>> {
    let c = code(toks);
    let i = c.iter().position(|t| word(t, src) == "COMMENT")?;
    let mut j = i + 1;
    if c.get(j).is_some_and(|t| t.text(src) == b"=") {
        j += 1;
    }
    c.get(j)
        .filter(|t| t.kind == TokenKind::String)
        .map(|t| unquote(t.text(src)))
}

/// MySQL's FULLTEXT index on `cols` as the target's text-search index: GIN over the columns'
/// words (the `simple` configuration: no stemming, no stop words), what a query written with
/// `to_tsvector('simple', …) @@ …` uses. None without columns.
pub fn search_index(name: &str, table: &str, cols: &[String]) -> Option<String> {
    let doc = match cols {
        [] => return None,
        [one] => one.clone(),
        many => many
            .iter()
            .map(|c| format!("coalesce({c}, '')"))
            .collect::<Vec<_>>()
            .join(" || ' ' || "),
    };
    Some(format!(
        "CREATE INDEX {name} ON {table} USING gin (to_tsvector('simple', {doc}))"
    ))
}

/// Translates one `CREATE TABLE` whose schema is `table` (from [`crate::schema::ddl`]).
pub fn translate(
    sql: &str,
    table: &Table,
    profile: &Profile,
    index_names: &mut HashSet<String>,
    notes: &mut LiteralNotes,
) -> Option<TranslatedTable> {
    let src = sql.as_bytes();
    let toks = code_tokens(src);
    let (items, options) = split_body(src, &toks)?;
    let tname = target_ident(&table.name);
    let mut out = TranslatedTable {
        now: Vec::new(),
        notes: Vec::new(),
        foreign_keys: Vec::new(),
        resets: Vec::new(),
        partition_calls: Vec::new(),
    };
    let if_not_exists = code(&toks[..toks.len().min(8)])
        .iter()
        .any(|t| word(t, src) == "EXISTS");
    let mut parts: Vec<String> = Vec::new();
    let mut after: Vec<String> = Vec::new();
    let mut on_update: Vec<String> = Vec::new();
    let mut checks: Vec<String> = Vec::new();
    for item in &items {
        let c = code(item);
        let Some(first) = c.first() else { continue };
        let w = word(first, src);
        let second = c.get(1).map(|t| word(t, src)).unwrap_or_default();
        match w.as_str() {
            "PRIMARY" | "UNIQUE" => continue,
            "CONSTRAINT"
                if matches!(
                    c.get(2).map(|t| word(t, src)).as_deref(),
                    Some("PRIMARY" | "UNIQUE")
                ) || matches!(second.as_str(), "PRIMARY" | "UNIQUE") =>
            {
                continue;
            }
            "KEY" | "INDEX" => {
                let cols = paren_columns(src, item);
                let named = c
                    .get(1)
                    .filter(|t| t.text(src) != b"(" && word(t, src) != "USING")
                    .map(|t| ident_name(t, src))
                    .unwrap_or_else(|| format!("{}_{}", table.name, cols.join("_")));
                let name = unique_index_name(index_names, &table.name, &named);
                after.push(format!(
                    "CREATE INDEX {name} ON {tname} ({})",
                    cols.join(", ")
                ));
            }
            "FULLTEXT" | "SPATIAL" => {
                let cols = paren_columns(src, item);
                let named = c
                    .iter()
                    .skip(1)
                    .find(|t| !matches!(word(t, src).as_str(), "KEY" | "INDEX"))
                    .filter(|t| t.text(src) != b"(")
                    .map(|t| ident_name(t, src))
                    .unwrap_or_else(|| format!("{}_{}", table.name, cols.join("_")));
                let name = unique_index_name(index_names, &table.name, &named);
                // A SPATIAL index needs a type the target indexes with GiST.
                let gist_type = |i: usize| {
                    c.iter()
                        .filter(|t| matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent))
                        .nth(i)
                        .and_then(|t| table.column(&ident_name(t, src)))
                        .is_some_and(|col| {
                            matches!(
                                column_type(profile, col).as_str(),
                                "point" | "polygon" | "box" | "circle"
                            )
                        })
                };
                let index = if w == "FULLTEXT" {
                    search_index(&name, &tname, &cols)
                } else {
                    // SPATIAL [KEY|INDEX] [name] (col): the column is the last word.
                    let words = c
                        .iter()
                        .filter(|t| matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent))
                        .count();
                    (cols.len() == 1 && words > 0 && gist_type(words - 1))
                        .then(|| format!("CREATE INDEX {name} ON {tname} USING gist ({})", cols[0]))
                };
                match index {
                    Some(ix) => after.push(ix),
                    None => {
                        let text = String::from_utf8_lossy(&src[first.start..c[c.len() - 1].end]);
                        out.notes.push(format!(
                            "{w} index not translated (DDL-020: the target has no {w} index; build a GIN/GiST index on to_tsvector or a geometry type by hand): {text}"
                        ));
                    }
                }
            }
            "FOREIGN" | "CONSTRAINT" => {
                let fk_at = c.iter().position(|t| word(t, src) == "FOREIGN");
                if let Some(fk) = fk_at {
                    let name = if w == "CONSTRAINT" && fk >= 2 {
                        ident_name(&c[1], src)
                    } else {
                        format!("{}_{}_fkey", table.name, out.foreign_keys.len() + 1)
                    };
                    let body_start = c[fk].start;
                    let body: Vec<Token> = item
                        .iter()
                        .copied()
                        .filter(|t| t.start >= body_start)
                        .collect();
                    out.foreign_keys.push(format!(
                        "ALTER TABLE {tname} ADD CONSTRAINT {} {}",
                        target_ident(&name),
                        translate_tokens(src, &body, notes).trim()
                    ));
                } else if c.iter().any(|t| word(t, src) == "CHECK") {
                    checks.push(translate_tokens(src, item, notes).trim().to_string());
                }
            }
            "CHECK" => checks.push(translate_tokens(src, item, notes).trim().to_string()),
            _ => {
                // A column definition.
                let name = ident_name(first, src);
                let Some(col) = table.column(&name) else {
                    continue;
                };
                let cname = target_ident(&col.name);
                let ty = column_type(profile, col);
                let slot = Slot::of_target_type(&ty);
                let mut s = format!("{cname} {ty}");
                if let Some(expr) = generated_expr(src, item) {
                    let written = translate_tokens(src, &expr, notes);
                    // The profile's function templates too: the target requires an immutable
                    // expression, and MySQL's CONCAT (concat() here is only stable) has one.
                    let written = crate::profile::rewrite::rewrite_with(&written, profile, &[])
                        .map_or(written, |r| r.sql);
                    s.push_str(&format!(" GENERATED ALWAYS AS ({}) STORED", written.trim()));
                } else if col.auto_increment {
                    s.push_str(" GENERATED BY DEFAULT AS IDENTITY");
                    let auto_start = table_option_number(src, &options, "AUTO_INCREMENT");
                    out.resets.push(format!(
                        "SELECT setval(pg_get_serial_sequence('{}', '{}'), GREATEST(COALESCE(MAX({cname}), 0) + 1, {}), false) FROM {tname}",
                        tname.replace('\'', "''"),
                        col.name.to_lowercase().replace('\'', "''"),
                        auto_start.unwrap_or(1)
                    ));
                } else if let Some(d) = default_tokens(src, item) {
                    let dt = translate_with_slot(src, &d, slot, &ty, notes);
                    let dt = dt.trim();
                    let zero = d.iter().any(|t| {
                        t.kind == TokenKind::String
                            && super::literal::is_zero_date(&unquote(t.text(src)))
                    });
                    if dt == "NULL" && zero {
                        out.notes.push(format!(
                            "{}.{}: zero-date default dropped (the target has no zero date)",
                            table.name, col.name
                        ));
                    } else if dt != "NULL" {
                        s.push_str(&format!(" DEFAULT {dt}"));
                    }
                }
                if !col.nullable {
                    s.push_str(" NOT NULL");
                }
                if col.mysql_type.base == "ENUM" && !col.mysql_type.members.is_empty() {
                    let members: Vec<String> = col
                        .mysql_type
                        .members
                        .iter()
                        .map(|m| format!("'{}'", m.replace('\'', "''")))
                        .collect();
                    s.push_str(&format!(" CHECK ({cname} IN ({}))", members.join(", ")));
                }
                if col.mysql_type.base == "SET" {
                    out.notes.push(format!(
                        "{}.{}: SET({}) becomes {ty}; its values stay the comma-separated member lists MySQL stores",
                        table.name,
                        col.name,
                        col.mysql_type.members.join(",")
                    ));
                }
                if col.on_update_current_timestamp {
                    on_update.push(cname.clone());
                }
                if let Some(cm) = comment_of(src, item) {
                    let mut nul = 0;
                    after.push(format!(
                        "COMMENT ON COLUMN {tname}.{cname} IS {}",
                        super::literal::pg_string(&cm, &mut nul)
                    ));
                }
                parts.push(s);
            }
        }
    }
    if !table.primary_key.is_empty() {
        let cols: Vec<String> = table.primary_key.iter().map(|k| target_ident(k)).collect();
        parts.push(format!("PRIMARY KEY ({})", cols.join(", ")));
    }
    for u in &table.unique_keys {
        let cols: Vec<String> = u.iter().map(|k| target_ident(k)).collect();
        parts.push(format!("UNIQUE ({})", cols.join(", ")));
    }
    parts.extend(checks);
    let options_code = code(&options);
    let partitioning = super::partition::range_partitioning(src, &options_code, table);
    out.now.push(format!(
        "CREATE TABLE {}{tname} (\n  {}\n){}",
        if if_not_exists { "IF NOT EXISTS " } else { "" },
        parts.join(",\n  "),
        partitioning.as_ref().map_or("", |p| p.clause.as_str())
    ));
    let options: Vec<Token> = match &partitioning {
        Some(p) => {
            out.now.extend(p.partitions.iter().cloned());
            out.partition_calls = p.calls.clone();
            options_code[..p.starts_at].to_vec()
        }
        None => options,
    };
    if let Some(cm) = comment_of(src, &options) {
        let mut nul = 0;
        out.now.push(format!(
            "COMMENT ON TABLE {tname} IS {}",
            super::literal::pg_string(&cm, &mut nul)
        ));
    }
    out.now.extend(after);
    if !on_update.is_empty() {
        if has_triggers(profile) {
            let func = target_ident(&format!("{}_on_update", table.name));
            let sets: Vec<String> = on_update
                .iter()
                .map(|c| format!("  IF NEW.{c} IS NOT DISTINCT FROM OLD.{c} THEN NEW.{c} := CURRENT_TIMESTAMP; END IF;"))
                .collect();
            out.now.push(format!(
                "CREATE FUNCTION {func}() RETURNS trigger LANGUAGE plpgsql AS $cutover$\nBEGIN\n  -- MySQL's ON UPDATE CURRENT_TIMESTAMP: set when the row changes and the statement did not set it.\n  IF NEW IS DISTINCT FROM OLD THEN\n  {}\n  END IF;\n  RETURN NEW;\nEND\n$cutover$",
                sets.join("\n  ")
            ));
            out.now.push(format!(
                "CREATE TRIGGER {func} BEFORE UPDATE ON {tname} FOR EACH ROW EXECUTE FUNCTION {func}()"
            ));
        } else {
            out.notes.push(format!(
                "{}: ON UPDATE CURRENT_TIMESTAMP on {} not translated (DDL-009: {} has no triggers; set the column in the application's UPDATEs)",
                table.name,
                on_update.join(", "),
                profile.name
            ));
        }
    }
    let dropped: Vec<String> = table_options(src, &options);
    if !dropped.is_empty() {
        out.notes.push(format!(
            "{}: table options dropped (the target has no such options): {}",
            table.name,
            dropped.join(", ")
        ));
    }
    Some(out)
}

/// The tokens of a column's `DEFAULT` value.
pub(crate) fn default_tokens(src: &[u8], item: &[Token]) -> Option<Vec<Token>> {
    let i = item.iter().position(|t| word(t, src) == "DEFAULT")?;
    let start = next_code(item, i + 1)?;
    let mut end = start + 1;
    if item[start].text(src) == b"("
        || item[start].text(src) == b"-"
        || item[start].text(src) == b"+"
    {
        // A parenthesised expression or a signed number: up to the balancing parenthesis / number.
        let mut depth = 0;
        for (j, t) in item.iter().enumerate().skip(start) {
            match t.text(src) {
                b"(" => depth += 1,
                b")" => depth -= 1,
                _ => {}
            }
            end = j + 1;
            if depth == 0 && j > start {
                break;
            }
        }
    } else if item[start].kind == TokenKind::Word
        && let Some(n) = next_code(item, start + 1)
        && item[n].text(src) == b"("
    {
        let mut depth = 0;
        for (j, t) in item.iter().enumerate().skip(n) {
            match t.text(src) {
                b"(" => depth += 1,
                b")" => depth -= 1,
                _ => {}
            }
            end = j + 1;
            if depth == 0 {
                break;
            }
        }
    } else if item[start].kind == TokenKind::Word
        && word(&item[start], src).starts_with('_')
        && let Some(n) = next_code(item, start + 1)
    {
        end = n + 1;
    }
    Some(item[start..end].to_vec())
}

/// The expression of `GENERATED ALWAYS AS (expr)` / `AS (expr)`.
fn generated_expr(src: &[u8], item: &[Token]) -> Option<Vec<Token>> {
    let i = item.iter().position(|t| word(t, src) == "AS")?;
    let open = next_code(item, i + 1)?;
    if item[open].text(src) != b"(" {
        return None;
    }
    let mut depth = 0;
    for (j, t) in item.iter().enumerate().skip(open) {
        match t.text(src) {
            b"(" => depth += 1,
            b")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(item[open + 1..j].to_vec());
                }
            }
            _ => {}
        }
    }
    None
}

fn table_option_number(src: &[u8], options: &[Token], key: &str) -> Option<u64> {
    let c = code(options);
    let i = c.iter().position(|t| word(t, src) == key)?;
    let mut j = i + 1;
    if c.get(j).is_some_and(|t| t.text(src) == b"=") {
        j += 1;
    }
    std::str::from_utf8(c.get(j)?.text(src)).ok()?.parse().ok()
}

/// The table options as written (`ENGINE=InnoDB`, `DEFAULT CHARSET=utf8`), COMMENT aside.
fn table_options(src: &[u8], options: &[Token]) -> Vec<String> {
    let c = code(options);
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let w = word(&c[i], src);
        if w == "COMMENT" {
            i += 2;
            if c.get(i - 1).is_some_and(|t| t.text(src) == b"=") {
                i += 1;
            }
            continue;
        }
        if c[i].text(src) == b"=" {
            if let (Some(last), Some(v)) = (out.last_mut(), c.get(i + 1)) {
                last.push('=');
                last.push_str(&String::from_utf8_lossy(v.text(src)));
            }
            i += 2;
            continue;
        }
        if matches!(
            w.as_str(),
            "DEFAULT" | "CHARACTER" | "SET" | "CHARSET" | "COLLATE"
        ) && out
            .last()
            .is_some_and(|l| matches!(l.as_str(), "DEFAULT" | "DEFAULT CHARACTER" | "CHARACTER"))
            && let Some(last) = out.last_mut()
        {
            last.push(' ');
            last.push_str(&String::from_utf8_lossy(c[i].text(src)));
            i += 1;
            continue;
        }
        out.push(String::from_utf8_lossy(c[i].text(src)).into_owned());
        i += 1;
    }
    out.retain(|o| o != ";");
    out
}

/// The index's name on the target, where index names are per schema, not per table: the MySQL
/// name, or prefixed with its table when another index already took it.
fn unique_index_name(taken: &mut HashSet<String>, table: &str, named: &str) -> String {
    let mut name = target_ident(named);
    if !taken.insert(name.clone()) {
        name = target_ident(&format!("{table}_{named}"));
        taken.insert(name.clone());
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ddl::table_from_statement;

    fn tr(profile: &str, sql: &str) -> TranslatedTable {
        let (t, _) = table_from_statement(sql).unwrap();
        let p = crate::profile::load_profile(profile, None).unwrap();
        translate(
            sql,
            &t,
            &p,
            &mut HashSet::new(),
            &mut LiteralNotes::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_dump_table_translates() {
        let sql = "CREATE TABLE `film` (`film_id` int unsigned NOT NULL AUTO_INCREMENT, `title` nvarchar(255) NOT NULL COMMENT 'the title', `rate` DECIMAL(4,2) NOT NULL DEFAULT 4.99, `rating` enum('G','PG') DEFAULT 'G', `active` tinyint(1) NOT NULL DEFAULT 1, `made` datetime DEFAULT '0000-00-00 00:00:00', `lang_id` int NOT NULL, `upd` timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(), PRIMARY KEY (`film_id`), KEY `idx_title` (`title`(10)), CONSTRAINT `fk_lang` FOREIGN KEY (`lang_id`) REFERENCES `language` (`id`) ON DELETE RESTRICT) ENGINE=InnoDB AUTO_INCREMENT=1001 DEFAULT CHARSET=utf8mb4 COMMENT='films'";
        let t = tr("postgres", sql);
        let create = &t.now[0];
        assert!(
            create.contains("film_id bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL"),
            "{create}"
        );
        assert!(create.contains("title varchar(255) NOT NULL"), "{create}");
        assert!(
            create.contains("rate numeric(4,2) DEFAULT 4.99 NOT NULL"),
            "{create}"
        );
        assert!(
            create.contains("rating text DEFAULT 'G' CHECK (rating IN ('G', 'PG'))"),
            "{create}"
        );
        assert!(
            create.contains("active boolean DEFAULT true NOT NULL"),
            "{create}"
        );
        assert!(create.contains("made timestamp(0),"), "{create}");
        assert!(
            create.contains("upd timestamptz(0) DEFAULT CURRENT_TIMESTAMP NOT NULL"),
            "{create}"
        );
        assert!(create.contains("PRIMARY KEY (film_id)"), "{create}");
        let all = t.now.join(";\n");
        assert!(all.contains("COMMENT ON TABLE film IS 'films'"), "{all}");
        assert!(
            all.contains("COMMENT ON COLUMN film.title IS 'the title'"),
            "{all}"
        );
        assert!(
            all.contains("CREATE INDEX idx_title ON film (title)"),
            "{all}"
        );
        assert!(
            all.contains("CREATE TRIGGER film_on_update BEFORE UPDATE ON film"),
            "{all}"
        );
        assert_eq!(
            t.foreign_keys,
            vec![
                "ALTER TABLE film ADD CONSTRAINT fk_lang FOREIGN KEY (lang_id) REFERENCES language (id) ON DELETE RESTRICT"
            ]
        );
        assert!(
            t.resets[0].contains("GREATEST(COALESCE(MAX(film_id), 0) + 1, 1001)"),
            "{:?}",
            t.resets
        );
        let notes = t.notes.join("\n");
        assert!(
            notes.contains("ENGINE=InnoDB") && notes.contains("zero-date default"),
            "{notes}"
        );
    }

    #[test]
    fn kaiwudb_gets_no_trigger_but_a_note() {
        let t = tr(
            "kaiwudb",
            "CREATE TABLE t (id INT PRIMARY KEY, upd TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)",
        );
        assert!(!t.now.join(";").contains("TRIGGER"));
        assert!(
            t.notes.iter().any(|n| n.contains("DDL-009")),
            "{:?}",
            t.notes
        );
    }
}
