//! Rewrite accuracy against the real servers: for every statement of corpora/compat, the original runs
//! on MariaDB and the audit's whole-statement `rewrite` (`--target postgres --schema
//! schema.mysql.sql`; the original when the audit gives none) runs on PostgreSQL, against the same
//! schema and data, and the two are compared as tests/compat_labels.rs labels them (results in
//! canonical values; for writes, affected rows and the tables afterwards, rolled back). Counted:
//! - statements PostgreSQL rejects (label `fails`) that now run with identical results;
//! - statements whose results differ (label `differs`) that now have identical results;
//! - statements that ran the same (label `same`) that a rewrite broke (must be none).
//!
//! A statement the audit does not rewrite keeps its committed label (compat_labels.rs re-checks those
//! on every run), so only rewritten statements are run here. `nondeterministic` statements are left
//! out (their results are not comparable).
//!
//! Peer: `CUTOVER_PEER_REWRITES=FILE` (a TSV `file, ordinal, sql` written by scripts/bench-rewrite.sh
//! with sqlglot) scores the peer's rewrites the same way in the same run. `CUTOVER_SHOW_MISSES=1`
//! prints every statement left unfixed or broken; `CUTOVER_REWRITE_RESULTS=FILE` writes the outcome
//! of every statement.

mod common;
mod compat_run;

use compat_run::{FILES, connect, endpoints, label, read, reload_mysql, reload_pg};
use cutover::audit::script_statements;
use cutover::audit::{AuditOptions, Context, audit_all};
use cutover::profile::load_profile;
use cutover::schema::ddl::schema_from_ddl;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

const DB: &str = "cutover_rewrite_compat";

/// One statement of the corpus with its label and the candidates to score.
struct Case {
    file: String,
    ordinal: usize,
    sql: String,
    label: String,
    ours: Option<String>,
    peer: Option<String>,
}

#[derive(Default, Debug)]
struct Score {
    fails: usize,
    fails_fixed: usize,
    differs: usize,
    differs_fixed: usize,
    same: usize,
    broken: usize,
    rewritten: usize,
}

impl Score {
    fn add(&mut self, label: &str, after: &str, rewritten: bool) {
        self.rewritten += usize::from(rewritten);
        match label {
            "fails" => {
                self.fails += 1;
                self.fails_fixed += usize::from(after == "same");
            }
            "differs" => {
                self.differs += 1;
                self.differs_fixed += usize::from(after == "same");
            }
            "same" => {
                self.same += 1;
                self.broken += usize::from(after != "same");
            }
            _ => {}
        }
    }

    fn line(&self, who: &str) -> String {
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        format!(
            "{who}: rejected → identical {} of {} ({:.1}%); differs → identical {} of {} ({:.1}%); same → broken {} of {}; statements rewritten {}",
            self.fails_fixed,
            self.fails,
            pct(self.fails_fixed, self.fails),
            self.differs_fixed,
            self.differs,
            pct(self.differs_fixed, self.differs),
            self.broken,
            self.same,
            self.rewritten
        )
    }
}

/// The peer's rewrites: (file, ordinal) → SQL (None: the peer gave no translation).
fn peer_rewrites() -> Option<HashMap<(String, usize), Option<String>>> {
    let path = std::env::var("CUTOVER_PEER_REWRITES").ok()?;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Some(
        text.lines()
            .filter_map(|l| {
                let mut f = l.splitn(3, '\t');
                let file = f.next()?.to_string();
                let ordinal = f.next()?.parse().ok()?;
                let sql = f.next().unwrap_or("");
                let sql = (!sql.is_empty()).then(|| unescape(sql));
                Some(((file, ordinal), sql))
            })
            .collect(),
    )
}

/// The TSV's escapes: `\n`, `\t`, `\r`, `\\`.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut c = s.chars();
    while let Some(ch) = c.next() {
        if ch == '\\' {
            match c.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(ch);
        }
    }
    out
}

