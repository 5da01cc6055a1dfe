//! `--baseline`: what is new, fixed, better or worse since an earlier report.
//!
//! Criteria are compared by status (`pass` < `warn` < `waived` < `vacuous` < `not-run` < `fail`):
//! a higher one now is `worse`, a lower one `better`; each line names the criterion, both statuses,
//! both values and the evidence behind the worse (or the former) status: tables, fingerprints,
//! errors. Evidence items at `warn` or worse are compared by criterion, kind and id: present now
//! and not before is `new`, the other way round `fixed`.

use super::{BaselineDiff, Criterion, Evidence, GoNoGoReport, Status};
use std::collections::BTreeSet;

fn counts(e: &Evidence) -> bool {
    e.status.blocks() || e.status == Status::Warn
}

/// `criterion: pass → fail (0 → 5): table sbtest1, …`
fn line(now: &Criterion, before: &Criterion, named: &Criterion) -> String {
    let v = |c: &Criterion| c.value.map(super::gate::num).unwrap_or_else(|| "-".into());
    let items: Vec<String> = named
        .evidence
        .iter()
        .filter(|e| counts(e))
        .take(5)
        .map(|e| format!("{} {}", e.kind, e.id))
        .collect();
    format!(
        "{}: {} → {} ({} → {}){}",
        now.id,
        before.status.name(),
        now.status.name(),
        v(before),
        v(now),
        if items.is_empty() {
            String::new()
        } else {
            format!(": {}", items.join(", "))
        }
    )
}

pub fn compare(path: &str, before: &GoNoGoReport, now: &GoNoGoReport) -> BaselineDiff {
    let mut d = BaselineDiff {
        path: path.into(),
        verdict_before: Some(before.verdict),
        ..BaselineDiff::default()
    };
    for c in &now.criteria {
        let Some(b) = before.criterion(&c.id) else {
            d.new
                .push(format!("{}: new criterion, {}", c.id, c.status.name()));
            continue;
        };
        if c.status < b.status {
            d.better.push(line(c, b, b));
        } else if c.status > b.status {
            d.worse.push(line(c, b, c));
        }
        let key = |e: &Evidence| format!("{} {} {}", c.id, e.kind, e.id);
        let failing = |cr: &Criterion| -> BTreeSet<String> {
            cr.evidence.iter().filter(|e| counts(e)).map(key).collect()
        };
        let (was, is) = (failing(b), failing(c));
        d.new.extend(is.difference(&was).cloned());
        d.fixed.extend(was.difference(&is).cloned());
    }
    d
}
