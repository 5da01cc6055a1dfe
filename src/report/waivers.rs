//! Waivers (`--waivers FILE`): `[[waiver]]` with `criterion`, optional `match` (a fingerprint id,
//! table name, rule id, error or class id), `reason`, `owner`, `expires` (a date). A waiver in force
//! covers the failing evidence it matches (all of it without `match`); a criterion whose failing
//! evidence is all covered becomes `waived`. An expired waiver covers nothing and the report says so.

use super::inputs::ReportError;
use super::{Criterion, Status};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One waiver as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Waiver {
    pub criterion: String,
    #[serde(default, rename = "match")]
    pub matches: Option<String>,
    pub reason: String,
    pub owner: String,
    /// `YYYY-MM-DD`: the waiver holds through that day (UTC).
    pub expires: String,
}

/// A waiver and what it did in this report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WaiverUse {
    #[serde(flatten)]
    pub waiver: Waiver,
    pub expired: bool,
    /// Evidence ids it covered (`*` for a whole criterion without evidence items).
    pub covered: Vec<String>,
    /// What happened, in words (`expired on 2026-11-30: does not apply`, `matched nothing`).
    pub note: String,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    waiver: Vec<toml::Value>,
}

fn field(
    path: &str,
    i: usize,
    t: &toml::Table,
    key: &str,
    required: bool,
) -> Result<Option<String>, ReportError> {
    match t.get(key) {
        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
        Some(toml::Value::Datetime(d)) => Ok(Some(d.to_string())),
        Some(other) => Err(ReportError::Waivers {
            path: path.into(),
            message: format!("waiver {}: `{key}` = {other}: text expected", i + 1),
        }),
        None if required => Err(ReportError::Waivers {
            path: path.into(),
            message: format!(
                "waiver {}: `{key}` is required (criterion, reason, owner, expires)",
                i + 1
            ),
        }),
        None => Ok(None),
    }
}

