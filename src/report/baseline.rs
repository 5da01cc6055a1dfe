//! `--baseline`: what is new, fixed, better or worse since an earlier report.

use super::{BaselineDiff, GoNoGoReport};
use std::collections::BTreeSet;

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
            d.better.push(format!(
                "{}: {} → {}",
                c.id,
                b.status.name(),
                c.status.name()
            ));
        } else if c.status > b.status {
            d.worse.push(format!(
                "{}: {} → {}",
                c.id,
                b.status.name(),
                c.status.name()
            ));
        }
        let key = |e: &super::Evidence| format!("{} {} {}", c.id, e.kind, e.id);
        let failing = |cr: &super::Criterion| -> BTreeSet<String> {
            cr.evidence
                .iter()
                .filter(|e| e.status.blocks() || e.status == super::Status::Warn)
                .map(key)
                .collect()
        };
        let (was, is) = (failing(b), failing(c));
        d.new.extend(is.difference(&was).cloned());
        d.fixed.extend(was.difference(&is).cloned());
    }
    d
}
