//! Keyword-level detectors on tokens: statement forms the target does not have (INSERT IGNORE,
//! ON DUPLICATE KEY UPDATE, LIMIT a, b, SHOW, MySQL DDL clauses, session statements). They do not need
//! a parse, so they also cover what sqlparser rejects; [`fallback_hits`] adds the function and type
//! checks that the AST stage does when a parse succeeds.

use super::lexical::{Tok, toks};
use super::{Context, Hit};
use crate::profile::Profile;
use crate::sql::lexer::TokenKind;

/// The tokens of one statement outside version comments, with words upper-cased and paren depth.
struct Stream<'a> {
    sql: &'a str,
    toks: Vec<Tok>,
    upper: Vec<String>,
    depth: Vec<i32>,
}

impl<'a> Stream<'a> {
    fn new(sql: &'a str) -> Stream<'a> {
        let toks: Vec<Tok> = toks(sql)
            .into_iter()
            .filter(|t| !t.in_version_comment)
            .collect();
        let upper = toks
            .iter()
            .map(|t| {
                if t.t.kind == TokenKind::Word {
                    sql[t.t.start..t.t.end].to_ascii_uppercase()
                } else {
                    sql[t.t.start..t.t.end].to_string()
                }
            })
            .collect();
        let mut depth = Vec::with_capacity(toks.len());
        let mut d = 0;
        for t in &toks {
            let s = &sql[t.t.start..t.t.end];
            if s == ")" {
                d -= 1;
            }
            depth.push(d);
            if s == "(" {
                d += 1;
            }
        }
        Stream {
            sql,
            toks,
            upper,
            depth,
        }
    }

    fn w(&self, i: usize) -> &str {
        self.upper.get(i).map_or("", |s| s.as_str())
    }

    fn is_word(&self, i: usize, kw: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| t.t.kind == TokenKind::Word)
            && self.w(i) == kw
    }

    fn at(&self, i: usize) -> usize {
        self.toks.get(i).map_or(0, |t| t.t.start)
    }

    fn len(&self) -> usize {
        self.toks.len()
    }

    /// Index of the first word `kw` at depth `d` from `from`.
    fn find(&self, kw: &str, from: usize, d: i32) -> Option<usize> {
        (from..self.len()).find(|&i| self.depth[i] == d && self.is_word(i, kw))
    }

    /// Index of the sequence of words `seq` (any depth) from `from`.
    fn find_seq(&self, seq: &[&str], from: usize) -> Option<usize> {
        (from..self.len()).find(|&i| {
            seq.iter()
                .enumerate()
                .all(|(k, kw)| self.is_word(i + k, kw))
        })
    }
}

