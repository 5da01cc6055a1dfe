//! Replay settings from a scenario file (`replays/*.toml`) and from the command line: flags override
//! the file, the file overrides the defaults. Resolving them checks everything a replay needs before
//! any connection is made.

use super::plan::Mode;
use super::stats::RegressionRule;
use super::{Pace, ReplayOptions};
use crate::capture::CaptureOptions;
use crate::db::Endpoint;
use crate::workload::time::{parse_duration, parse_utc_offset};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Replay settings as a scenario file holds them, or as flags give them; every field optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplaySettings {
    #[serde(default)]
    pub logs: Vec<PathBuf>,
    pub source: Option<String>,
    pub target: Option<String>,
    pub profile: Option<String>,
    pub speed: Option<f64>,
    pub max_speed: Option<bool>,
    pub mode: Option<Mode>,
    pub allow_writes: Option<bool>,
    pub rewrite: Option<bool>,
    pub free_order: Option<bool>,
    pub break_lock_cycles: Option<bool>,
    pub duration: Option<String>,
    pub shard: Option<String>,
    pub threshold: Option<f64>,
    pub alpha: Option<f64>,
    pub log_timezone: Option<String>,
    pub max_connections: Option<u64>,
    pub release_idle: Option<String>,
}

/// Why the settings do not make a replay.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read the scenario {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    #[error(transparent)]
    Profile(#[from] crate::profile::CatalogError),
}

