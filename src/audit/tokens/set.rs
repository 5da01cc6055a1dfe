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
                            .detail(session_switch_advice(other)),
                    );
                }
            }
        }
    }
}

/// The finding's detail for a MySQL session variable the target lacks: what to do instead where there
/// is a known answer (a dump's or a batch job's switches), else the variable's name.
fn session_switch_advice(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match name {
        "FOREIGN_KEY_CHECKS" => format!(
            "SET {lower}: there is no session switch for foreign keys here; load parents before \
             children, or declare the constraints DEFERRABLE and run SET CONSTRAINTS ALL DEFERRED \
             inside the transaction (checked at COMMIT); a superuser's SET session_replication_role \
             = replica skips them unchecked"
        ),
        "UNIQUE_CHECKS" => format!(
            "SET {lower}: unique constraints are always checked here; drop the statement (for a bulk \
             load, create the unique indexes after it)"
        ),
        "TX_ISOLATION" | "TRANSACTION_ISOLATION" => {
            format!("SET {lower}: use SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL …")
        }
        "SQL_MODE" => format!(
            "SET {lower}: there is no sql_mode here; the target behaves like a strict mode \
             (drop the statement, and fix what the audit finds under the modes the application used)"
        ),
        _ => format!("SET {lower}"),
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