/// Reads a waiver file; every waiver names a known criterion and a valid date.
pub fn load(path: &Path, known: &[&str]) -> Result<Vec<Waiver>, ReportError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ReportError::Waivers {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let file: File = toml::from_str(&text).map_err(|e| ReportError::Waivers {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (i, v) in file.waiver.iter().enumerate() {
        let Some(t) = v.as_table() else {
            return Err(ReportError::Waivers {
                path: shown,
                message: format!("waiver {} is not a table", i + 1),
            });
        };
        for k in t.keys() {
            if !["criterion", "match", "reason", "owner", "expires"].contains(&k.as_str()) {
                return Err(ReportError::Waivers {
                    path: shown,
                    message: format!(
                        "waiver {}: unknown key `{k}` (criterion, match, reason, owner, expires)",
                        i + 1
                    ),
                });
            }
        }
        let w = Waiver {
            criterion: field(&shown, i, t, "criterion", true)?.unwrap_or_default(),
            matches: field(&shown, i, t, "match", false)?,
            reason: field(&shown, i, t, "reason", true)?.unwrap_or_default(),
            owner: field(&shown, i, t, "owner", true)?.unwrap_or_default(),
            expires: field(&shown, i, t, "expires", true)?.unwrap_or_default(),
        };
        if !known.contains(&w.criterion.as_str()) {
            return Err(ReportError::Waivers {
                path: shown,
                message: format!(
                    "waiver {}: unknown criterion {:?}; known: {}",
                    i + 1,
                    w.criterion,
                    known.join(", ")
                ),
            });
        }
        if !valid_date(&w.expires) {
            return Err(ReportError::Waivers {
                path: shown,
                message: format!(
                    "waiver {}: expires = {:?}: write a date like 2026-12-31",
                    i + 1,
                    w.expires
                ),
            });
        }
        out.push(w);
    }
    Ok(out)
}

fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

/// Applies the waivers to the criteria; `today` is `YYYY-MM-DD` (UTC).
pub fn apply(criteria: &mut [Criterion], waivers: Vec<Waiver>, today: &str) -> Vec<WaiverUse> {
    let mut uses: Vec<WaiverUse> = waivers
        .into_iter()
        .map(|w| {
            let expired = w.expires.as_str() < today;
            WaiverUse {
                note: if expired {
                    format!("expired on {}: does not apply", w.expires)
                } else {
                    String::new()
                },
                waiver: w,
                expired,
                covered: Vec::new(),
            }
        })
        .collect();
    for c in criteria.iter_mut() {
        if !c.status.blocks() {
            continue;
        }
        let blocking: Vec<usize> = (0..c.evidence.len())
            .filter(|&i| c.evidence[i].status.blocks())
            .collect();
        let mut all_covered = true;
        let mut any = false;
        if blocking.is_empty() {
            // A criterion without items (not-run, vacuous with nothing listed): only a waiver
            // without `match` covers it.
            match uses.iter().position(|u| {
                !u.expired && u.waiver.criterion == c.id && u.waiver.matches.is_none()
            }) {
                Some(w) => {
                    uses[w].covered.push("*".into());
                    any = true;
                }
                None => all_covered = false,
            }
        }
        for i in blocking {
            let e = &c.evidence[i];
            let w = uses.iter().position(|u| {
                !u.expired
                    && u.waiver.criterion == c.id
                    && u.waiver
                        .matches
                        .as_deref()
                        .is_none_or(|m| m == e.id || m.eq_ignore_ascii_case(&e.id))
            });
            match w {
                Some(w) => {
                    uses[w].covered.push(e.id.clone());
                    c.evidence[i].waived_by = Some(w);
                    any = true;
                }
                None => all_covered = false,
            }
        }
        if any && all_covered {
            c.status = Status::Waived;
            c.summary = format!("waived: {}", c.summary);
        }
    }
    for u in &mut uses {
        if u.expired {
            continue;
        }
        u.note = if u.covered.is_empty() {
            "matched nothing that fails".into()
        } else {
            format!("covers {}", u.covered.join(", "))
        };
    }
    uses
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Evidence;

    fn crit(items: &[&str]) -> Criterion {
        Criterion {
            id: "verify.differences".into(),
            stage: "verify".into(),
            status: Status::Fail,
            value: Some(1.0),
            measured: String::new(),
            threshold: String::new(),
            summary: "x".into(),
            evidence: items
                .iter()
                .map(|i| Evidence {
                    kind: "table".into(),
                    id: i.to_string(),
                    status: Status::Fail,
                    ..Evidence::default()
                })
                .collect(),
            status_before_waivers: Status::Fail,
        }
    }

    fn w(m: Option<&str>, expires: &str) -> Waiver {
        Waiver {
            criterion: "verify.differences".into(),
            matches: m.map(str::to_string),
            reason: "r".into(),
            owner: "o".into(),
            expires: expires.into(),
        }
    }

    #[test]
    fn waivers_cover_matching_evidence_until_they_expire() {
        let mut c = vec![crit(&["t1", "t2"])];
        apply(&mut c, vec![w(Some("t1"), "2099-01-01")], "2026-12-04");
        assert_eq!(c[0].status, Status::Fail, "t2 is not covered");
        let mut c = vec![crit(&["t1", "t2"])];
        apply(
            &mut c,
            vec![w(Some("t1"), "2099-01-01"), w(Some("t2"), "2099-01-01")],
            "2026-12-04",
        );
        assert_eq!(c[0].status, Status::Waived);
        let mut c = vec![crit(&["t1"])];
        let uses = apply(&mut c, vec![w(None, "2026-12-03")], "2026-12-04");
        assert_eq!(c[0].status, Status::Fail);
        assert!(uses[0].expired && uses[0].note.contains("expired"));
        let mut c = vec![crit(&["t1"])];
        apply(&mut c, vec![w(None, "2026-12-04")], "2026-12-04");
        assert_eq!(c[0].status, Status::Waived, "holds through its day");
    }

    #[test]
    fn bad_waiver_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.toml");
        let known = ["verify.differences"];
        std::fs::write(&p, "[[waiver]]\ncriterion = \"verify.diffs\"\nreason = \"r\"\nowner = \"o\"\nexpires = 2026-12-31\n").unwrap();
        assert!(
            load(&p, &known)
                .unwrap_err()
                .to_string()
                .contains("unknown criterion")
        );
        std::fs::write(&p, "[[waiver]]\ncriterion = \"verify.differences\"\nreason = \"r\"\nowner = \"o\"\nexpires = \"next week\"\n").unwrap();
        assert!(load(&p, &known).unwrap_err().to_string().contains("a date"));
        std::fs::write(&p, "[[waiver]]\ncriterion = \"verify.differences\"\nreason = \"r\"\nexpires = 2026-12-31\n").unwrap();
        assert!(load(&p, &known).unwrap_err().to_string().contains("owner"));
        std::fs::write(&p, "[[waiver]]\ncriterion = \"verify.differences\"\nmatch = \"t1\"\nreason = \"r\"\nowner = \"o\"\nexpires = 2026-12-31\n").unwrap();
        assert_eq!(load(&p, &known).unwrap()[0].expires, "2026-12-31");
    }
}
