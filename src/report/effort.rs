//! Effort: per failing or warning statement class, whether its fix is automatic or manual, its cost
//! in units (5 minutes each, ora2pg's COST_UNIT_VALUE) from `checklists/effort.toml` (data, apart
//! from the rule catalogs), total person-days and a migration level (A automatic, B manual but
//! mechanical, C needs a redesign).

use super::inputs::ReportError;
use crate::audit::{AuditReport, Verdict};
use crate::profile::Severity;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const BUILT_IN: &str = include_str!("../../checklists/effort.toml");

#[derive(Clone, Debug, Deserialize)]
struct Cost {
    units: f64,
    level: char,
}

/// The cost table.
#[derive(Clone, Debug, Deserialize)]
pub struct EffortCosts {
    unit_minutes: f64,
    automatic_units: f64,
    test_units: f64,
    category: BTreeMap<String, Cost>,
    default: Cost,
    #[serde(default)]
    rule: BTreeMap<String, Cost>,
}

impl EffortCosts {
    pub fn built_in() -> EffortCosts {
        toml::from_str(BUILT_IN).expect("the shipped effort costs parse (tested)")
    }

    pub fn parse(text: &str) -> Result<EffortCosts, ReportError> {
        let c: EffortCosts =
            toml::from_str(text).map_err(|e| ReportError::Effort(e.to_string()))?;
        for (k, v) in c
            .category
            .iter()
            .chain(&c.rule)
            .chain([(&"default".to_string(), &c.default)])
        {
            if !matches!(v.level, 'A' | 'B' | 'C') {
                return Err(ReportError::Effort(format!(
                    "{k}: level {:?} is not A, B or C",
                    v.level
                )));
            }
        }
        Ok(c)
    }

    fn cost(&self, rule: &str, category: &str) -> &Cost {
        self.rule
            .get(rule)
            .or_else(|| self.category.get(category))
            .unwrap_or(&self.default)
    }
}

/// One statement class to fix.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EffortClass {
    pub fingerprint_id: String,
    pub fingerprint: String,
    /// `fail` or `warn`.
    pub verdict: String,
    pub executions: u64,
    /// `automatic` (cutover's rewrite) or `manual`.
    pub fix: String,
    pub rules: Vec<String>,
    pub units: f64,
    pub level: char,
}

/// The estimate.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EffortReport {
    pub classes: Vec<EffortClass>,
    pub automatic: usize,
    pub manual: usize,
    pub units: f64,
    pub unit_minutes: f64,
    /// units × unit_minutes / 420 (a 7-hour day).
    pub person_days: f64,
    /// The highest level of any class; `A` when nothing needs fixing.
    pub level: char,
}

pub fn estimate(audits: &[AuditReport], costs: &EffortCosts) -> EffortReport {
    let mut classes = Vec::new();
    for st in audits.iter().flat_map(|a| &a.statements) {
        if st.verdict == Verdict::Ok {
            continue;
        }
        let severity = if st.verdict == Verdict::Fail {
            Severity::Error
        } else {
            Severity::Warning
        };
        let findings: Vec<_> = st
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .collect();
        let rules: Vec<String> = findings.iter().map(|f| f.rule.clone()).collect();
        let (units, level, fix) = if st.rewrite.is_some() {
            (costs.automatic_units + costs.test_units, 'A', "automatic")
        } else {
            let units = findings
                .iter()
                .map(|f| costs.cost(&f.rule, &f.category).units)
                .sum::<f64>()
                + costs.test_units;
            let level = findings
                .iter()
                .map(|f| costs.cost(&f.rule, &f.category).level)
                .max()
                .unwrap_or('B');
            (units, level, "manual")
        };
        classes.push(EffortClass {
            fingerprint_id: st.fingerprint_id.clone(),
            fingerprint: st.fingerprint.clone(),
            verdict: if st.verdict == Verdict::Fail {
                "fail".into()
            } else {
                "warn".into()
            },
            executions: st.count,
            fix: fix.into(),
            rules,
            units,
            level,
        });
    }
    classes.sort_by(|a, b| {
        b.units
            .partial_cmp(&a.units)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.executions.cmp(&a.executions))
    });
    let units: f64 = classes.iter().map(|c| c.units).sum();
    EffortReport {
        automatic: classes.iter().filter(|c| c.fix == "automatic").count(),
        manual: classes.iter().filter(|c| c.fix == "manual").count(),
        level: classes.iter().map(|c| c.level).max().unwrap_or('A'),
        person_days: units * costs.unit_minutes / 420.0,
        unit_minutes: costs.unit_minutes,
        units,
        classes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_costs_parse_and_cover_every_category() {
        let c = EffortCosts::parse(BUILT_IN).unwrap();
        for cat in [
            "case",
            "ddl",
            "dml",
            "functions",
            "input",
            "lexical",
            "parser",
            "schema",
            "semantics",
            "session",
            "timeseries",
            "transactions",
            "types",
        ] {
            assert!(c.category.contains_key(cat), "{cat}");
        }
        assert!(EffortCosts::parse(&BUILT_IN.replace("level = \"C\"", "level = \"Z\"")).is_err());
    }
}
