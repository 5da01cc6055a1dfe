//! SET statements: session variables, character sets, transaction characteristics.

use super::stream::Stream;
use crate::audit::Hit;
use crate::sql::lexer::TokenKind;

/// SET statements: MySQL session variables, SET NAMES, SET SESSION TRANSACTION, autocommit.
pub(super) fn set_statement(s: &Stream, f: usize, h: &mut Vec<Hit>) {
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
