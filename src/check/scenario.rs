//! The check scenario file: one TOML file naming the capture, the servers, and each stage's settings.
//! Paths in it are relative to the file, as in replay scenarios (`replays/*.toml`).
//!
//! ```toml
//! logs = ["../corpora/sysbench/general-text.log.gz"]   # what every stage reads
//! source = "mysql://root@127.0.0.1:3306/shop"           # the MySQL source
//! target = "postgres://postgres@127.0.0.1:5432/shop"    # no target: no replay, no verify
//! profile = "postgres"                                  # default: the target URL's scheme
//! log_timezone = "+00:00"
//!
//! [audit]                   # optional
//! schema = "schema.sql"     # MySQL DDL; or schema_from_source = true; checklists = "DIR"
//!
//! [replay]                  # the options of `cutover replay` (replay scenario keys), optional
//! mode = "reads"
//! speed = 10.0
//! rewrite = true
//!
//! [verify]                  # without this section verify is not run
//! tables = ["sbtest1"]      # default: every base table of the source database
//!
//! [report]                  # optional
//! gate = "../checklists/gate.toml"
//! waivers = "waivers.toml"
//! baseline = "old/report.json"
//! ```

use crate::db::Endpoint;
use crate::replay::{ReplayOptions, ReplaySettings, ScenarioError};
use crate::workload::time::parse_utc_offset;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    logs: Vec<PathBuf>,
    source: Option<String>,
    target: Option<String>,
    profile: Option<String>,
    log_timezone: Option<String>,
    #[serde(default)]
    audit: AuditSection,
    replay: Option<ReplaySettings>,
    verify: Option<VerifySection>,
    #[serde(default)]
    report: ReportSection,
}

/// `[audit]`: where the MySQL schema comes from, and edited catalogs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSection {
    /// MySQL DDL (mysqldump --no-data output), relative to the scenario.
    pub schema: Option<PathBuf>,
    /// Read the schema from the source's information_schema instead.
    #[serde(default)]
    pub schema_from_source: bool,
    /// Target profiles from this directory instead of the built-in ones.
    pub checklists: Option<PathBuf>,
}

/// `[verify]`: what `cutover verify` checks. Its presence is what runs verify.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifySection {
    /// Tables to check (default: every base table of the source database).
    pub tables: Option<Vec<String>>,
    /// The target schema holding the tables (PostgreSQL: set as the search_path).
    pub target_schema: Option<String>,
    /// A condition both sides apply.
    #[serde(rename = "where")]
    pub where_clause: Option<String>,
    pub chunk_rows: Option<u64>,
    pub threads: Option<usize>,
    /// Re-check each difference on the latest data before reporting it.
    pub live: Option<bool>,
}

/// `[report]`: the gate, the waivers and an earlier report to compare with.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSection {
    pub gate: Option<PathBuf>,
    pub waivers: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
}

