//! Audit accuracy against the real target: the compat corpus (corpora/compat) is labelled by running
//! every statement on MariaDB and PostgreSQL (tests/compat_labels.rs re-checks those labels on the live
//! servers). Here the audit's verdicts for `--target postgres --schema schema.mysql.sql` are scored
//! against the labels:
//! - of the statements PostgreSQL rejects, at least 97% must be `fail` (recall of fail);
//! - of the `fail` verdicts, at least 97% must be statements PostgreSQL rejects (precision of fail);
//! - of the statements whose results differ, at least 90% must be `warn` or `fail`.
//!
//! `CUTOVER_SHOW_MISSES=1` prints every miss.

mod common;

use cutover::audit::script_statements;
use cutover::audit::{AuditOptions, Context, Verdict, audit_all};
use cutover::profile::load_profile;
use cutover::schema::ddl::schema_from_ddl;
use std::collections::HashMap;

const FILES: &[&str] = &[
    "lexical",
    "functions",
    "dml",
    "semantics",
    "case_collation",
    "ddl",
    "types",
    "session_txn",
    "plain",
];

fn read(rel: &str) -> String {
    let p = common::corpus(&format!("compat/{rel}"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn audit_verdicts_match_what_postgresql_does() {
    let profile = load_profile("postgres", None).expect("postgres profile");
    let ddl = schema_from_ddl(&read("schema.mysql.sql"), "schema.mysql.sql");
    assert!(ddl.warnings.is_empty(), "{:?}", ddl.warnings);
    let opts = AuditOptions::default();
    let ctx = Context {
        profile: &profile,
        schema: Some(&ddl.schema),
        options: &opts,
    };
    // (file, ordinal) → label
    let labels: HashMap<(String, usize), (String, String)> = read("labels.tsv")
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((
                (f.first()?.to_string(), f.get(1)?.parse().ok()?),
                (f.get(3)?.to_string(), f.get(5).unwrap_or(&"").to_string()),
            ))
        })
        .collect();
    let show = std::env::var("CUTOVER_SHOW_MISSES").is_ok();
    let (
        mut pg_fails,
        mut pg_fails_caught,
        mut fail_verdicts,
        mut fail_verdicts_right,
        mut differs,
        mut differs_caught,
    ) = (0, 0, 0, 0, 0, 0);
    let mut matrix: HashMap<(String, Verdict), usize> = HashMap::new();
    let mut total = 0;
    for file in FILES {
        let input = script_statements(&read(&format!("statements/{file}.sql")), file);
        let audited = audit_all(&input.statements, &ctx);
        for st in &audited {
            let Some((label, comment)) = labels.get(&(file.to_string(), st.ordinal)) else {
                panic!(
                    "{file} #{}: no label (run scripts/label-compat.sh)",
                    st.ordinal
                );
            };
            total += 1;
            *matrix.entry((label.clone(), st.verdict)).or_default() += 1;
            let rules: Vec<&str> = st.findings.iter().map(|f| f.rule.as_str()).collect();
            let miss = |what: &str| {
                if show {
                    eprintln!(
                        "{what}: {file}#{} {:?} {rules:?}\n    {}\n    label: {comment}",
                        st.ordinal,
                        st.verdict,
                        st.sql.replace('\n', " ")
                    );
                }
            };
            match label.as_str() {
                "fails" => {
                    pg_fails += 1;
                    if st.verdict == Verdict::Fail {
                        pg_fails_caught += 1;
                    } else {
                        miss("PG rejects, not fail");
                    }
                }
                "differs" => {
                    differs += 1;
                    if st.verdict != Verdict::Ok {
                        differs_caught += 1;
                    } else {
                        miss("differs, but ok");
                    }
                }
                _ => {}
            }
            if st.verdict == Verdict::Fail {
                fail_verdicts += 1;
                if label == "fails" {
                    fail_verdicts_right += 1;
                } else {
                    miss(&format!("fail, but PG {label}"));
                }
            }
        }
    }
    let recall = pg_fails_caught as f64 / pg_fails as f64;
    let precision = fail_verdicts_right as f64 / fail_verdicts as f64;
    let differs_rate = differs_caught as f64 / differs as f64;
    eprintln!(
        "audit accuracy over {total} statements: PG rejects {pg_fails}, of which fail {pg_fails_caught} ({:.1}%); fail verdicts {fail_verdicts}, of which PG rejects {fail_verdicts_right} ({:.1}%); results differ {differs}, of which warn/fail {differs_caught} ({:.1}%)",
        recall * 100.0,
        precision * 100.0,
        differs_rate * 100.0
    );
    let mut m: Vec<_> = matrix.into_iter().collect();
    m.sort_by(|a, b| a.0.cmp(&b.0));
    eprintln!("label × verdict: {m:?}");
    assert!(total >= 300, "the corpus shrank to {total} statements");
    assert!(
        recall >= 0.97,
        "only {:.1}% of the statements PostgreSQL rejects are fail (CUTOVER_SHOW_MISSES=1 lists them)",
        recall * 100.0
    );
    assert!(
        precision >= 0.97,
        "only {:.1}% of fail verdicts are rejected by PostgreSQL",
        precision * 100.0
    );
    assert!(
        differs_rate >= 0.90,
        "only {:.1}% of the statements whose results differ are warn or fail",
        differs_rate * 100.0
    );
}
