//! The source schema as the audit and verify stages need it: tables, columns with their MySQL types,
//! collations and keys. Built from a DDL script (`mysqldump --no-data`, or a full dump whose other
//! statements are skipped) or read from a live server's information_schema.

pub mod ddl;
pub mod source;
pub mod target;

use serde::Serialize;
use std::collections::HashMap;

/// A MySQL column type, as written (`int(10) unsigned`, `enum('a','b')`, `decimal(10,2)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MySqlType {
    /// Upper-case base name: `INT`, `VARCHAR`, `DOUBLE`, `ENUM`, `DATETIME`, …
    pub base: String,
    /// Length, precision or fractional-seconds precision: the first number in parentheses.
    pub length: Option<u64>,
    /// Scale: the second number in parentheses.
    pub scale: Option<u64>,
    pub unsigned: bool,
    pub zerofill: bool,
    /// ENUM/SET members.
    pub members: Vec<String>,
    /// The type as written, normalised to upper case keywords.
    pub text: String,
}

impl MySqlType {
    /// Parses a type as MySQL prints it (`SHOW CREATE TABLE`, information_schema.COLUMN_TYPE).
    pub fn parse(text: &str) -> MySqlType {
        use crate::sql::lexer::{Lexer, TokenKind};
        let b = text.as_bytes();
        let toks: Vec<_> = Lexer::new(b)
            .filter(|t| t.kind != TokenKind::Whitespace)
            .collect();
        let mut base_words: Vec<String> = Vec::new();
        let mut i = 0;
        while i < toks.len() && toks[i].kind == TokenKind::Word {
            let w = String::from_utf8_lossy(toks[i].text(b)).to_ascii_uppercase();
            if matches!(
                w.as_str(),
                "UNSIGNED"
                    | "SIGNED"
                    | "ZEROFILL"
                    | "CHARACTER"
                    | "CHARSET"
                    | "COLLATE"
                    | "BINARY"
                    | "ASCII"
                    | "UNICODE"
            ) && !base_words.is_empty()
            {
                break;
            }
            base_words.push(w);
            i += 1;
        }
        let mut base = base_words.join(" ");
        // Synonyms to one name.
        base = match base.as_str() {
            "INTEGER" => "INT".into(),
            "DOUBLE PRECISION" => "DOUBLE".into(),
            "CHARACTER" => "CHAR".into(),
            "CHARACTER VARYING" => "VARCHAR".into(),
            "NATIONAL CHAR" | "NATIONAL CHARACTER" | "NCHAR" => "NCHAR".into(),
            "NATIONAL VARCHAR" | "NATIONAL CHARACTER VARYING" | "NVARCHAR" | "NCHAR VARCHAR" => {
                "NVARCHAR".into()
            }
            "BOOL" => "BOOLEAN".into(),
            "DEC" | "FIXED" => "DECIMAL".into(),
            "INT1" => "TINYINT".into(),
            "INT2" => "SMALLINT".into(),
            "INT3" | "MIDDLEINT" => "MEDIUMINT".into(),
            "INT4" => "INT".into(),
            "INT8" => "BIGINT".into(),
            "LONG VARCHAR" | "LONG" => "MEDIUMTEXT".into(),
            other => other.to_string(),
        };
        let mut length = None;
        let mut scale = None;
        let mut members = Vec::new();
        if toks.get(i).is_some_and(|t| t.text(b) == b"(") {
            i += 1;
            let mut nums = Vec::new();
            while i < toks.len() && toks[i].text(b) != b")" {
                let t = &toks[i];
                match t.kind {
                    TokenKind::Number => {
                        nums.push(String::from_utf8_lossy(t.text(b)).parse::<u64>().ok())
                    }
                    TokenKind::String => members.push(
                        String::from_utf8_lossy(&crate::sql::lexer::unquote(t.text(b)))
                            .into_owned(),
                    ),
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            length = nums.first().copied().flatten();
            scale = nums.get(1).copied().flatten();
        }
        let rest: Vec<String> = toks[i.min(toks.len())..]
            .iter()
            .map(|t| String::from_utf8_lossy(t.text(b)).to_ascii_uppercase())
            .collect();
        let unsigned = rest.iter().any(|w| w == "UNSIGNED");
        let zerofill = rest.iter().any(|w| w == "ZEROFILL");
        MySqlType {
            base,
            length,
            scale,
            unsigned: unsigned || zerofill,
            zerofill,
            members,
            text: text.trim().to_string(),
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(
            self.base.as_str(),
            "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" | "YEAR" | "SERIAL"
        )
    }

    /// `TINYINT(1)`: what MySQL uses for booleans.
    pub fn is_tinyint1(&self) -> bool {
        (self.base == "TINYINT" && self.length == Some(1)) || self.base == "BOOLEAN"
    }

    pub fn is_text(&self) -> bool {
        matches!(
            self.base.as_str(),
            "CHAR"
                | "VARCHAR"
                | "NCHAR"
                | "NVARCHAR"
                | "TINYTEXT"
                | "TEXT"
                | "MEDIUMTEXT"
                | "LONGTEXT"
                | "ENUM"
                | "SET"
        )
    }

    pub fn is_binary(&self) -> bool {
        matches!(
            self.base.as_str(),
            "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB"
        )
    }

    pub fn is_temporal(&self) -> bool {
        matches!(
            self.base.as_str(),
            "DATE" | "DATETIME" | "TIMESTAMP" | "TIME" | "YEAR"
        )
    }
}

/// A column.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    pub name: String,
    pub mysql_type: MySqlType,
    pub nullable: bool,
    /// The collation in effect (the column's own, else the table's default), lower case.
    pub collation: Option<String>,
    pub auto_increment: bool,
    pub on_update_current_timestamp: bool,
    pub generated: bool,
    pub default: Option<String>,
}

impl Column {
    /// True for string columns whose collation ignores case (`*_ci`): equality, GROUP BY, DISTINCT
    /// and ORDER BY on them behave differently on a case-sensitive target.
    pub fn case_insensitive(&self) -> bool {
        self.mysql_type.is_text() && self.collation.as_deref().is_none_or(|c| c.ends_with("_ci"))
    }

    /// True for string columns that compare with PAD SPACE (all MariaDB and MySQL 5.7 collations except
    /// `*_nopad_*`; MySQL 8's `*_0900_*` collations are NO PAD): `'a' = 'a  '`.
    pub fn pad_space(&self) -> bool {
        self.mysql_type.is_text()
            && self
                .collation
                .as_deref()
                .is_none_or(|c| !c.contains("nopad") && !c.contains("0900"))
    }
}

/// A table.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// The name as declared (case kept).
    pub name: String,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    pub unique_keys: Vec<Vec<String>>,
    /// Default collation, lower case.
    pub collation: Option<String>,
    pub charset: Option<String>,
    pub engine: Option<String>,
}

impl Table {
    /// A table with a name and nothing else yet.
    pub fn named(name: String) -> Table {
        Table {
            name,
            columns: Vec::new(),
            primary_key: Vec::new(),
            unique_keys: Vec::new(),
            collation: None,
            charset: None,
            engine: None,
        }
    }

