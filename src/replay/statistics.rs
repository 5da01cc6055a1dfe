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
const NEVER_ANALYZED: &str = "SELECT schemaname || '.' || relname FROM pg_stat_user_tables WHERE last_analyze IS NULL AND last_autoanalyze IS NULL AND n_live_tup > 0 ORDER BY n_live_tup DESC, 1";

/// Tables analyzed, then changed by more rows than they held when analyzed, plus the threshold
/// autovacuum starts from (its own, 50 rows by default, so that a small table's few changes are
/// not named): most often analyzed empty or nearly, then loaded. The planner scales the row count
/// by the table's current size, but its column statistics (distinct values, common values,
/// histograms) still describe the old table. A 10% drift (autovacuum's own trigger) is not named:
/// it rarely changes a plan, and a replay's own writes cause it. Most changed first.
const STALE: &str = "SELECT s.schemaname || '.' || s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid \
     WHERE (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL) AND s.n_live_tup > 0 \
     AND s.n_mod_since_analyze > GREATEST(c.reltuples, 0) + COALESCE( \
       (SELECT option_value::float8 FROM pg_options_to_table(c.reloptions) WHERE option_name = 'autovacuum_analyze_threshold'), \
       current_setting('autovacuum_analyze_threshold')::float8) \
     ORDER BY s.n_mod_since_analyze DESC, 1";

/// The tables of the side `s` is connected to without planner statistics, or with statistics of
/// a much smaller table; None on a MySQL-family side (InnoDB keeps persistent statistics by
/// itself and refreshes them after 10% of a table changed) or when the server cannot tell (no such
/// view: KaiwuDB).
pub(super) async fn unanalyzed(s: &mut Session) -> Option<Unanalyzed> {
    if s.engine() != Engine::Postgres {
        return None;
    }
    let never = names(s, NEVER_ANALYZED).await?;
    // A server with the first view and not the second (reloptions, GREATEST) still names the first.
    let stale = names(s, STALE).await.unwrap_or_default();
    Some(Unanalyzed {
        tables: never.len() as u64,
        examples: never.into_iter().take(EXAMPLES).collect(),
        stale: stale.len() as u64,
        stale_examples: stale.into_iter().take(EXAMPLES).collect(),
    })
}

/// The first column of `query`'s rows, as text.
async fn names(s: &mut Session, query: &str) -> Option<Vec<String>> {
    let o = s.execute(query).await.ok()?;
    Some(
        o.sets
            .first()
            .map(|set| {
                set.rows
                    .iter()
                    .filter_map(|r| r.first().and_then(|v| v.as_text()))
                    .collect()
            })
            .unwrap_or_default(),
    )
}
