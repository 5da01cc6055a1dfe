//! Whether a PostgreSQL-family side has planner statistics for its tables. A target loaded just
//! before the replay (pgloader, `cutover audit --emit-sql`) has none until autovacuum analyzes it,
//! and its planner then plans those tables blind: the TPC-C A/B ran its PostgreSQL side at 3% of
//! its analyzed rate, full of waits on locks its plans took in another order (2026-12-07,
//! BENCHMARKS.md). A replay says so instead of reporting those latencies as the target's.

use super::Unanalyzed;
use crate::db::Engine;
use crate::db::exec::Session;

/// How many of the unanalyzed tables the report names.
const EXAMPLES: usize = 10;

/// Tables with rows that were never analyzed, by hand or by autovacuum, largest first.
const QUERY: &str = "SELECT schemaname || '.' || relname FROM pg_stat_user_tables WHERE last_analyze IS NULL AND last_autoanalyze IS NULL AND n_live_tup > 0 ORDER BY n_live_tup DESC, 1";

/// The tables of the side `s` is connected to without planner statistics; None on a MySQL-family
/// side (InnoDB keeps persistent statistics by itself) or when the server cannot tell (no such
/// view: KaiwuDB).
pub(super) async fn unanalyzed(s: &mut Session) -> Option<Unanalyzed> {
    if s.engine() != Engine::Postgres {
        return None;
    }
    let o = s.execute(QUERY).await.ok()?;
    let names: Vec<String> = o
        .sets
        .first()
        .map(|set| {
            set.rows
                .iter()
                .filter_map(|r| r.first().and_then(|v| v.as_text()))
                .collect()
        })
        .unwrap_or_default();
    Some(Unanalyzed {
        tables: names.len() as u64,
        examples: names.into_iter().take(EXAMPLES).collect(),
    })
}
