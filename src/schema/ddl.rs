//! Builds the schema from a MySQL DDL script: `CREATE TABLE` statements parsed with sqlparser;
//! everything else in the script (data, settings, views, routines) is skipped.

use super::{Column, MySqlType, Schema, Table};
use crate::sql::lexer::{Lexer, TokenKind};
use crate::sql::script::split_script;
use sqlparser::ast::{ColumnOption, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

/// A schema read from DDL, with what could not be read.
#[derive(Debug, Default)]
pub struct DdlSchema {
    pub schema: Schema,
    /// `file:line: what` for CREATE TABLE statements that could not be parsed.
    pub warnings: Vec<String>,
}

/// Reads every `CREATE TABLE` of `script` (`name` is used in warnings).
pub fn schema_from_ddl(script: &str, name: &str) -> DdlSchema {
    let mut tables = Vec::new();
    let mut warnings = Vec::new();
    let mut views = Vec::new();
    for st in split_script(script) {
        if let Some(v) = view_from_statement(&st.text) {
            views.push(v);
            continue;
        }
        if !is_create_table(&st.text) {
            continue;
        }
        match Parser::new(&MySqlDialect {})
            .with_recursion_limit(200)
            .try_with_sql(&st.text)
            .and_then(|mut p| p.parse_statement())
        {
            Ok(Statement::CreateTable(ct)) => {
                if let Some(t) = table_from_create(&ct) {
                    tables.push(t);
                }
            }
            Ok(_) => {}
            Err(e) => {
                // sqlparser cannot read some MySQL DDL (partitions, for one): fall back to the columns
                // we can read token by token, and say so.
                warnings.push(format!("{name}:{}: CREATE TABLE not fully understood ({e}); its columns were read from tokens", st.line));
                if let Some(t) = table_from_tokens(&st.text) {
                    tables.push(t);
                }
            }
        }
    }
    DdlSchema {
        schema: Schema::new(tables, None).with_views(views),
        warnings,
    }
}

/// The name of the view a `CREATE [OR REPLACE] [ALGORITHM=…] [DEFINER=…] [SQL SECURITY …] VIEW`
/// statement declares, read on the MySQL lexer's tokens, version comments included (mysqldump writes
/// `/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=… */ /*!50001 VIEW `v` AS …*/`). `None`
/// for any other statement.
pub fn view_from_statement(sql: &str) -> Option<String> {
    let b = sql.as_bytes();
    let toks: Vec<_> = Lexer::new(b)
        .filter(|t| {
            !matches!(
                t.kind,
                TokenKind::Whitespace
                    | TokenKind::Comment
                    | TokenKind::VersionCommentStart
                    | TokenKind::VersionCommentEnd
            )
        })
        .take(64)
        .collect();
    let word = |i: usize| {
        toks.get(i)
            .filter(|t| t.kind == TokenKind::Word)
            .map(|t| String::from_utf8_lossy(t.text(b)).to_ascii_uppercase())
    };
    if word(0).as_deref() != Some("CREATE") {
        return None;
    }
    // The VIEW key word comes before any `(` or `AS`: the options between hold neither.
    let view = (1..toks.len())
        .take_while(|&i| word(i).as_deref() != Some("AS") && toks[i].text(b) != b"(")
        .find(|&i| word(i).as_deref() == Some("VIEW"))?;
    // The name, possibly qualified: its last part.
    let mut i = view + 1;
    if word(i).as_deref() == Some("IF") {
        i += 3;
    }
    let mut name = None;
    while let Some(t) = toks.get(i) {
        match t.kind {
            TokenKind::Word | TokenKind::QuotedIdent => {
                let raw = String::from_utf8_lossy(t.text(b)).into_owned();
                name = Some(if t.kind == TokenKind::QuotedIdent {
                    raw.trim_matches('`').replace("``", "`")
                } else {
                    raw
                });
            }
            _ => break,
        }
        if toks.get(i + 1).is_some_and(|n| n.text(b) == b".") {
            i += 2;
        } else {
            break;
        }
    }
    name
}

/// The table one `CREATE TABLE` statement declares (tokens when sqlparser cannot read it), with a
/// warning when it was read from tokens. `None` for any other statement.
pub fn table_from_statement(sql: &str) -> Option<(Table, Option<String>)> {
    if !is_create_table(sql) {
        return None;
    }
    match Parser::new(&MySqlDialect {})
        .with_recursion_limit(200)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statement())
    {
        Ok(Statement::CreateTable(ct)) => table_from_create(&ct).map(|t| (t, None)),
        Ok(_) => None,
        Err(e) => table_from_tokens(sql).map(|t| {
            let w = format!(
                "CREATE TABLE not fully understood ({e}); its columns were read from tokens"
            );
            (t, Some(w))
        }),
    }
}

