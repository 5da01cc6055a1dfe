//! The header every stage result carries, so that a JSON file says what it is (a versioned `schema`
//! id), who wrote it, when, from which inputs and against which servers. `cutover report` reads stage
//! results back by their schema id and checks that they describe the same capture and databases.

use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// What a JSON document is: `cutover.<stage>/<layout version>`. The version changes when a field
/// changes meaning or is removed; added fields keep it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaId(pub &'static str);

impl SchemaId {
    pub const DIGEST: SchemaId = SchemaId("cutover.digest/1");
    pub const AUDIT: SchemaId = SchemaId("cutover.audit/1");
    pub const REPLAY: SchemaId = SchemaId("cutover.replay/1");
    pub const VERIFY: SchemaId = SchemaId("cutover.verify/1");
    pub const VERIFY_WATCH: SchemaId = SchemaId("cutover.verify-watch/1");

    /// The stage part (`audit` of `cutover.audit/1`).
    pub fn stage(self) -> &'static str {
        self.0
            .strip_prefix("cutover.")
            .and_then(|s| s.split('/').next())
            .unwrap_or(self.0)
    }
}

/// The program that wrote a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Default for Tool {
    fn default() -> Tool {
        Tool {
            name: "cutover".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// An input file as read: its path and, when it was read to the end, its size and content hash
/// (xxh3-64 of the bytes on disk, hex), so two results can be shown to come from the same capture.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputRef {
    pub path: String,
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub xxh3: Option<String>,
    /// Where and why reading stopped before the end: the result covers only what came before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damaged: Option<String>,
}

impl InputRef {
    pub fn path(path: impl Into<String>) -> InputRef {
        InputRef {
            path: path.into(),
            ..InputRef::default()
        }
    }
}

/// The servers a stage talked to, as URLs with their passwords masked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoints {
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub target: Option<String>,
}

/// The common head of every stage result (flattened into its JSON object).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// `cutover.<stage>/<version>`.
    pub schema: String,
    pub tool: Tool,
    /// When the stage started and finished (ISO 8601, UTC, microseconds).
    pub started: String,
    pub finished: String,
    #[serde(default)]
    pub inputs: Vec<InputRef>,
    #[serde(default)]
    pub endpoints: Endpoints,
}

impl Header {
    /// A header for a stage starting now.
    pub fn start(schema: SchemaId) -> Header {
        let now = now_iso();
        Header {
            schema: schema.0.to_string(),
            tool: Tool::default(),
            started: now.clone(),
            finished: now,
            inputs: Vec::new(),
            endpoints: Endpoints::default(),
        }
    }

    /// The inputs that could not be read to their end, with where and why.
    pub fn damaged_inputs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.inputs
            .iter()
            .filter_map(|i| Some((i.path.as_str(), i.damaged.as_deref()?)))
    }

    /// Marks the stage finished now.
    pub fn finish(&mut self) {
        self.finished = now_iso();
    }

    /// Seconds between start and finish (0 when either does not parse).
    pub fn elapsed_s(&self) -> f64 {
        match (
            super::time::parse_iso_micros(&self.started),
            super::time::parse_iso_micros(&self.finished),
        ) {
            (Some(a), Some(b)) => (b - a).max(0) as f64 / 1e6,
            _ => 0.0,
        }
    }
}

/// The current time in the format results use.
pub fn now_iso() -> String {
    let us = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    super::time::format_iso_micros(us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_names_its_stage() {
        let mut h = Header::start(SchemaId::AUDIT);
        h.inputs.push(InputRef::path("app.log"));
        h.finish();
        let back: Header = serde_json::from_str(&serde_json::to_string(&h).unwrap()).unwrap();
        assert_eq!(back, h);
        assert_eq!(SchemaId::AUDIT.stage(), "audit");
        assert!(h.elapsed_s() >= 0.0);
    }
}