impl ReplaySettings {
    /// Reads a scenario file; its log paths are relative to the file.
    pub fn load(path: &Path) -> Result<ReplaySettings, ScenarioError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
            path: shown.clone(),
            source,
        })?;
        let mut s: ReplaySettings = toml::from_str(&text).map_err(|e| ScenarioError::Parse {
            path: shown,
            message: e.to_string(),
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        s.logs = s
            .logs
            .into_iter()
            .map(|l| if l.is_absolute() { l } else { dir.join(l) })
            .collect();
        Ok(s)
    }

    /// These settings where given, `base` for the rest. A `speed` given here also overrides the
    /// base's `max_speed`.
    pub fn over(self, base: ReplaySettings) -> ReplaySettings {
        let max_speed = match (self.max_speed, self.speed) {
            (Some(m), _) => Some(m),
            (None, Some(_)) => Some(false),
            (None, None) => base.max_speed,
        };
        ReplaySettings {
            logs: if self.logs.is_empty() {
                base.logs
            } else {
                self.logs
            },
            source: self.source.or(base.source),
            target: self.target.or(base.target),
            profile: self.profile.or(base.profile),
            speed: self.speed.or(base.speed),
            max_speed,
            mode: self.mode.or(base.mode),
            allow_writes: self.allow_writes.or(base.allow_writes),
            rewrite: self.rewrite.or(base.rewrite),
            free_order: self.free_order.or(base.free_order),
            break_lock_cycles: self.break_lock_cycles.or(base.break_lock_cycles),
            duration: self.duration.or(base.duration),
            shard: self.shard.or(base.shard),
            threshold: self.threshold.or(base.threshold),
            alpha: self.alpha.or(base.alpha),
            log_timezone: self.log_timezone.or(base.log_timezone),
            max_connections: self.max_connections.or(base.max_connections),
            release_idle: self.release_idle.or(base.release_idle),
        }
    }

    /// The replay these settings describe, with the defaults filled in.
    pub fn resolve(self) -> Result<ReplayOptions, ScenarioError> {
        let bad = |m: String| Err(ScenarioError::Invalid(m));
        if self.logs.is_empty() {
            return bad("no log to replay: give LOG... or a --scenario with logs = [...]".into());
        }
        let Some(source) = self.source else {
            return bad(
                "--source mysql://user:pass@host:3306/db is required (or source = \"…\" in the scenario)"
                    .into(),
            );
        };
        let source = Endpoint::parse(&source)?;
        source.require_mysql_source("--source")?;
        let target = self.target.map(|t| Endpoint::parse(&t)).transpose()?;
        let mode = self.mode.unwrap_or(Mode::Reads);
        if mode == Mode::All && !self.allow_writes.unwrap_or(false) {
            return bad("--mode all writes to both databases: use it on restored copies only, and say so with --allow-writes".into());
        }
        let pace = if self.max_speed.unwrap_or(false) {
            Pace::Max
        } else {
            let s = self.speed.unwrap_or(1.0);
            if !(s > 0.0 && s.is_finite()) {
                return bad(format!(
                    "--speed {s}: give a positive factor (1 = the recorded pace)"
                ));
            }
            Pace::Speed(s)
        };
        let shard = match self.shard {
            None => None,
            Some(s) => {
                let parsed = s.split_once('/').and_then(|(k, n)| {
                    Some((k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
                });
                match parsed {
                    Some((k, n)) if n > 0 && k < n => Some((k, n)),
                    _ => {
                        return bad(format!(
                            "--shard {s:?}: write it as K/N with 0 <= K < N, e.g. 0/4"
                        ));
                    }
                }
            }
        };
        let rewrite = self.rewrite.unwrap_or(false);
        let profile_id = self.profile.or_else(|| {
            target
                .as_ref()
                .and_then(crate::profile::default_for)
                .map(str::to_string)
        });
        let profile = match (&profile_id, rewrite) {
            (Some(p), _) => Some(crate::profile::load_profile(p, None)?),
            (None, true) => {
                return bad("--rewrite needs --profile postgres|kingbase|kaiwudb".into());
            }
            (None, false) => None,
        };
        let duration = self
            .duration
            .map(|d| parse_duration(&d))
            .transpose()
            .map_err(ScenarioError::Invalid)?;
        let release_idle = match self.release_idle {
            None => super::worker::DEFAULT_RELEASE_IDLE,
            Some(d) => {
                let d = parse_duration(&d).map_err(ScenarioError::Invalid)?;
                if d.is_zero() {
                    return bad("--release-idle 0: give a duration like 1s or 500ms".into());
                }
                d
            }
        };
        let tz = self.log_timezone.unwrap_or_else(|| "+00:00".into());
        let Some(offset) = parse_utc_offset(&tz) else {
            return bad(format!(
                "--log-timezone {tz:?} is not a UTC offset; write it like +08:00, -05:30 or UTC"
            ));
        };
        let mut regression = RegressionRule::default();
        if let Some(t) = self.threshold {
            regression.threshold = t;
        }
        if let Some(a) = self.alpha {
            regression.alpha = a;
        }
        Ok(ReplayOptions {
            logs: self.logs,
            capture: CaptureOptions {
                naive_utc_offset_s: offset,
                ..CaptureOptions::default()
            },
            source,
            target,
            profile,
            rewrite,
            rewrites: None,
            pace,
            mode,
            duration,
            shard,
            regression,
            tolerance: Default::default(),
            examples: 3,
            keep_order: mode == Mode::All && !self.free_order.unwrap_or(false),
            break_lock_cycles: self.break_lock_cycles.unwrap_or(false),
            progress: false,
            max_connections: self.max_connections,
            release_idle,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(f: impl FnOnce(&mut ReplaySettings)) -> ReplaySettings {
        let mut s = ReplaySettings::default();
        f(&mut s);
        s
    }

    #[test]
    fn flags_override_the_file_and_defaults_fill_the_rest() {
        let file = flags(|s| {
            s.logs = vec!["a.log".into()];
            s.source = Some("mysql://u@h/db".into());
            s.max_speed = Some(true);
            s.mode = Some(Mode::All);
            s.allow_writes = Some(true);
        });
        let o = flags(|s| s.speed = Some(2.0))
            .over(file.clone())
            .resolve()
            .unwrap();
        assert_eq!(o.pace, Pace::Speed(2.0));
        assert!(o.keep_order);
        let o = ReplaySettings::default().over(file).resolve().unwrap();
        assert_eq!(o.pace, Pace::Max);
        assert_eq!(o.regression.threshold, 0.2);
    }

    #[test]
    fn bad_settings_are_refused() {
        let base = flags(|s| {
            s.logs = vec!["a.log".into()];
            s.source = Some("mysql://u@h/db".into());
        });
        for f in [
            flags(|s| s.mode = Some(Mode::All)),
            flags(|s| s.speed = Some(0.0)),
            flags(|s| s.shard = Some("2/2".into())),
            flags(|s| s.rewrite = Some(true)),
            flags(|s| s.duration = Some("soon".into())),
        ] {
            assert!(f.over(base.clone()).resolve().is_err());
        }
        assert!(ReplaySettings::default().resolve().is_err());
    }
}