fn is_create_table(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(3)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    words.first().is_some_and(|w| w == "CREATE")
        && (words.get(1).is_some_and(|w| w == "TABLE")
            || (words.get(1).is_some_and(|w| w == "TEMPORARY")
                && words.get(2).is_some_and(|w| w == "TABLE")))
}

/// The last part of a possibly qualified, possibly quoted name.
pub fn object_name_last(name: &sqlparser::ast::ObjectName) -> String {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.clone())
        .unwrap_or_else(|| name.to_string())
}

/// The names inside the last parenthesised list of `text` (`UNIQUE KEY uk (a, `b`(10))` → a, b).
fn paren_names(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let toks: Vec<_> = Lexer::new(b)
        .filter(|t| t.kind != TokenKind::Whitespace)
        .collect();
    let Some(open) = toks.iter().position(|t| t.text(b) == b"(") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0;
    let mut expect_name = true;
    for t in &toks[open..] {
        match t.text(b) {
            b"(" => depth += 1,
            b")" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b"," if depth == 1 => expect_name = true,
            _ if depth == 1
                && expect_name
                && matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent) =>
            {
                let raw = String::from_utf8_lossy(t.text(b)).into_owned();
                out.push(raw.trim_matches('`').to_string());
                expect_name = false;
            }
            _ => {}
        }
    }
    out
}

fn option_value(opt: &str, keys: &[&str]) -> Option<String> {
    let (k, v) = opt.split_once('=').or_else(|| opt.split_once(' '))?;
    let k = k.trim().to_ascii_uppercase();
    keys.iter()
        .any(|want| k == *want)
        .then(|| v.trim().trim_matches(['\'', '"', '`']).to_lowercase())
}

/// The default collation of a character set (MariaDB's defaults; MySQL 8 defaults utf8mb4 to
/// utf8mb4_0900_ai_ci, which is also case-insensitive).
fn default_collation(charset: &str) -> String {
    match charset {
        "binary" => "binary".into(),
        cs => format!("{cs}_general_ci"),
    }
}

