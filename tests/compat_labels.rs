//! Labels the compat corpus (corpora/compat) by running every statement for real on MariaDB and on
//! PostgreSQL, and checks the labels committed in corpora/compat/labels.tsv still hold.
//!
//! Each statement runs alone on fresh sessions against a database loaded from the corpus schema and
//! data (schema.mysql.sql / schema.pg.sql, data.sql), inside a transaction that is rolled back; after
//! DDL the MySQL side (whose DDL commits) is reloaded. Labels:
//! - `fails`: PostgreSQL rejects the statement (the SQLSTATE and message are kept);
//! - `differs`: both run, but the results differ in canonical values (or, for writes, the affected-row
//!   counts or the tables afterwards differ);
//! - `same`: both run with the same results;
//! - `nondeterministic`: both run, but the statement calls NOW(), RAND(), VERSION(), … so results are
//!   not comparable;
//! - `invalid`: MariaDB itself rejects it (a corpus bug; the test fails on any).
//!
//! Rewrite the labels: `scripts/label-compat.sh` (CUTOVER_WRITE_LABELS=1).

mod common;
mod compat_run;

use compat_run::{FILES, compat, connect, endpoints, label, reload_mysql, reload_pg};
use cutover::sql::script::split_script;
use std::fmt::Write as _;

const DB: &str = "cutover_compat";

fn clean(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

#[tokio::test(flavor = "multi_thread")]
async fn labels_match_the_real_servers() {
    let (my, pg) = endpoints();
    let mut my_admin = connect(&my).await;
    let mut pg_admin = connect(&pg).await;
    reload_mysql(DB);
    reload_pg(DB);

    let mut tsv = String::from("file\tordinal\tline\tlabel\tdetail\tcomment\n");
    let mut invalid = Vec::new();
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for file in FILES {
        let rel = format!("statements/{file}.sql");
        let Ok(text) = std::fs::read_to_string(compat(&rel)) else {
            continue;
        };
        for (ordinal, st) in split_script(&text).iter().enumerate() {
            let (l, detail) = label(
                &my,
                &pg,
                &mut my_admin,
                &mut pg_admin,
                DB,
                &st.text,
                &st.text,
            )
            .await;
            if l == "invalid" {
                invalid.push(format!("{rel}:{}: {detail}", st.line));
            }
            *counts.entry(l.clone()).or_default() += 1;
            let _ = writeln!(
                tsv,
                "{file}\t{ordinal}\t{}\t{l}\t{}\t{}",
                st.line,
                clean(&detail),
                clean(&st.leading_comment)
            );
        }
    }
    let _ = my_admin
        .execute(&format!("DROP DATABASE IF EXISTS {DB}"))
        .await;
    let _ = pg_admin
        .execute(&format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"))
        .await;
    eprintln!("labels: {counts:?}");
    assert!(
        invalid.is_empty(),
        "statements MariaDB rejects (fix the corpus):\n{}",
        invalid.join("\n")
    );

    let path = compat("labels.tsv");
    if std::env::var("CUTOVER_WRITE_LABELS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &tsv).expect("write labels.tsv");
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .expect("corpora/compat/labels.tsv (write it with scripts/label-compat.sh)");
    // Compare labels (not details: server messages may change with versions).
    let key = |s: &str| -> Vec<(String, String, String)> {
        s.lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (
                    c[0].to_string(),
                    c[1].to_string(),
                    c.get(3).copied().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let (now, then) = (key(&tsv), key(&committed));
    let changed: Vec<String> = now
        .iter()
        .zip(then.iter().map(Some).chain(std::iter::repeat(None)))
        .filter(|(a, b)| Some(*a) != *b)
        .map(|(a, b)| {
            format!(
                "{}#{}: now {}, committed {}",
                a.0,
                a.1,
                a.2,
                b.map_or("missing".into(), |b| b.2.clone())
            )
        })
        .collect();
    assert!(
        changed.is_empty() && now.len() == then.len(),
        "labels changed (rerun scripts/label-compat.sh if the corpus changed):\n{}",
        changed.join("\n")
    );
}
