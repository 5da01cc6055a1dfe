//! The gate: every threshold of the report, as data (`checklists/gate.toml`, or the user's file over
//! it, key by key).

use super::inputs::ReportError;
use std::collections::BTreeMap;
use std::path::Path;

/// The shipped gate, compiled in so the report works from any directory.
const BUILT_IN: &str = include_str!("../../checklists/gate.toml");

/// Thresholds per criterion id (`replay.latency`) and key (`warn`, `fail`, `alpha`, …).
#[derive(Clone, Debug)]
pub struct Gate {
    pub name: String,
    values: BTreeMap<String, BTreeMap<String, f64>>,
}

fn flatten(path: &str, text: &str) -> Result<BTreeMap<String, BTreeMap<String, f64>>, ReportError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| ReportError::Gate {
        path: path.into(),
        message: e.to_string(),
    })?;
    let mut out: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for (stage, v) in &table {
        let Some(stage_t) = v.as_table() else {
            return Err(ReportError::Gate {
                path: path.into(),
                message: format!("`{stage}` is not a table like [{stage}.criterion]"),
            });
        };
        for (crit, v) in stage_t {
            let Some(keys) = v.as_table() else {
                return Err(ReportError::Gate {
                    path: path.into(),
                    message: format!("[{stage}.{crit}] is not a table of thresholds"),
                });
            };
            let entry = out.entry(format!("{stage}.{crit}")).or_default();
            for (k, v) in keys {
                let n = v
                    .as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .ok_or_else(|| ReportError::Gate {
                        path: path.into(),
                        message: format!("[{stage}.{crit}] {k} = {v}: a number is expected"),
                    })?;
                entry.insert(k.clone(), n);
            }
        }
    }
    Ok(out)
}

impl Gate {
    pub fn built_in() -> Gate {
        Gate {
            name: "built-in (checklists/gate.toml)".into(),
            values: flatten("checklists/gate.toml", BUILT_IN)
                .expect("the shipped gate parses (tested)"),
        }
    }

    /// The user's gate over the built-in one; an unknown criterion or key is an error (a typo would
    /// otherwise silently keep the default).
    pub fn load(path: &Path) -> Result<Gate, ReportError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ReportError::Gate {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        let user = flatten(&shown, &text)?;
        let mut gate = Gate::built_in();
        for (crit, keys) in user {
            let Some(known) = gate.values.get_mut(&crit) else {
                return Err(ReportError::Gate {
                    path: shown,
                    message: format!(
                        "unknown criterion [{crit}]; known: {}",
                        Gate::built_in()
                            .values
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            };
            for (k, v) in keys {
                if !known.contains_key(&k) {
                    return Err(ReportError::Gate {
                        path: shown,
                        message: format!("[{crit}] has no key `{k}`"),
                    });
                }
                known.insert(k, v);
            }
        }
        gate.name = shown;
        Ok(gate)
    }

    /// A threshold; every key the report asks for is in the built-in gate (tested).
    pub fn get(&self, criterion: &str, key: &str) -> f64 {
        self.values
            .get(criterion)
            .and_then(|m| m.get(key))
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// `warn` and `fail` of a criterion.
    pub fn levels(&self, criterion: &str) -> (f64, f64) {
        (self.get(criterion, "warn"), self.get(criterion, "fail"))
    }
}

/// Status of a value that is bad when high: above `fail` fails, above `warn` warns (a negative
/// level never triggers).
pub fn above(value: f64, (warn, fail): (f64, f64)) -> super::Status {
    if fail >= 0.0 && value > fail {
        super::Status::Fail
    } else if warn >= 0.0 && value > warn {
        super::Status::Warn
    } else {
        super::Status::Pass
    }
}

/// Status of a value that is bad when low.
pub fn below(value: f64, (warn, fail): (f64, f64)) -> super::Status {
    if fail >= 0.0 && value < fail {
        super::Status::Fail
    } else if warn >= 0.0 && value < warn {
        super::Status::Warn
    } else {
        super::Status::Pass
    }
}

/// The levels in words.
pub fn describe_above((warn, fail): (f64, f64)) -> String {
    let mut parts = Vec::new();
    if warn >= 0.0 {
        parts.push(format!("warn above {}", num(warn)));
    }
    if fail >= 0.0 {
        parts.push(format!("fail above {}", num(fail)));
    }
    if parts.is_empty() {
        "shown only".into()
    } else {
        parts.join(", ")
    }
}

pub fn describe_below((warn, fail): (f64, f64)) -> String {
    let mut parts = Vec::new();
    if warn >= 0.0 {
        parts.push(format!("warn below {}", num(warn)));
    }
    if fail >= 0.0 {
        parts.push(format!("fail below {}", num(fail)));
    }
    if parts.is_empty() {
        "shown only".into()
    } else {
        parts.join(", ")
    }
}

/// A threshold without trailing zeros.
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{}", (v * 1000.0).round() / 1000.0)
    }
}

/// Every criterion the report judges and the keys it reads.
#[cfg(test)]
pub const KEYS: &[(&str, &[&str])] = &[
    ("audit.fail", &["warn", "fail"]),
    ("audit.warn", &["warn", "fail"]),
    ("replay.mismatches", &["warn", "fail"]),
    ("replay.target_errors", &["warn", "fail"]),
    (
        "replay.latency",
        &[
            "warn",
            "fail",
            "alpha",
            "min_shift_ms",
            "min_samples",
            "max_untested_share",
        ],
    ),
    ("replay.coverage", &["warn", "fail"]),
    ("replay.pace", &["warn", "fail"]),
    ("replay.throughput", &["warn", "fail"]),
    ("verify.differences", &["warn", "fail"]),
    ("verify.unverified", &["warn", "fail"]),
    ("verify.schema", &["warn", "fail"]),
    ("verify.freshness", &["warn", "fail"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_gate_has_every_key() {
        let g = Gate::built_in();
        for (crit, keys) in KEYS {
            for k in *keys {
                assert!(g.get(crit, k).is_finite(), "{crit}.{k} missing");
            }
        }
    }

    #[test]
    fn user_gate_overrides_and_refuses_typos() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.toml");
        std::fs::write(&p, "[replay.latency]\nfail = 2.0\n").unwrap();
        let g = Gate::load(&p).unwrap();
        assert_eq!(g.get("replay.latency", "fail"), 2.0);
        assert_eq!(g.get("replay.latency", "warn"), 1.2);
        std::fs::write(&p, "[replay.latncy]\nfail = 2.0\n").unwrap();
        assert!(
            Gate::load(&p)
                .unwrap_err()
                .to_string()
                .contains("unknown criterion")
        );
        std::fs::write(&p, "[replay.latency]\nfial = 2.0\n").unwrap();
        assert!(Gate::load(&p).unwrap_err().to_string().contains("no key"));
    }

    #[test]
    fn levels_apply() {
        use super::super::Status::*;
        assert_eq!(above(1.0, (0.0, 0.0)), Fail);
        assert_eq!(above(0.0, (0.0, 0.0)), Pass);
        assert_eq!(above(3.0, (0.0, -1.0)), Warn);
        assert_eq!(below(0.4, (0.95, 0.5)), Fail);
        assert_eq!(below(0.9, (0.95, 0.5)), Warn);
    }
}
