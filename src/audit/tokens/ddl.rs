//! CREATE and ALTER statements on tokens: object kinds the target lacks, MySQL table and index
//! options, ALTER TABLE clauses.

use super::stream::Stream;
use crate::audit::Hit;
use crate::sql::lexer::TokenKind;

pub(super) fn create_statement(s: &Stream, f: usize, h: &mut Vec<Hit>) {
    // Skip OR REPLACE, ALGORITHM=…, DEFINER=…, SQL SECURITY …, TEMPORARY, UNIQUE/FULLTEXT/SPATIAL.
    let mut i = f + 1;
    let mut view_options = false;
    loop {
        match s.w(i) {
            "OR" if s.is_word(i + 1, "REPLACE") => i += 2,
            "ALGORITHM" | "DEFINER" => {
                view_options = true;
                // DEFINER = user@host / ALGORITHM = MERGE
                i += 1;
                while i < s.len()
                    && !matches!(
                        s.w(i),
                        "VIEW"
                            | "PROCEDURE"
                            | "FUNCTION"
                            | "TRIGGER"
                            | "EVENT"
                            | "SQL"
                            | "AGGREGATE"
                            | "ALGORITHM"
                            | "DEFINER"
                    )
                {
                    i += 1;
                }
            }
            "SQL" if s.is_word(i + 1, "SECURITY") => {
                view_options = true;
                i += 3;
            }
            "TEMPORARY" | "AGGREGATE" => i += 1,
            _ => break,
        }
    }
    let kind = s.w(i).to_string();
    match kind.as_str() {
        "PROCEDURE" | "FUNCTION" => h.push(Hit::new("DDL-017").at(s.at(f)).detail(kind)),
        "TRIGGER" => h.push(Hit::new("DDL-019").at(s.at(f))),
        "EVENT" => h.push(Hit::new("DDL-022").at(s.at(f))),
        "VIEW" if view_options => h.push(Hit::new("DDL-021").at(s.at(f))),
        "DATABASE" | "SCHEMA" => {
            let has_ine = s.is_word(i + 1, "IF");
            let opts = (i..s.len()).any(|j| {
                matches!(
                    s.w(j),
                    "CHARACTER" | "CHARSET" | "COLLATE" | "DEFAULT" | "ENCRYPTION"
                )
            });
            if opts {
                h.push(Hit::new("DDL-016").at(s.at(f)));
            } else if has_ine && kind == "DATABASE" {
                // IF NOT EXISTS alone: some targets take it.
                h.push(Hit::new("DDL-016N").at(s.at(f)));
            }
        }
        "FULLTEXT" | "SPATIAL" => h.push(Hit::new("DDL-020").at(s.at(i)).detail(kind)),
        "UNIQUE" | "INDEX" => {
            let idx = if kind == "UNIQUE" { i + 1 } else { i };
            if s.is_word(idx, "INDEX") {
                index_columns(s, idx, h);
            }
        }
        "TABLE" => {
            let mut j = i + 1;
            if s.is_word(j, "IF") {
                j += 3;
            }
            j += 1;
            while s
                .toks
                .get(j)
                .is_some_and(|t| &s.sql[t.t.start..t.t.end] == ".")
            {
                j += 2;
            }
            if s.is_word(j, "LIKE") || (s.w(j) == "(" && s.is_word(j + 1, "LIKE")) {
                if s.is_word(j, "LIKE") {
                    h.push(Hit::new("DDL-024").at(s.at(j)));
                }
                return;
            }
            // Table options after the column list: ENGINE=, CHARSET=, … (depth 0, after the list closes).
            if let Some(close) = (j..s.len()).find(|&k| s.depth[k] == 0 && s.w(k) == ")") {
                let opts = close + 1;
                for k in opts..s.len() {
                    if s.depth[k] != 0 {
                        continue;
                    }
                    match s.w(k) {
                        // A table comment: some targets take it; the other options may follow.
                        "COMMENT" => h.push(Hit::new("DDL-002C").at(s.at(k)).detail("COMMENT=")),
                        "ENGINE" | "TYPE" | "CHARSET" | "COLLATE" | "ROW_FORMAT"
                        | "AUTO_INCREMENT" | "KEY_BLOCK_SIZE" | "STATS_PERSISTENT"
                        | "STATS_AUTO_RECALC" | "PACK_KEYS" | "CHECKSUM" | "DELAY_KEY_WRITE"
                        | "MAX_ROWS" | "MIN_ROWS" | "AVG_ROW_LENGTH" | "INSERT_METHOD" | "DATA"
                        | "INDEX" | "TABLESPACE" | "COMPRESSION" | "ENCRYPTION" | "UNION" => {
                            h.push(Hit::new("DDL-002").at(s.at(k)));
                            break;
                        }
                        "DEFAULT" if matches!(s.w(k + 1), "CHARSET" | "CHARACTER" | "COLLATE") => {
                            h.push(Hit::new("DDL-002").at(s.at(k)));
                            break;
                        }
                        "CHARACTER" if s.is_word(k + 1, "SET") => {
                            h.push(Hit::new("DDL-002").at(s.at(k)));
                            break;
                        }
                        "AS" | "SELECT" | "PARTITION" => break,
                        _ => {}
                    }
                }
            }
        }
        _ => {}
    }
}