fn cases() -> Vec<Case> {
    let profile = load_profile("postgres", None).expect("postgres profile");
    let ddl = schema_from_ddl(&read("schema.mysql.sql"), "schema.mysql.sql");
    let opts = AuditOptions::default();
    let ctx = Context {
        profile: &profile,
        schema: Some(&ddl.schema),
        options: &opts,
    };
    let labels: HashMap<(String, usize), String> = read("labels.tsv")
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((
                (f.first()?.to_string(), f.get(1)?.parse().ok()?),
                f.get(3)?.to_string(),
            ))
        })
        .collect();
    let peer = peer_rewrites();
    let mut out = Vec::new();
    for file in FILES {
        let input = script_statements(&read(&format!("statements/{file}.sql")), file);
        for st in audit_all(&input.statements, &ctx) {
            let key = (file.to_string(), st.ordinal);
            let label = labels
                .get(&key)
                .unwrap_or_else(|| panic!("{file} #{}: no label", st.ordinal))
                .clone();
            let peer_sql = peer.as_ref().map(|p| p.get(&key).cloned().flatten());
            out.push(Case {
                file: file.to_string(),
                ordinal: st.ordinal,
                label,
                ours: st.rewrite.filter(|r| r.trim() != st.sql.trim()),
                peer: peer_sql.flatten().filter(|r| r.trim() != st.sql.trim()),
                sql: st.sql,
            });
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn rewrites_run_on_postgresql_with_the_same_results() {
    let cases = cases();
    let scoring_peer = std::env::var("CUTOVER_PEER_REWRITES").is_ok();
    let (my, pg) = endpoints();
    let mut my_admin = connect(&my).await;
    let mut pg_admin = connect(&pg).await;
    reload_mysql(DB);
    reload_pg(DB);
    let show = std::env::var("CUTOVER_SHOW_MISSES").is_ok();
    let (mut ours, mut peer) = (Score::default(), Score::default());
    let mut by_file: BTreeMap<String, Score> = BTreeMap::new();
    let mut results = String::from("file\tordinal\tlabel\tours\tpeer\tours_detail\tpeer_detail\n");
    for c in cases.iter().filter(|c| c.label != "nondeterministic") {
        let mut run = async |candidate: &Option<String>| -> (String, String) {
            match candidate {
                None => (c.label.clone(), "not rewritten".into()),
                Some(sql) => label(&my, &pg, &mut my_admin, &mut pg_admin, DB, &c.sql, sql).await,
            }
        };
        let (a, a_detail) = run(&c.ours).await;
        ours.add(&c.label, &a, c.ours.is_some());
        by_file
            .entry(c.file.clone())
            .or_default()
            .add(&c.label, &a, c.ours.is_some());
        let (b, b_detail) = if scoring_peer {
            let r = run(&c.peer).await;
            peer.add(&c.label, &r.0, c.peer.is_some());
            r
        } else {
            (String::new(), String::new())
        };
        if a != "same" && (show || c.label == "same") {
            eprintln!(
                "{} {}#{}: now {a} ({a_detail})\n    {}\n    → {}",
                c.label,
                c.file,
                c.ordinal,
                c.sql.replace('\n', " "),
                c.ours
                    .as_deref()
                    .unwrap_or("(no rewrite)")
                    .replace('\n', " ")
            );
        }
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let _ = writeln!(
            results,
            "{}\t{}\t{}\t{a}\t{b}\t{}\t{}",
            c.file,
            c.ordinal,
            c.label,
            clean(&a_detail),
            clean(&b_detail)
        );
    }
    let _ = my_admin
        .execute(&format!("DROP DATABASE IF EXISTS {DB}"))
        .await;
    let _ = pg_admin
        .execute(&format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"))
        .await;
    if let Ok(path) = std::env::var("CUTOVER_REWRITE_RESULTS") {
        std::fs::write(&path, &results).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    for (file, s) in &by_file {
        eprintln!("  {}", s.line(file));
    }
    eprintln!("{}", ours.line("cutover"));
    if scoring_peer {
        eprintln!("{}", peer.line("sqlglot"));
    }
    // Ratchets at the figures recorded in BENCHMARKS.md: a change may raise them, never lower them.
    assert_eq!(
        ours.broken, 0,
        "rewrites broke statements that ran the same (CUTOVER_SHOW_MISSES=1 lists them)"
    );
    assert!(
        ours.fails >= 200,
        "the corpus shrank: {} rejected",
        ours.fails
    );
    assert!(
        ours.fails_fixed * 100 >= ours.fails * MIN_FAILS_FIXED_PCT,
        "fewer than {MIN_FAILS_FIXED_PCT}% of the rejected statements run with identical results after the rewrite"
    );
    assert!(
        ours.differs_fixed * 100 >= ours.differs * MIN_DIFFERS_FIXED_PCT,
        "fewer than {MIN_DIFFERS_FIXED_PCT}% of the silently different statements are fixed by the rewrite"
    );
}

/// The floors, at or just under the last recorded run (BENCHMARKS.md, "Rewrites that run").
const MIN_FAILS_FIXED_PCT: usize = 80;
const MIN_DIFFERS_FIXED_PCT: usize = 64;