    /// A column by name (MySQL column names are case-insensitive).
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// True when `cols` (any case) cover the primary key or a unique key of the table.
    pub fn is_unique_on(&self, cols: &[String]) -> bool {
        let covers = |key: &Vec<String>| {
            !key.is_empty()
                && key
                    .iter()
                    .all(|k| cols.iter().any(|c| c.eq_ignore_ascii_case(k)))
        };
        covers(&self.primary_key) || self.unique_keys.iter().any(covers)
    }
}

/// The schema.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Schema {
    pub tables: Vec<Table>,
    /// The source server's lower_case_table_names (0: table names are case-sensitive), when known.
    pub lower_case_table_names: Option<u8>,
    /// The names of the views (their columns are not read): a statement may name them as tables.
    #[serde(skip)]
    pub views: Vec<String>,
    #[serde(skip)]
    by_lower: HashMap<String, Vec<usize>>,
}

impl Schema {
    pub fn new(tables: Vec<Table>, lower_case_table_names: Option<u8>) -> Schema {
        let mut s = Schema {
            tables,
            lower_case_table_names,
            views: Vec::new(),
            by_lower: HashMap::new(),
        };
        s.reindex();
        s
    }

    fn reindex(&mut self) {
        self.by_lower.clear();
        for (i, t) in self.tables.iter().enumerate() {
            self.by_lower
                .entry(t.name.to_lowercase())
                .or_default()
                .push(i);
        }
    }

    /// A table by name: the exact name first, else a case-insensitive match.
    pub fn table(&self, name: &str) -> Option<&Table> {
        let idx = self.by_lower.get(&name.to_lowercase())?;
        idx.iter()
            .map(|&i| &self.tables[i])
            .find(|t| t.name == name)
            .or_else(|| idx.first().map(|&i| &self.tables[i]))
    }

    /// True when `name` (any case) is a view of the schema.
    pub fn has_view(&self, name: &str) -> bool {
        self.views.iter().any(|v| v.eq_ignore_ascii_case(name))
    }

    /// Tables whose names differ only in case (they collide on a target that folds names).
    pub fn case_collisions(&self) -> Vec<Vec<String>> {
        self.by_lower
            .values()
            .filter(|v| v.len() > 1)
            .map(|v| v.iter().map(|&i| self.tables[i].name.clone()).collect())
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The schema with these views too.
    pub fn with_views(mut self, views: Vec<String>) -> Schema {
        for v in views {
            if !self.has_view(&v) {
                self.views.push(v);
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mysql_types() {
        let t = MySqlType::parse("int(10) unsigned");
        assert_eq!(
            (t.base.as_str(), t.length, t.unsigned),
            ("INT", Some(10), true)
        );
        let t = MySqlType::parse("decimal(10,2)");
        assert_eq!((t.length, t.scale), (Some(10), Some(2)));
        let t = MySqlType::parse("enum('free','pro','it''s')");
        assert_eq!(t.members, vec!["free", "pro", "it's"]);
        assert!(MySqlType::parse("TINYINT(1)").is_tinyint1());
        assert_eq!(MySqlType::parse("double precision").base, "DOUBLE");
        assert_eq!(MySqlType::parse("NATIONAL VARCHAR(10)").base, "NVARCHAR");
        let t = MySqlType::parse("varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        assert_eq!((t.base.as_str(), t.length), ("VARCHAR", Some(20)));
        assert!(MySqlType::parse("int(5) zerofill").unsigned);
    }
}
