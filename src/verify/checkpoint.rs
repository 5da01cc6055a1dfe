//! `--checkpoint`: finished tables and how far the current one got, so an interrupted run resumes.

use super::{options::*, report::*};
use serde::{Deserialize, Serialize};

/// What `--checkpoint` keeps: finished tables and how far the current one got.
#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(default)]
pub(super) struct Checkpoint {
    pub(super) source: String,
    pub(super) target: String,
    pub(super) where_clause: Option<String>,
    pub(super) chunk_rows: u64,
    pub(super) done: Vec<TableReport>,
    /// The table under way, its report so far, and the next key range start.
    pub(super) current: Option<(TableReport, i128)>,
}

impl Checkpoint {
    pub(super) fn load(opts: &VerifyOptions) -> Result<Checkpoint, VerifyError> {
        let fresh = Checkpoint {
            source: opts.source.to_string(),
            target: opts.target.to_string(),
            where_clause: opts.where_clause.clone(),
            chunk_rows: opts.chunk_rows,
            ..Default::default()
        };
        let Some(path) = &opts.checkpoint else {
            return Ok(fresh);
        };
        let Ok(text) = std::fs::read_to_string(path) else {
            return Ok(fresh);
        };
        let c: Checkpoint = serde_json::from_str(&text).map_err(|e| {
            VerifyError::Other(format!(
                "{}: not a cutover verify checkpoint ({e}); remove it to start over",
                path.display()
            ))
        })?;
        if (&c.source, &c.target, &c.where_clause, c.chunk_rows)
            != (
                &fresh.source,
                &fresh.target,
                &fresh.where_clause,
                fresh.chunk_rows,
            )
        {
            return Err(VerifyError::Other(format!(
                "{}: the checkpoint is of another run (source, target, --where or --chunk-rows differ); remove it to start over",
                path.display()
            )));
        }
        Ok(c)
    }

    pub(super) fn save(&self, opts: &VerifyOptions) -> Result<(), VerifyError> {
        let Some(path) = &opts.checkpoint else {
            return Ok(());
        };
        let tmp = path.with_extension("tmp");
        let text = serde_json::to_string(self).map_err(|e| VerifyError::Other(e.to_string()))?;
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| {
                VerifyError::Other(format!("cannot write checkpoint {}: {e}", path.display()))
            })
    }
}
