//! Compares what two servers returned for the same statement, in canonical values.
//!
//! Result sets compare as multisets (rows in any order) unless the caller says the statement's order
//! is meaningful. Per column, values of different kinds are first reconciled (JSON held as text,
//! booleans against 0/1, bit strings against numbers), then compared with [`Value::compare`].

use super::exec::{Outcome, ResultSet};
use super::value::{Comparison, Kind, Tolerance, Value, cmp_rows};
use serde::Serialize;

/// The verdict on two outcomes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum OutcomeComparison {
    Same {
        /// Equal-but-worth-noting differences (decimal scale, float rounding, boolean vs 0/1).
        notes: Vec<String>,
    },
    Differs {
        /// What differs, for people.
        reason: String,
        /// The first differing row on each side, printable (`None` when a side has no such row).
        left: Option<Vec<String>>,
        right: Option<Vec<String>>,
    },
}

impl OutcomeComparison {
    pub fn is_same(&self) -> bool {
        matches!(self, OutcomeComparison::Same { .. })
    }
}

fn differs(reason: impl Into<String>) -> OutcomeComparison {
    OutcomeComparison::Differs {
        reason: reason.into(),
        left: None,
        right: None,
    }
}

fn printable(row: &[Value]) -> Vec<String> {
    row.iter().map(Value::display).collect()
}

/// Compares two outcomes. `ordered`: rows must come in the same order (the statement has an ORDER BY
/// that fixes it); otherwise rows compare as multisets.
pub fn compare_outcomes(
    left: &Outcome,
    right: &Outcome,
    ordered: bool,
    tol: &Tolerance,
) -> OutcomeComparison {
    if left.sets.len() != right.sets.len() {
        return differs(format!(
            "{} result sets vs {}",
            left.sets.len(),
            right.sets.len()
        ));
    }
    let mut notes = Vec::new();
    let many = left.sets.len();
    for (i, (a, b)) in left.sets.iter().zip(&right.sets).enumerate() {
        match compare_sets(a, b, ordered, tol) {
            OutcomeComparison::Same { notes: n } => notes.extend(n),
            OutcomeComparison::Differs {
                reason,
                left,
                right,
            } => {
                let reason = if many > 1 {
                    format!("result set {}: {reason}", i + 1)
                } else {
                    reason
                };
                return OutcomeComparison::Differs {
                    reason,
                    left,
                    right,
                };
            }
        }
    }
    if left.sets.is_empty() && left.affected != right.affected {
        return differs(format!(
            "{} rows affected vs {}",
            left.affected.map_or("?".into(), |n| n.to_string()),
            right.affected.map_or("?".into(), |n| n.to_string())
        ));
    }
    notes.sort();
    notes.dedup();
    OutcomeComparison::Same { notes }
}

/// Compares two result sets.
pub fn compare_sets(
    a: &ResultSet,
    b: &ResultSet,
    ordered: bool,
    tol: &Tolerance,
) -> OutcomeComparison {
    if a.columns.len() != b.columns.len() {
        return differs(format!(
            "{} columns vs {}",
            a.columns.len(),
            b.columns.len()
        ));
    }
    if a.rows.len() != b.rows.len() {
        let mut d = differs(format!("{} rows vs {}", a.rows.len(), b.rows.len()));
        if let OutcomeComparison::Differs { left, right, .. } = &mut d {
            *left = a.rows.first().map(|r| printable(r));
            *right = b.rows.first().map(|r| printable(r));
        }
        return d;
    }
    // Reconcile each column's kinds: coerce both sides towards the more specific kind.
    let target: Vec<(Kind, Kind)> = a
        .columns
        .iter()
        .zip(&b.columns)
        .map(|(x, y)| (y.kind, x.kind))
        .collect();
    let coerce = |rows: &[Vec<Value>], left: bool| -> Vec<Vec<Value>> {
        rows.iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, v)| v.coerce_to(if left { target[i].0 } else { target[i].1 }))
                    .collect()
            })
            .collect()
    };
    let mut ra = coerce(&a.rows, true);
    let mut rb = coerce(&b.rows, false);
    if !ordered {
        ra.sort_by(|x, y| cmp_rows(x, y));
        rb.sort_by(|x, y| cmp_rows(x, y));
    }
    let mut notes = Vec::new();
    for (x, y) in ra.iter().zip(&rb) {
        for (i, (u, v)) in x.iter().zip(y).enumerate() {
            match u.compare(v, tol) {
                Comparison::Equal => {}
                Comparison::EqualNoting(n) => notes.push(format!("{}: {n}", a.columns[i].name)),
                Comparison::Different => {
                    return OutcomeComparison::Differs {
                        reason: format!(
                            "column {} ({}): {} vs {}",
                            i + 1,
                            a.columns[i].name,
                            u.display(),
                            v.display()
                        ),
                        left: Some(printable(x)),
                        right: Some(printable(y)),
                    };
                }
            }
        }
    }
    OutcomeComparison::Same { notes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::exec::Column;

    fn set(kinds: &[Kind], rows: &[&[&str]]) -> ResultSet {
        ResultSet {
            columns: kinds
                .iter()
                .enumerate()
                .map(|(i, k)| Column {
                    name: format!("c{i}"),
                    kind: *k,
                })
                .collect(),
            rows: rows
                .iter()
                .map(|r| {
                    r.iter()
                        .zip(kinds)
                        .map(|(t, k)| {
                            if *t == "NULL" {
                                Value::Null
                            } else {
                                Value::from_text(*k, t.as_bytes())
                            }
                        })
                        .collect()
                })
                .collect(),
        }
    }

    #[test]
    fn multisets_ignore_order_unless_ordered() {
        let a = set(&[Kind::Int, Kind::Text], &[&["1", "a"], &["2", "b"]]);
        let b = set(&[Kind::Int, Kind::Text], &[&["2", "b"], &["1", "a"]]);
        assert!(compare_sets(&a, &b, false, &Tolerance::default()).is_same());
        assert!(!compare_sets(&a, &b, true, &Tolerance::default()).is_same());
    }

    #[test]
    fn kinds_reconciled_per_column() {
        let a = set(&[Kind::Int, Kind::Text], &[&["1", r#"{"lang": "de"}"#]]);
        let b = set(&[Kind::Bool, Kind::Json], &[&["t", r#"{"lang":"de"}"#]]);
        let c = compare_sets(&a, &b, false, &Tolerance::default());
        assert!(c.is_same(), "{c:?}");
    }

    #[test]
    fn differences_are_located() {
        let a = set(&[Kind::Decimal], &[&["3.5000"]]);
        let b = set(&[Kind::Int], &[&["3"]]);
        match compare_sets(&a, &b, false, &Tolerance::default()) {
            OutcomeComparison::Differs {
                reason,
                left,
                right,
            } => {
                assert!(reason.contains("3.5000 vs 3"), "{reason}");
                assert_eq!(
                    (left.unwrap(), right.unwrap()),
                    (vec!["3.5000".to_string()], vec!["3".to_string()])
                );
            }
            other => panic!("{other:?}"),
        }
        let a = Outcome {
            sets: vec![],
            affected: Some(2),
        };
        let b = Outcome {
            sets: vec![],
            affected: Some(1),
        };
        assert!(!compare_outcomes(&a, &b, false, &Tolerance::default()).is_same());
    }
}