fn table_from_create(ct: &sqlparser::ast::CreateTable) -> Option<Table> {
    let mut table = Table::named(object_name_last(&ct.name));
    let opts: Vec<String> = match &ct.table_options {
        sqlparser::ast::CreateTableOptions::Plain(o)
        | sqlparser::ast::CreateTableOptions::With(o)
        | sqlparser::ast::CreateTableOptions::Options(o) => {
            o.iter().map(|x| x.to_string()).collect()
        }
        _ => Vec::new(),
    };
    for o in &opts {
        if let Some(v) = option_value(o, &["COLLATE", "DEFAULT COLLATE"]) {
            table.collation = Some(v);
        } else if let Some(v) = option_value(
            o,
            &[
                "CHARSET",
                "DEFAULT CHARSET",
                "CHARACTER SET",
                "DEFAULT CHARACTER SET",
            ],
        ) {
            table.charset = Some(v);
        } else if let Some(v) = option_value(o, &["ENGINE"]) {
            table.engine = Some(v);
        }
    }
    let table_collation = table
        .collation
        .clone()
        .or_else(|| table.charset.as_deref().map(default_collation));
    for c in &ct.columns {
        let type_text = c.data_type.to_string();
        let mut col = Column {
            name: c.name.value.clone(),
            mysql_type: MySqlType::parse(&type_text),
            nullable: true,
            collation: None,
            auto_increment: false,
            on_update_current_timestamp: false,
            generated: false,
            default: None,
        };
        let mut charset = None;
        for o in &c.options {
            match &o.option {
                ColumnOption::NotNull => col.nullable = false,
                ColumnOption::Null => col.nullable = true,
                ColumnOption::Default(e) => col.default = Some(e.to_string()),
                ColumnOption::Collation(n) => col.collation = Some(n.to_string().to_lowercase()),
                ColumnOption::CharacterSet(n) => charset = Some(n.to_string().to_lowercase()),
                ColumnOption::OnUpdate(_) => col.on_update_current_timestamp = true,
                ColumnOption::Generated { .. } => col.generated = true,
                ColumnOption::PrimaryKey(_) => {
                    col.nullable = false;
                    table.primary_key = vec![col.name.clone()];
                }
                ColumnOption::Unique(_) => table.unique_keys.push(vec![col.name.clone()]),
                other => {
                    let s = other.to_string().to_ascii_uppercase();
                    if s.contains("AUTO_INCREMENT") {
                        col.auto_increment = true;
                    }
                }
            }
        }
        // `VARCHAR(20) CHARACTER SET x COLLATE y` may also sit in the type text.
        let upper = type_text.to_ascii_uppercase();
        if let Some(p) = upper.find("COLLATE ") {
            col.collation = Some(
                type_text[p + 8..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_lowercase(),
            );
        }
        if col.collation.is_none() {
            col.collation = charset
                .as_deref()
                .map(default_collation)
                .or_else(|| table_collation.clone());
        }
        if col.mysql_type.base == "SERIAL" {
            col.auto_increment = true;
            col.nullable = false;
        }
        table.columns.push(col);
    }
    for k in &ct.constraints {
        let text = k.to_string();
        let upper = text.to_ascii_uppercase();
        if upper.contains("PRIMARY KEY") {
            table.primary_key = paren_names(&text);
        } else if upper.starts_with("UNIQUE")
            || upper.contains(" UNIQUE ")
            || upper.starts_with("CONSTRAINT") && upper.contains("UNIQUE")
        {
            table.unique_keys.push(paren_names(&text));
        }
    }
    for pk in &table.primary_key.clone() {
        if let Some(c) = table
            .columns
            .iter_mut()
            .find(|c| c.name.eq_ignore_ascii_case(pk))
        {
            c.nullable = false;
        }
    }
    Some(table)
}

/// A best-effort table from tokens, for DDL sqlparser rejects: column names and types only.
fn table_from_tokens(sql: &str) -> Option<Table> {
    let b = sql.as_bytes();
    let toks: Vec<_> = Lexer::new(b)
        .filter(|t| !matches!(t.kind, TokenKind::Whitespace | TokenKind::Comment))
        .collect();
    let open = toks.iter().position(|t| t.text(b) == b"(")?;
    let name_tok = toks[..open]
        .iter()
        .rev()
        .find(|t| matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent))?;
    let name = String::from_utf8_lossy(name_tok.text(b))
        .trim_matches('`')
        .to_string();
    let mut table = Table::named(name);
    // Split the column list at depth-1 commas.
    let mut depth = 0;
    let mut item_start = open + 1;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.text(b) {
            b"(" => depth += 1,
            b")" | b"," if depth == 1 => {
                if item_start < i {
                    let text = &sql[toks[item_start].start..toks[i - 1].end];
                    let first = &toks[item_start];
                    let word = String::from_utf8_lossy(first.text(b)).to_ascii_uppercase();
                    let is_key = matches!(
                        word.as_str(),
                        "PRIMARY"
                            | "KEY"
                            | "INDEX"
                            | "UNIQUE"
                            | "CONSTRAINT"
                            | "FULLTEXT"
                            | "SPATIAL"
                            | "FOREIGN"
                            | "CHECK"
                    );
                    if is_key {
                        if word == "PRIMARY" {
                            table.primary_key = paren_names(text);
                        } else if word == "UNIQUE" {
                            table.unique_keys.push(paren_names(text));
                        }
                    } else if let Some(second) = toks.get(item_start + 1) {
                        let full_text = &sql[second.start..toks[i - 1].end];
                        // The type ends where the column's attributes begin (NOT NULL, DEFAULT, …).
                        let mut type_end = toks[i - 1].end;
                        let mut d = 0;
                        for t in &toks[item_start + 2..i] {
                            match t.text(b) {
                                b"(" => d += 1,
                                b")" => d -= 1,
                                w if d == 0
                                    && t.kind == TokenKind::Word
                                    && matches!(
                                        w.to_ascii_uppercase().as_slice(),
                                        b"NOT"
                                            | b"NULL"
                                            | b"DEFAULT"
                                            | b"AUTO_INCREMENT"
                                            | b"COMMENT"
                                            | b"ON"
                                            | b"PRIMARY"
                                            | b"UNIQUE"
                                            | b"KEY"
                                            | b"GENERATED"
                                            | b"AS"
                                            | b"REFERENCES"
                                            | b"CHECK"
                                            | b"INVISIBLE"
                                            | b"VISIBLE"
                                    ) =>
                                {
                                    type_end = t.start;
                                    break;
                                }
                                _ => {}
                            }
                        }
                        let type_text = sql[second.start..type_end].trim();
                        let upper = full_text.to_ascii_uppercase();
                        table.columns.push(Column {
                            name: String::from_utf8_lossy(first.text(b))
                                .trim_matches('`')
                                .to_string(),
                            mysql_type: MySqlType::parse(type_text),
                            nullable: !upper.contains("NOT NULL"),
                            collation: None,
                            auto_increment: upper.contains("AUTO_INCREMENT"),
                            on_update_current_timestamp: upper.contains("ON UPDATE"),
                            generated: false,
                            default: None,
                        });
                    }
                }
                if t.text(b) == b")" {
                    break;
                }
                item_start = i + 1;
            }
            b")" => depth -= 1,
            _ => {}
        }
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_are_named_as_mysqldump_writes_them() {
        assert_eq!(
            view_from_statement("CREATE VIEW v AS SELECT 1").as_deref(),
            Some("v")
        );
        assert_eq!(
            view_from_statement(
                "CREATE OR REPLACE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `shop`.`v2` AS select 1"
            )
            .as_deref(),
            Some("v2")
        );
        assert_eq!(
            view_from_statement(
                "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */\n/*!50001 VIEW `customer_list` AS select 1 AS `id` */"
            )
            .as_deref(),
            Some("customer_list")
        );
        assert_eq!(
            view_from_statement("/*!50001 CREATE VIEW `v3` AS SELECT\n 1 AS `id`*/").as_deref(),
            Some("v3")
        );
        for not_a_view in [
            "CREATE TABLE t (view int)",
            "CREATE TABLE t AS SELECT 1 AS view",
            "SELECT 1",
            "DROP VIEW IF EXISTS v",
        ] {
            assert_eq!(view_from_statement(not_a_view), None, "{not_a_view}");
        }
        let d = schema_from_ddl(
            "CREATE TABLE t (id int);\n/*!50001 CREATE VIEW `v` AS SELECT 1 AS `id`*/;\n",
            "dump.sql",
        );
        assert!(d.schema.has_view("V") && d.schema.table("v").is_none());
    }

    #[test]
    fn reads_the_compat_schema() {
        let ddl = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpora/compat/schema.mysql.sql"
        ))
        .expect("schema");
        let s = schema_from_ddl(&ddl, "schema.mysql.sql");
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        let c = s.schema.table("customers").expect("customers");
        assert_eq!(c.primary_key, vec!["id"]);
        assert_eq!(c.unique_keys, vec![vec!["email".to_string()]]);
        let id = c.column("ID").expect("id");
        assert!(id.auto_increment && id.mysql_type.unsigned && !id.nullable);
        assert!(c.column("is_active").unwrap().mysql_type.is_tinyint1());
        assert!(c.column("email").unwrap().case_insensitive());
        assert!(c.column("updated_at").unwrap().on_update_current_timestamp);
        let p = s.schema.table("products").unwrap();
        assert_eq!(
            p.column("sku").unwrap().collation.as_deref(),
            Some("utf8mb4_bin")
        );
        assert!(!p.column("sku").unwrap().case_insensitive());
        assert_eq!(
            s.schema
                .table("AuditTrail")
                .unwrap()
                .column("eventname")
                .unwrap()
                .name,
            "EventName"
        );
        assert_eq!(
            s.schema.table("order_items").unwrap().primary_key,
            vec!["order_id", "product_id"]
        );
    }

    #[test]
    fn partitioned_tables_still_give_columns() {
        let s = schema_from_ddl(
            "CREATE TABLE m (id INT NOT NULL, d DATE, PRIMARY KEY (id, d)) PARTITION BY RANGE (YEAR(d)) (PARTITION p0 VALUES LESS THAN (2020));",
            "x.sql",
        );
        let t = s.schema.table("m").expect("m");
        assert_eq!(t.columns.len(), 2);
        assert_eq!(t.primary_key, vec!["id", "d"]);
        // The type ends where the column's attributes begin (sakila's `VARCHAR(40) BINARY`).
        let s = schema_from_ddl(
            "CREATE TABLE staff (id INT NOT NULL, password VARCHAR(40) BINARY DEFAULT NULL, pic MEDIUMBLOB DEFAULT NULL) PARTITION BY HASH (id) PARTITIONS 2;",
            "x.sql",
        );
        let t = s.schema.table("staff").expect("staff");
        assert_eq!(t.column("pic").unwrap().mysql_type.base, "MEDIUMBLOB");
        assert_eq!(t.column("password").unwrap().mysql_type.base, "VARCHAR");
        assert!(!t.column("id").unwrap().nullable);
    }
}
