//! Comparing what the two sides returned for one execution, with the statement's order semantics:
//! multiset, or ordered except among rows tied on the ORDER BY keys.

use super::plan::{CompareMode, OrderItem};
use crate::db::compare::{OutcomeComparison, compare_outcomes, compare_sets};
use crate::db::exec::{Outcome, ResultSet};
use crate::db::value::{Tolerance, Value};
use std::cmp::Ordering;

/// Resolves ORDER BY items to result column positions; None when one is not a result column.
fn key_columns(items: &[OrderItem], set: &ResultSet) -> Option<Vec<usize>> {
    items
        .iter()
        .map(|i| match i {
            OrderItem::Column(name) => set
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name)),
            OrderItem::Position(p) if *p >= 1 && *p <= set.columns.len() => Some(p - 1),
            _ => None,
        })
        .collect()
}

fn keys_equal(a: &[Value], b: &[Value], keys: &[usize], tol: &Tolerance) -> bool {
    keys.iter().all(|&k| match (a.get(k), b.get(k)) {
        (Some(x), Some(y)) => !matches!(x.compare(y, tol), crate::db::value::Comparison::Different),
        _ => false,
    })
}

/// Compares two results under the statement's compare mode.
pub fn compare(
    source: &Outcome,
    target: &Outcome,
    mode: &CompareMode,
    items: &[OrderItem],
    tol: &Tolerance,
) -> OutcomeComparison {
    let CompareMode::Ordered { .. } = mode else {
        return compare_outcomes(source, target, false, tol);
    };
    // Multiset first: a different set of rows is reported as such, whatever the order.
    let as_set = compare_outcomes(source, target, false, tol);
    if !as_set.is_same() {
        return as_set;
    }
    let mut notes = match as_set {
        OutcomeComparison::Same { notes } => notes,
        OutcomeComparison::Differs { .. } => Vec::new(),
    };
    for (n, (a, b)) in source.sets.iter().zip(&target.sets).enumerate() {
        let Some(keys) = key_columns(items, a) else {
            notes.push("ORDER BY keys are not result columns: order not checked".into());
            continue;
        };
        // Runs of rows tied on the keys (by the source's order) compare as multisets, in sequence.
        let mut i = 0;
        while i < a.rows.len() {
            let mut j = i + 1;
            while j < a.rows.len() && keys_equal(&a.rows[i], &a.rows[j], &keys, tol) {
                j += 1;
            }
            let sub = |s: &ResultSet| ResultSet {
                columns: s.columns.clone(),
                rows: s.rows[i..j].to_vec(),
            };
            if let OutcomeComparison::Differs { left, right, .. } =
                compare_sets(&sub(a), &sub(b), false, tol)
            {
                return OutcomeComparison::Differs {
                    reason: format!(
                        "{}rows come in a different order (first at row {})",
                        if source.sets.len() > 1 {
                            format!("result set {}: ", n + 1)
                        } else {
                            String::new()
                        },
                        i + 1
                    ),
                    left,
                    right,
                };
            }
            i = j;
        }
    }
    notes.sort();
    notes.dedup();
    OutcomeComparison::Same { notes }
}

/// A unified-diff-like view of two results: rows only in the source (`-`) and only in the target
/// (`+`), compared by their printed canonical values, at most `max` lines.
pub fn row_diff(source: &Outcome, target: &Outcome, max: usize) -> Vec<String> {
    let rows = |o: &Outcome| -> Vec<String> {
        let mut v: Vec<String> = o
            .sets
            .iter()
            .flat_map(|s| {
                s.rows
                    .iter()
                    .map(|r| r.iter().map(Value::display).collect::<Vec<_>>().join(" | "))
            })
            .collect();
        v.sort();
        v
    };
    let (a, b) = (rows(source), rows(target));
    let mut out = Vec::new();
    if let Some(s) = source.sets.first() {
        out.push(format!(
            "  {}",
            s.columns
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    let (mut i, mut j) = (0, 0);
    while (i < a.len() || j < b.len()) && out.len() < max {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                Ordering::Less => {
                    out.push(format!("- {x}"));
                    i += 1;
                }
                Ordering::Greater => {
                    out.push(format!("+ {y}"));
                    j += 1;
                }
            },
            (Some(x), None) => {
                out.push(format!("- {x}"));
                i += 1;
            }
            (None, Some(y)) => {
                out.push(format!("+ {y}"));
                j += 1;
            }
            (None, None) => break,
        }
    }
    if out.len() <= 1 && a != b {
        out.push(
            "  (rows are equal as printed; they differ in order or beyond the printed precision)"
                .into(),
        );
    }
    out
}