pub fn hits(sql: &str, _ctx: &Context) -> Vec<Hit> {
    let s = Stream::new(sql);
    let mut h = Vec::new();
    if s.len() == 0 {
        return h;
    }
    // Skip leading parentheses ((SELECT …) UNION …).
    let f = (0..s.len()).find(|&i| s.w(i) != "(").unwrap_or(0);
    let first = s.w(f).to_string();

    // Anywhere in the statement.
    for i in 0..s.len() {
        let w = s.w(i);
        match w {
            "USE" | "FORCE" | "IGNORE" if (s.is_word(i + 1, "INDEX") || s.is_word(i + 1, "KEY")) && i > f => {
                h.push(Hit::new("DML-009").at(s.at(i)).detail(format!("{w} {}", s.w(i + 1))));
            }
            "STRAIGHT_JOIN" | "SQL_CALC_FOUND_ROWS" | "SQL_NO_CACHE" | "SQL_CACHE" | "HIGH_PRIORITY" | "SQL_SMALL_RESULT" | "SQL_BIG_RESULT" | "SQL_BUFFER_RESULT" => {
                h.push(Hit::new("DML-010").at(s.at(i)).detail(w.to_string()));
            }
            "WITH" if s.is_word(i + 1, "ROLLUP") => h.push(Hit::new("DML-011").at(s.at(i))),
            "INTO" if s.is_word(i + 1, "OUTFILE") || s.is_word(i + 1, "DUMPFILE") => h.push(Hit::new("DML-013").at(s.at(i))),
            "LOCK" if s.is_word(i + 1, "IN") && s.is_word(i + 2, "SHARE") => h.push(Hit::new("DML-019").at(s.at(i))),
            "WAIT" if i >= 2 && s.is_word(i - 1, "UPDATE") && s.is_word(i - 2, "FOR") => h.push(Hit::new("DML-025").at(s.at(i))),
            "LIMIT"
                // LIMIT a, b
                if s.toks.get(i + 2).is_some_and(|t| &sql[t.t.start..t.t.end] == ",") && s.depth.get(i + 2) == s.depth.get(i) => {
                    let (a, b) = (s.toks.get(i + 1).map(|t| &sql[t.t.start..t.t.end]), s.toks.get(i + 3).map(|t| &sql[t.t.start..t.t.end]));
                    let rw = match (a, b) {
                        (Some(a), Some(b)) => format!("LIMIT {b} OFFSET {a}"),
                        _ => "LIMIT count OFFSET offset".to_string(),
                    };
                    h.push(Hit::new("DML-001").at(s.at(i)).rewrite(rw));
                }
            "INTERVAL" => {
                // INTERVAL 3 DAY (unquoted amount), not INTERVAL '3' DAY.
                if let Some(n) = s.toks.get(i + 1) {
                    let unit = s.w(i + 2);
                    if n.t.kind != TokenKind::String && is_interval_unit(unit) {
                        h.push(Hit::new("FN-INTERVAL").at(s.at(i)).detail(format!("INTERVAL {} {unit}", &sql[n.t.start..n.t.end])).rewrite(format!("INTERVAL '{} {}'", sql[n.t.start..n.t.end].trim_matches('\''), unit.to_lowercase())));
                    }
                }
            }
            "MATCH" if s.toks.get(i + 1).is_some_and(|t| &sql[t.t.start..t.t.end] == "(") && s.find("AGAINST", i, s.depth[i]).is_some() => {
                h.push(Hit::new("FN-MISSING").at(s.at(i)).detail("MATCH … AGAINST").rewrite("to_tsvector(col) @@ plainto_tsquery('…') with a GIN index"));
            }
            "DUPLICATE" if i >= 1 && s.is_word(i - 1, "ON") && s.is_word(i + 1, "KEY") => {
                h.push(Hit::new("DML-002").at(s.at(i - 1)));
            }
            "PARTITION" if s.is_word(i + 1, "BY") && s.depth[i] == 0 => h.push(Hit::new("DDL-015").at(s.at(i))),
            _ => {}
        }
        // GROUP BY … ASC|DESC
        if w == "GROUP" && s.is_word(i + 1, "BY") {
            let d = s.depth[i];
            let mut j = i + 2;
            while j < s.len()
                && !(s.depth[j] == d
                    && matches!(
                        s.w(j),
                        "HAVING"
                            | "ORDER"
                            | "LIMIT"
                            | "WITH"
                            | "UNION"
                            | "WINDOW"
                            | "FOR"
                            | "LOCK"
                            | ")"
                    ))
            {
                if s.depth[j] == d && (s.is_word(j, "ASC") || s.is_word(j, "DESC")) {
                    h.push(Hit::new("DML-012").at(s.at(j)));
                    break;
                }
                j += 1;
            }
        }
    }

    match first.as_str() {
        "INSERT" => {
            for i in f + 1..s.len().min(f + 5) {
                match s.w(i) {
                    "IGNORE" => h.push(Hit::new("DML-004").at(s.at(i))),
                    "LOW_PRIORITY" | "DELAYED" | "HIGH_PRIORITY" => {
                        h.push(Hit::new("DML-010").at(s.at(i)).detail(s.w(i).to_string()))
                    }
                    _ => {}
                }
            }
            // INSERT [INTO] t [PARTITION (…)] SET …
            let mut i = f + 1;
            while i < s.len()
                && matches!(
                    s.w(i),
                    "IGNORE" | "LOW_PRIORITY" | "DELAYED" | "HIGH_PRIORITY" | "INTO"
                )
            {
                i += 1;
            }
            i += 1; // table name
            while s
                .toks
                .get(i)
                .is_some_and(|t| &sql[t.t.start..t.t.end] == ".")
            {
                i += 2;
            }
            if s.is_word(i, "PARTITION") {
                i += 1;
                while i < s.len()
                    && !(s.depth[i] == 0 && sql[s.toks[i].t.start..s.toks[i].t.end] == *")")
                {
                    i += 1;
                }
                i += 1;
            }
            if s.is_word(i, "SET") {
                h.push(Hit::new("DML-005").at(s.at(i)));
            }
        }
        "REPLACE" => h.push(Hit::new("DML-003").at(s.at(f))),
        "UPDATE" => {
            let set = s.find("SET", f, 0).unwrap_or(s.len());
            for i in f + 1..set {
                match s.w(i) {
                    "JOIN" | "," if s.depth[i] == 0 => {
                        h.push(Hit::new("DML-006").at(s.at(i)));
                        break;
                    }
                    "IGNORE" => h.push(Hit::new("DML-004").at(s.at(i)).detail("UPDATE IGNORE")),
                    "LOW_PRIORITY" => {
                        h.push(Hit::new("DML-010").at(s.at(i)).detail("LOW_PRIORITY"))
                    }
                    _ => {}
                }
            }
            if let Some(i) = s.find("ORDER", set, 0).or_else(|| s.find("LIMIT", set, 0)) {
                h.push(Hit::new("DML-008").at(s.at(i)));
            }
        }
        "DELETE" => {
            let from = s.find("FROM", f, 0);
            if let Some(fr) = from {
                let between: Vec<usize> = (f + 1..fr)
                    .filter(|&i| !matches!(s.w(i), "LOW_PRIORITY" | "QUICK" | "IGNORE"))
                    .collect();
                if !between.is_empty() {
                    h.push(Hit::new("DML-007").at(s.at(between[0])));
                }
                if let Some(u) = s.find("USING", fr, 0) {
                    h.push(Hit::new("DML-007").at(s.at(u)));
                }
                if let Some(i) = s.find("ORDER", fr, 0).or_else(|| s.find("LIMIT", fr, 0)) {
                    h.push(Hit::new("DML-008").at(s.at(i)));
                }
                if between.is_empty()
                    && (fr..s.len()).any(|i| s.depth[i] == 0 && s.is_word(i, "JOIN"))
                    && s.find("USING", fr, 0).is_none()
                {
                    h.push(Hit::new("DML-007").at(s.at(fr)));
                }
            }
            for i in f + 1..s.len().min(f + 4) {
                match s.w(i) {
                    "IGNORE" => h.push(Hit::new("DML-004").at(s.at(i)).detail("DELETE IGNORE")),
                    "LOW_PRIORITY" | "QUICK" => {
                        h.push(Hit::new("DML-010").at(s.at(i)).detail(s.w(i).to_string()))
                    }
                    _ => {}
                }
            }
        }
        "SHOW" => h.push(
            Hit::new("DML-022")
                .at(s.at(f))
                .detail(format!("SHOW {}", s.w(f + 1))),
        ),
        "DESCRIBE" | "DESC" => h.push(Hit::new("DML-022").at(s.at(f)).detail(first.clone())),
        "EXPLAIN"
            if s.toks
                .get(f + 1)
                .is_some_and(|t| matches!(t.t.kind, TokenKind::Word | TokenKind::QuotedIdent))
                && !matches!(
                    s.w(f + 1),
                    "SELECT"
                        | "INSERT"
                        | "UPDATE"
                        | "DELETE"
                        | "WITH"
                        | "ANALYZE"
                        | "VERBOSE"
                        | "REPLACE"
                        | "FORMAT"
                        | "EXTENDED"
                        | "PARTITIONS"
                ) =>
        {
            h.push(Hit::new("DML-022").at(s.at(f)).detail("EXPLAIN table"));
        }
        "LOAD" => h.push(Hit::new("DML-013").at(s.at(f))),
        "SET" => set_statement(&s, f, &mut h),
        "START"
            if !matches!(s.w(f + 1), "SLAVE" | "REPLICA")
                && s.find_seq(&["WITH", "CONSISTENT", "SNAPSHOT"], f).is_some() =>
        {
            h.push(Hit::new("TXN-007").at(s.at(f)));
        }
        "LOCK" | "UNLOCK"
            if s.is_word(f + 1, "TABLES") || s.is_word(f + 1, "TABLE") && first == "UNLOCK" =>
        {
            h.push(Hit::new("TXN-003").at(s.at(f)))
        }
        "LOCK" if s.is_word(f + 1, "TABLE") && s.find("IN", f, 0).is_none() => {
            h.push(Hit::new("TXN-003").at(s.at(f)))
        }
        "XA" => h.push(Hit::new("TXN-005").at(s.at(f))),
        "USE" => h.push(Hit::new("CONN-005").at(s.at(f))),
        "FLUSH" | "KILL" | "DO" | "HANDLER" | "OPTIMIZE" | "REPAIR" | "CHECKSUM" | "PURGE"
        | "INSTALL" | "UNINSTALL" | "CACHE" | "BINLOG" | "HELP" => {
            h.push(Hit::new("ADM-001").at(s.at(f)).detail(first.clone()))
        }
        "CHECK" | "ANALYZE" if s.is_word(f + 1, "TABLE") => h.push(
            Hit::new("ADM-001")
                .at(s.at(f))
                .detail(format!("{first} TABLE")),
        ),
        "RESET" if matches!(s.w(f + 1), "QUERY" | "MASTER" | "SLAVE" | "REPLICA") => h.push(
            Hit::new("ADM-001")
                .at(s.at(f))
                .detail(format!("RESET {}", s.w(f + 1))),
        ),
        "CHANGE" if matches!(s.w(f + 1), "MASTER" | "REPLICATION") => {
            h.push(Hit::new("ADM-001").at(s.at(f)).detail("CHANGE MASTER"))
        }
        "STOP" | "START" if matches!(s.w(f + 1), "SLAVE" | "REPLICA") => h.push(
            Hit::new("ADM-001")
                .at(s.at(f))
                .detail(format!("{first} SLAVE")),
        ),
        "RENAME" if s.is_word(f + 1, "TABLE") => h.push(Hit::new("DDL-013").at(s.at(f))),
        "DROP" => {
            if s.is_word(f + 1, "INDEX") && s.find("ON", f + 2, 0).is_some() {
                h.push(Hit::new("DDL-014").at(s.at(f)));
            }
            if s.is_word(f + 1, "DATABASE") && s.is_word(f + 2, "IF") {
                // DROP DATABASE IF EXISTS exists on both.
            }
        }
        "CREATE" => create_statement(&s, f, &mut h),
        "ALTER"
            if s.is_word(f + 1, "TABLE")
                || (s.is_word(f + 1, "ONLINE") || s.is_word(f + 1, "IGNORE")) =>
        {
            alter_table(&s, f, &mut h)
        }
        "ALTER"
            if matches!(s.w(f + 1), "DATABASE" | "SCHEMA")
                && (s.find("CHARACTER", f, 0).is_some()
                    || s.find("CHARSET", f, 0).is_some()
                    || s.find("COLLATE", f, 0).is_some()) =>
        {
            h.push(Hit::new("DDL-016").at(s.at(f)))
        }
        _ => {}
    }
    h
}