/// A check scenario, read and checked: paths made relative to the current directory, URLs parsed,
/// the replay's settings resolved. Nothing in it has touched a server.
#[derive(Clone, Debug)]
pub struct CheckScenario {
    /// The file it came from.
    pub path: PathBuf,
    /// The file's name without `.toml`: the default output folder.
    pub name: String,
    pub logs: Vec<PathBuf>,
    pub source: Option<Endpoint>,
    pub target: Option<Endpoint>,
    /// The target profile id (`profile`, else the one the target URL names).
    pub profile: Option<String>,
    pub capture: crate::capture::CaptureOptions,
    pub audit: AuditSection,
    /// The replay to run; `None` when the scenario has no target (or no logs).
    pub replay: Option<ReplayOptions>,
    /// Verify's section; `None` when the scenario has none (or no target).
    pub verify: Option<VerifySection>,
    pub report: ReportSection,
    /// Why a stage is left out: (stage, reason), for the progress lines and the printout.
    pub left_out: Vec<(&'static str, String)>,
}

fn invalid(path: &Path, m: impl std::fmt::Display) -> ScenarioError {
    ScenarioError::Invalid(format!("{}: {m}", path.display()))
}

impl CheckScenario {
    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<CheckScenario, ScenarioError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: shown.clone(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Checks the text of a scenario file found at `path` (paths are relative to its directory).
    pub fn parse(text: &str, path: &Path) -> Result<CheckScenario, ScenarioError> {
        let f: File = toml::from_str(text).map_err(|e| ScenarioError::Parse {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let rel = |p: PathBuf| if p.is_absolute() { p } else { dir.join(p) };
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "check".into());
        let logs: Vec<PathBuf> = f.logs.into_iter().map(rel).collect();
        let source = match &f.source {
            Some(s) => {
                let e = Endpoint::parse(s)?;
                e.require_mysql_source("source")?;
                Some(e)
            }
            None => None,
        };
        let target = f.target.as_deref().map(Endpoint::parse).transpose()?;
        let profile = f.profile.clone().or_else(|| {
            target
                .as_ref()
                .and_then(crate::profile::default_for)
                .map(str::to_string)
        });
        let tz = f.log_timezone.clone().unwrap_or_else(|| "+00:00".into());
        let Some(offset) = parse_utc_offset(&tz) else {
            return Err(invalid(
                path,
                format!(
                    "log_timezone {tz:?} is not a UTC offset; write it like +08:00, -05:30 or UTC"
                ),
            ));
        };
        let capture = crate::capture::CaptureOptions {
            naive_utc_offset_s: offset,
            ..crate::capture::CaptureOptions::default()
        };
        let mut left_out = Vec::new();
        if logs.is_empty() {
            left_out.push((
                "audit",
                "the scenario names no capture (logs = [...])".into(),
            ));
        } else if profile.is_none() {
            return Err(invalid(
                path,
                "the audit needs a target profile: profile = \"postgres\" (or kingbase, kaiwudb), or a postgres://, kingbase:// or kaiwudb:// target",
            ));
        }
        let mut audit = f.audit;
        audit.schema = audit.schema.map(rel);
        audit.checklists = audit.checklists.map(rel);
        if audit.schema.is_some() && audit.schema_from_source {
            return Err(invalid(
                path,
                "[audit] give schema = \"FILE.sql\" or schema_from_source = true, not both",
            ));
        }
        if audit.schema_from_source && source.is_none() {
            return Err(invalid(
                path,
                "[audit] schema_from_source = true needs source = \"mysql://…\"",
            ));
        }

        let section = f.replay.unwrap_or_default();
        for (set, key) in [
            (!section.logs.is_empty(), "logs"),
            (section.source.is_some(), "source"),
            (section.target.is_some(), "target"),
            (section.profile.is_some(), "profile"),
            (section.log_timezone.is_some(), "log_timezone"),
        ] {
            if set {
                return Err(invalid(
                    path,
                    format!(
                        "[replay] {key}: write it at the top of the scenario, where every stage reads it"
                    ),
                ));
            }
        }
        let replay = match (&target, logs.is_empty()) {
            (None, _) => {
                left_out.push(("replay", "the scenario has no target".into()));
                None
            }
            (Some(_), true) => {
                left_out.push((
                    "replay",
                    "the scenario names no capture (logs = [...])".into(),
                ));
                None
            }
            (Some(_), false) => {
                if source.is_none() {
                    return Err(invalid(
                        path,
                        "the replay needs source = \"mysql://user@host:3306/db\" (the MySQL the capture came from)",
                    ));
                }
                let settings = ReplaySettings {
                    logs: logs.clone(),
                    source: f.source.clone(),
                    target: f.target.clone(),
                    profile: profile.clone(),
                    log_timezone: Some(tz.clone()),
                    ..section
                };
                Some(
                    settings
                        .resolve()
                        .map_err(|e| invalid(path, format!("[replay] {e}")))?,
                )
            }
        };
        let verify = match (f.verify, &target) {
            (None, _) => {
                left_out.push(("verify", "the scenario has no [verify] section".into()));
                None
            }
            (Some(_), None) => {
                left_out.push(("verify", "the scenario has no target".into()));
                None
            }
            (Some(v), Some(_)) => {
                let Some(s) = &source else {
                    return Err(invalid(
                        path,
                        "[verify] needs source = \"mysql://user@host:3306/db\"",
                    ));
                };
                let why = "verify compares the tables of one database";
                s.require_database("source", why)?;
                if let Some(t) = &target {
                    t.require_database("target", why)?;
                }
                if v.chunk_rows == Some(0) {
                    return Err(invalid(path, "[verify] chunk_rows must be at least 1"));
                }
                Some(v)
            }
        };
        let mut report = f.report;
        report.gate = report.gate.map(rel);
        report.waivers = report.waivers.map(rel);
        report.baseline = report.baseline.map(rel);
        Ok(CheckScenario {
            path: path.to_path_buf(),
            name,
            logs,
            source,
            target,
            profile,
            capture,
            audit,
            replay,
            verify,
            report,
            left_out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = r#"
logs = ["../corpora/x.log.gz"]
source = "mysql://root@127.0.0.1:3306/shop"
target = "postgres://postgres@127.0.0.1:5432/shop"

[replay]
mode = "reads"
speed = 10.0
rewrite = true

[verify]
tables = ["a", "b"]

[report]
gate = "../checklists/gate.toml"
"#;

    #[test]
    fn paths_are_relative_to_the_file_and_the_profile_follows_the_target() {
        let s = CheckScenario::parse(FULL, Path::new("replays/check-x.toml")).unwrap();
        assert_eq!(s.name, "check-x");
        assert_eq!(s.logs, vec![PathBuf::from("replays/../corpora/x.log.gz")]);
        assert_eq!(
            s.report.gate,
            Some(PathBuf::from("replays/../checklists/gate.toml"))
        );
        assert_eq!(s.profile.as_deref(), Some("postgres"));
        let r = s.replay.unwrap();
        assert!(r.rewrite);
        assert_eq!(r.pace, crate::replay::Pace::Speed(10.0));
        assert_eq!(
            s.verify.unwrap().tables,
            Some(vec!["a".to_string(), "b".to_string()])
        );
        assert!(s.left_out.is_empty());
    }

    #[test]
    fn stages_left_out_say_why() {
        let text = FULL.replace("[verify]\ntables = [\"a\", \"b\"]\n", "");
        let s = CheckScenario::parse(&text, Path::new("c.toml")).unwrap();
        assert!(s.verify.is_none());
        assert_eq!(s.left_out[0].0, "verify");
        let s = CheckScenario::parse(
            "logs = [\"a.log\"]\nprofile = \"postgres\"\n[verify]\n",
            Path::new("c.toml"),
        )
        .unwrap();
        assert!(s.replay.is_none() && s.verify.is_none());
        assert_eq!(s.left_out.len(), 2);
    }

    #[test]
    fn bad_scenarios_are_refused_before_any_connection() {
        for (text, says) in [
            (FULL.replace("speed = 10.0", "speed = 0.0"), "[replay]"),
            (
                FULL.replace("mode = \"reads\"", "mode = \"all\""),
                "allow-writes",
            ),
            (
                FULL.replace("[replay]", "[replay]\nlogs = [\"b\"]"),
                "top of the scenario",
            ),
            (FULL.replace("tables =", "tabels ="), "unknown field"),
            (
                "logs = [\"a.log\"]\ntarget = \"mysql://root@h/db\"".to_string(),
                "target profile",
            ),
            (
                FULL.replace("source = \"mysql://root@127.0.0.1:3306/shop\"\n", ""),
                "needs source",
            ),
        ] {
            let e = CheckScenario::parse(&text, Path::new("c.toml"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{e} (wanted {says})");
        }
    }
}