/// CREATE INDEX i ON t (c(10)) USING BTREE …: prefixes and USING after the list.
fn index_columns(s: &Stream, idx: usize, h: &mut Vec<Hit>) {
    let Some(on) = s.find("ON", idx, 0) else {
        return;
    };
    let Some(open) = (on..s.len()).find(|&k| s.w(k) == "(" && s.depth[k] == 0) else {
        return;
    };
    let close = (open + 1..s.len())
        .find(|&k| s.depth[k] == 0 && s.w(k) == ")")
        .unwrap_or(s.len());
    for k in open + 1..close {
        if s.depth[k] == 1
            && matches!(s.toks[k].t.kind, TokenKind::Word | TokenKind::QuotedIdent)
            && s.w(k + 1) == "("
            && s.toks
                .get(k + 2)
                .is_some_and(|t| t.t.kind == TokenKind::Number)
        {
            h.push(Hit::new("DDL-005").at(s.at(k)));
        }
    }
    for k in close + 1..s.len() {
        match s.w(k) {
            "USING" => h.push(Hit::new("DDL-005B").at(s.at(k))),
            "ALGORITHM" | "LOCK" | "COMMENT" | "KEY_BLOCK_SIZE" => {
                h.push(Hit::new("DDL-012").at(s.at(k)).detail(s.w(k).to_string()))
            }
            _ => {}
        }
    }
}

pub(super) fn alter_table(s: &Stream, f: usize, h: &mut Vec<Hit>) {
    let start = (f..s.len())
        .find(|&i| s.is_word(i, "TABLE"))
        .map_or(f + 2, |i| i + 2);
    let mut item = vec![start];
    for i in start..s.len() {
        if s.depth[i] == 0 && s.w(i) == "," {
            item.push(i + 1);
        }
    }
    for &i in &item {
        let (a, b, c) = (s.w(i), s.w(i + 1), s.w(i + 2));
        let bad = match a {
            "MODIFY" | "CHANGE" | "ENGINE" | "AUTO_INCREMENT" | "ALGORITHM" | "LOCK" | "FORCE"
            | "ORDER" | "DISABLE" | "ENABLE" | "DISCARD" | "IMPORT" | "CONVERT" | "CHARSET" => true,
            "DEFAULT" => matches!(b, "CHARSET" | "CHARACTER" | "COLLATE"),
            "CHARACTER" | "COLLATE" => true,
            "COMMENT" => true,
            "ADD" => {
                matches!(b, "INDEX" | "KEY" | "FULLTEXT" | "SPATIAL")
                    || (b == "UNIQUE" && matches!(c, "KEY" | "INDEX"))
                    || (b == "CONSTRAINT"
                        && s.find("KEY", i, 0)
                            .is_some_and(|k| s.is_word(k - 1, "UNIQUE")))
            }
            "DROP" => {
                matches!(b, "INDEX" | "KEY") || (b == "PRIMARY" && c == "KEY") || b == "FOREIGN"
            }
            "RENAME" => matches!(b, "INDEX" | "KEY"),
            _ => false,
        };
        if bad {
            h.push(
                Hit::new("DDL-012")
                    .at(s.at(i))
                    .detail(format!("{a} {b}").trim().to_string()),
            );
        }
        // ADD/CHANGE/MODIFY … AFTER x / FIRST
        let end = item.iter().find(|&&n| n > i).copied().unwrap_or(s.len());
        if (i..end)
            .any(|k| s.depth[k] == 0 && (s.is_word(k, "AFTER") || (s.is_word(k, "FIRST") && k > i)))
        {
            h.push(Hit::new("DDL-012").at(s.at(i)).detail("AFTER / FIRST"));
        }
    }
}