fn is_interval_unit(u: &str) -> bool {
    matches!(
        u,
        "MICROSECOND"
            | "SECOND"
            | "MINUTE"
            | "HOUR"
            | "DAY"
            | "WEEK"
            | "MONTH"
            | "QUARTER"
            | "YEAR"
            | "SECOND_MICROSECOND"
            | "MINUTE_MICROSECOND"
            | "MINUTE_SECOND"
            | "HOUR_MICROSECOND"
            | "HOUR_SECOND"
            | "HOUR_MINUTE"
            | "DAY_MICROSECOND"
            | "DAY_SECOND"
            | "DAY_MINUTE"
            | "DAY_HOUR"
            | "YEAR_MONTH"
    )
}

/// SET statements: MySQL session variables, SET NAMES, SET SESSION TRANSACTION, autocommit.
fn set_statement(s: &Stream, f: usize, h: &mut Vec<Hit>) {
    // Split the assignments at depth-0 commas.
    let mut starts = vec![f + 1];
    for i in f + 1..s.len() {
        if s.depth[i] == 0 && s.w(i) == "," {
            starts.push(i + 1);
        }
    }
    for &st in &starts {
        let mut i = st;
        let mut scope = "";
        if matches!(
            s.w(i),
            "GLOBAL" | "SESSION" | "LOCAL" | "PERSIST" | "PERSIST_ONLY"
        ) {
            scope = s.w(i);
            i += 1;
        }
        let name = s.w(i);
        let tok = s.toks.get(i);
        if tok.is_some_and(|t| t.t.kind == TokenKind::Variable) {
            continue; // @x and @@x: the lexical rules say it
        }
        match name {
            "NAMES" => {
                let cs = s
                    .toks
                    .get(i + 1)
                    .map(|t| {
                        s.sql[t.t.start..t.t.end]
                            .trim_matches(['\'', '"', '`'])
                            .to_ascii_lowercase()
                    })
                    .unwrap_or_default();
                let ok_cs = matches!(
                    cs.as_str(),
                    "utf8"
                        | "latin1"
                        | "latin2"
                        | "latin5"
                        | "latin7"
                        | "gbk"
                        | "big5"
                        | "sjis"
                        | "euckr"
                        | "koi8r"
                        | "cp1250"
                        | "cp1251"
                        | "cp1256"
                        | "cp1257"
                        | "cp866"
                        | "gb18030"
                );
                if !ok_cs || s.find("COLLATE", i, 0).is_some() {
                    h.push(
                        Hit::new("CONN-003")
                            .at(s.at(st))
                            .detail(format!("SET NAMES {cs}")),
                    );
                }
            }
            "CHARACTER" | "CHARSET" => h.push(
                Hit::new("CONN-003")
                    .at(s.at(st))
                    .detail("SET CHARACTER SET"),
            ),
            "TRANSACTION" => match scope {
                "SESSION" => h.push(Hit::new("TXN-008").at(s.at(st))),
                "GLOBAL" => h.push(
                    Hit::new("CONN-002")
                        .at(s.at(st))
                        .detail("SET GLOBAL TRANSACTION"),
                ),
                _ => {}
            },
            "AUTOCOMMIT" => h.push(Hit::new("TXN-002").at(s.at(st))),
            "PASSWORD" | "ROLE" | "DEFAULT" => h.push(
                Hit::new("ADM-001")
                    .at(s.at(st))
                    .detail(format!("SET {name}")),
            ),
            "" => {}
            other => {
                if !is_pg_parameter(other) {
                    h.push(
                        Hit::new("CONN-002")
                            .at(s.at(st))
                            .detail(format!("SET {}", other.to_ascii_lowercase())),
                    );
                }
            }
        }
    }
}

/// Session parameters a PostgreSQL-family server knows (a MySQL application rarely sets these).
fn is_pg_parameter(name: &str) -> bool {
    matches!(
        name,
        "SEARCH_PATH"
            | "STATEMENT_TIMEOUT"
            | "LOCK_TIMEOUT"
            | "CLIENT_ENCODING"
            | "DATESTYLE"
            | "TIMEZONE"
            | "APPLICATION_NAME"
            | "WORK_MEM"
            | "DEFAULT_TRANSACTION_ISOLATION"
            | "ROLE"
            | "SESSION"
    )
}

fn create_statement(s: &Stream, f: usize, h: &mut Vec<Hit>) {
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
            if opts || (has_ine && kind == "DATABASE") {
                h.push(Hit::new("DDL-016").at(s.at(f)));
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
                        "ENGINE" | "TYPE" | "CHARSET" | "COLLATE" | "ROW_FORMAT"
                        | "AUTO_INCREMENT" | "COMMENT" | "KEY_BLOCK_SIZE" | "STATS_PERSISTENT"
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

fn alter_table(s: &Stream, f: usize, h: &mut Vec<Hit>) {
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
            super::ast::type_hits(ctx.profile, &c.mysql_type, None, &mut h);
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
        "DOUBLE" if !t.contains("PRECISION") => Some("double precision"),
        "NCHAR" | "NVARCHAR" => Some("varchar"),
        "YEAR" => Some("smallint"),
        _ => None,
    };
    if let Some(r) = rewrite {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::with_postgres;

    fn rules(sql: &str) -> Vec<String> {
        with_postgres(|ctx| hits(sql, ctx).into_iter().map(|h| h.rule).collect())
    }

    #[test]
    fn statement_forms() {
        assert_eq!(rules("SELECT * FROM t LIMIT 10, 20"), vec!["DML-001"]);
        assert_eq!(
            rules("SELECT * FROM t LIMIT 10 OFFSET 20"),
            Vec::<String>::new()
        );
        assert_eq!(rules("INSERT IGNORE INTO t VALUES (1)"), vec!["DML-004"]);
        assert_eq!(rules("INSERT INTO t SET a = 1"), vec!["DML-005"]);
        assert_eq!(
            rules("INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2"),
            vec!["DML-002"]
        );
        assert_eq!(rules("REPLACE INTO t VALUES (1)"), vec!["DML-003"]);
        assert_eq!(
            rules("UPDATE a JOIN b ON a.id = b.id SET a.x = 1"),
            vec!["DML-006"]
        );
        assert_eq!(
            rules("UPDATE a SET x = 1 ORDER BY id LIMIT 1"),
            vec!["DML-008"]
        );
        assert_eq!(
            rules("DELETE a FROM a JOIN b ON a.id = b.id"),
            vec!["DML-007"]
        );
        assert_eq!(
            rules("SELECT * FROM t USE INDEX (i) WHERE a = 1"),
            vec!["DML-009"]
        );
        assert_eq!(
            rules("SELECT SQL_CALC_FOUND_ROWS * FROM t"),
            vec!["DML-010"]
        );
        assert_eq!(
            rules("SELECT /*!40001 SQL_NO_CACHE */ * FROM t"),
            Vec::<String>::new()
        );
        assert_eq!(
            rules("SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP"),
            vec!["DML-011"]
        );
        assert_eq!(rules("SELECT a FROM t GROUP BY a DESC"), vec!["DML-012"]);
        assert_eq!(rules("SELECT * FROM t LOCK IN SHARE MODE"), vec!["DML-019"]);
        assert_eq!(rules("SHOW TABLES"), vec!["DML-022"]);
        assert_eq!(rules("SET autocommit = 0"), vec!["TXN-002"]);
        assert_eq!(rules("SET NAMES utf8mb4"), vec!["CONN-003"]);
        assert_eq!(rules("SET NAMES utf8"), Vec::<String>::new());
        assert_eq!(rules("SET SESSION sql_mode = ''"), vec!["CONN-002"]);
        assert_eq!(
            rules("SET TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            Vec::<String>::new()
        );
        assert_eq!(
            rules("START TRANSACTION WITH CONSISTENT SNAPSHOT"),
            vec!["TXN-007"]
        );
        assert_eq!(rules("LOCK TABLES t WRITE"), vec!["TXN-003"]);
        assert_eq!(
            rules("CREATE TABLE t (a INT) ENGINE=InnoDB"),
            vec!["DDL-002"]
        );
        assert_eq!(rules("CREATE TABLE t LIKE u"), vec!["DDL-024"]);
        assert_eq!(
            rules("CREATE INDEX i ON t (name(10)) USING BTREE"),
            vec!["DDL-005", "DDL-005B"]
        );
        assert_eq!(
            rules("ALTER TABLE t ADD COLUMN x INT AFTER y, MODIFY z INT"),
            vec!["DDL-012", "DDL-012"]
        );
        assert_eq!(
            rules("ALTER TABLE t ADD COLUMN x INT"),
            Vec::<String>::new()
        );
        assert_eq!(rules("DROP INDEX i ON t"), vec!["DDL-014"]);
        assert_eq!(rules("RENAME TABLE a TO b"), vec!["DDL-013"]);
        assert_eq!(
            rules("SELECT d + INTERVAL 1 DAY FROM t"),
            vec!["FN-INTERVAL"]
        );
        assert_eq!(
            rules("SELECT d + INTERVAL '1' DAY FROM t"),
            Vec::<String>::new()
        );
    }
}
