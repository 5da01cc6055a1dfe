//! One verify run: the snapshots on both servers, the schema checks, then every table.

use super::*;
use super::{checkpoint::*, options::*, report::*, table::*};
use crate::schema::Table;
use crate::workload::{Endpoints, Header, SchemaId};
use data::{Side, Throttle};
use encode::{EncodedColumn, TargetKind};
use plan::{KeyShape, Plan};
use std::time::Duration;

/// Every connection a run holds.
pub(super) struct Conns {
    pub(super) src: Side,
    pub(super) tgt: Side,
    /// Extra snapshot sessions for `--threads`.
    pub(super) pool: Vec<(Side, Side)>,
    /// Sessions on the latest data, for `--live`.
    pub(super) live: Option<(Side, Side)>,
    pub(super) throttle: Throttle,
}

/// Verifies every table once.
pub async fn verify(
    opts: &VerifyOptions,
    mut progress: impl FnMut(&str),
) -> Result<VerifyReport, VerifyError> {
    if let Some(w) = &opts.where_clause {
        filter::check_where(w).map_err(VerifyError::Other)?;
    }
    opts.source.require_mysql_source("--source")?;
    let why = "verify compares the tables of one database";
    opts.source.require_database("--source", why)?;
    opts.target.require_database("--target", why)?;
    let schema = crate::schema::source::schema_from_server(&opts.source).await?;
    // Both snapshots start together, before anything else is read.
    let (a, b) = tokio::join!(
        Side::snapshot(&opts.source, None),
        Side::snapshot(&opts.target, None)
    );
    let (src, mut tgt) = (a?, b?);
    let shared = tgt.export_snapshot().await;
    let mut pool = Vec::new();
    for _ in 1..opts.threads.max(1) {
        let (a, b) = tokio::join!(
            Side::snapshot(&opts.source, None),
            Side::snapshot(&opts.target, shared.as_deref())
        );
        pool.push((a?, b?));
    }
    let live = if opts.live {
        Some((
            Side::latest(&opts.source).await?,
            Side::latest(&opts.target).await?,
        ))
    } else {
        None
    };
    let monitors = if opts.max_load.is_some() {
        vec![
            crate::db::exec::Session::connect(&opts.source).await?,
            crate::db::exec::Session::connect(&opts.target).await?,
        ]
    } else {
        Vec::new()
    };
    let mut conns = Conns {
        src,
        tgt,
        pool,
        live,
        throttle: Throttle {
            max_running: opts.max_load,
            monitors,
            last_check: None,
            paused: Duration::ZERO,
        },
    };
    let tcols = check::target_columns(&mut conns.tgt).await?;
    let searched = check::searched_schemas(&mut conns.tgt).await?;
    if let Some(schema) = opts.target.schema()
        && !searched.iter().any(|s| s == schema)
    {
        return Err(VerifyError::Other(format!(
            "--target-schema {schema}: no such schema on the target {} (its search_path reaches: {})",
            opts.target,
            searched.join(", ")
        )));
    }
    // The profile whose type map says what each column becomes on the target: the one named, else
    // the one the target URL implies.
    let profile = match opts
        .profile
        .as_deref()
        .or_else(|| crate::profile::default_for(&opts.target))
    {
        Some(id) => Some(
            crate::profile::load_profile(id, None)
                .map_err(|e| VerifyError::Other(e.to_string()))?,
        ),
        None => None,
    };
    let mut fix = match &opts.fix_sql {
        Some(p) => Some(
            fix::FixWriter::create(
                p,
                opts.target.engine,
                &format!("make {} hold what {} holds", opts.target, opts.source),
            )
            .map_err(|e| VerifyError::Other(format!("cannot write {}: {e}", p.display())))?,
        ),
        None => None,
    };
    let mut ckpt = Checkpoint::load(opts)?;
    let mut header = Header::start(SchemaId::VERIFY);
    header.endpoints = Endpoints {
        source: Some(opts.source.to_string()),
        target: Some(opts.target.to_string()),
    };
    let mut report = VerifyReport {
        header,
        profile: opts.profile.clone(),
        live: opts.live,
        tables: Vec::new(),
        total_differences: 0,
        not_verified: Vec::new(),
        fix_statements: None,
        paused_seconds: 0.0,
        incomplete: Vec::new(),
    };
    let stop = opts.stop.clone();
    let on_signal = tokio::spawn(async move {
        crate::workload::signals::interrupt().await;
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let wanted: Vec<&Table> = match &opts.tables {
        Some(list) => {
            let mut v = Vec::new();
            for n in list {
                match schema.table(n) {
                    Some(t) => v.push(t),
                    None => {
                        return Err(VerifyError::Other(format!(
                            "table {n} is not in the source database {}",
                            opts.source
                        )));
                    }
                }
            }
            v
        }
        None => schema.tables.iter().collect(),
    };
    let total_tables = wanted.len();
    for (table_no, t) in wanted.into_iter().enumerate() {
        if opts.stop.load(std::sync::atomic::Ordering::SeqCst) {
            report.not_verified.push(t.name.clone());
            report.tables.push(TableReport {
                table: t.name.clone(),
                status: TableStatus::NotVerified,
                reason: Some("not reached: the run was interrupted".into()),
                ..Default::default()
            });
            continue;
        }
        if let Some(done) = ckpt.done.iter().find(|d| d.table == t.name) {
            report.tables.push(done.clone());
            continue;
        }
        progress(&format!(
            "table {} of {total_tables}: {}",
            table_no + 1,
            t.name
        ));
        let resume = ckpt.current.take().filter(|(tr, _)| tr.table == t.name);
        let mut tr = match &resume {
            Some((tr, _)) => tr.clone(),
            None => TableReport {
                table: t.name.clone(),
                status: TableStatus::Match,
                ..Default::default()
            },
        };
        let Some(tc) = tcols.get(&t.name.to_lowercase()) else {
            tr.status = TableStatus::Differ;
            tr.target_missing = true;
            // The source's rows are still counted: "source 0 rows" would hide what is missing.
            let count = format!(
                "SELECT COUNT(*) FROM {}",
                opts.source.engine.dialect().quote(&t.name)
            );
            tr.rows_source = conns
                .src
                .s
                .execute(&count)
                .await?
                .sets
                .first()
                .and_then(|s| s.rows.first())
                .and_then(|r| r.first())
                .and_then(|v| v.as_text())
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            tr.reason = Some(format!(
                "the table does not exist on the target (looked for in {}{})",
                match searched.as_slice() {
                    [one] => format!(
                        "{} {one}",
                        if opts.target.engine == crate::db::Engine::Postgres {
                            "schema"
                        } else {
                            "database"
                        }
                    ),
                    many => format!("schemas {}", many.join(", ")),
                },
                if opts.target.schema().is_none() {
                    "; give --target-schema if it is elsewhere"
                } else {
                    ""
                }
            ));
            report.tables.push(tr);
            continue;
        };
        let mut cols = Vec::new();
        let mut schema_notes = Vec::new();
        for c in &t.columns {
            match tc.get(&c.name.to_lowercase()) {
                None => schema_notes.push(format!("column {} is missing on the target", c.name)),
                Some(dt) => {
                    if let Some(p) =
                        check::type_problem(c, dt, opts.target.engine, profile.as_ref())
                    {
                        schema_notes.push(format!("column {}: {p}", c.name));
                    }
                    cols.push(EncodedColumn {
                        name: c.name.clone(),
                        mysql_type: c.mysql_type.clone(),
                        target: match dt.data_type.as_str() {
                            "boolean" => TargetKind::Bool,
                            "array" if c.mysql_type.base == "SET" => TargetKind::SetArray,
                            _ => TargetKind::Plain,
                        },
                        nullable: c.nullable,
                        collation: c.collation.clone().or_else(|| t.collation.clone()),
                        target_type: dt.literal_type(),
                    })
                }
            }
        }
        for extra in tc.keys().filter(|k| t.column(k).is_none()) {
            schema_notes.push(format!("column {extra} exists only on the target"));
        }
        for c in t.columns.iter().filter(|c| c.auto_increment) {
            if let Some((finding, repair)) =
                check::sequence_problem(&mut conns.tgt, &t.name, &c.name).await?
            {
                schema_notes.push(finding);
                if let (Some(f), Some(sql)) = (fix.as_mut(), repair) {
                    f.raw(&sql).map_err(io_error(opts))?;
                }
            }
        }
        if resume.is_none() {
            tr.schema = schema_notes;
        }
        let Some(plan) = choose_plan(t, cols, opts) else {
            tr.status = TableStatus::NotVerified;
            tr.reason =
                Some("a key column is missing on the target: rows cannot be matched".into());
            report.not_verified.push(t.name.clone());
            report.tables.push(tr);
            continue;
        };
        tr.key = plan.describe_key();
        if plan.shape == KeyShape::Multiset {
            tr.reason = Some("no primary or unique NOT NULL key: compared as a multiset of row hashes (a changed row shows as one missing and one extra)".into());
        }
        let start = resume.map(|(_, lo)| lo);
        verify_table(
            &plan,
            &mut conns,
            opts,
            &mut tr,
            fix.as_mut(),
            start,
            &mut ckpt,
            &mut progress,
        )
        .await?;
        if !tr.schema.is_empty() || tr.missing_in_target + tr.extra_in_target + tr.different > 0 {
            tr.status = TableStatus::Differ;
        }
        if opts.stop.load(std::sync::atomic::Ordering::SeqCst) {
            // Cut short: what it found stands, but it was not verified to the end, and the
            // checkpoint keeps its position (not "done") for the next run.
            if tr.status == TableStatus::Match {
                tr.status = TableStatus::NotVerified;
            }
            report.not_verified.push(t.name.clone());
            report.tables.push(tr);
            continue;
        }
        if opts.checkpoint.is_some() {
            ckpt.current = None;
            ckpt.done.push(tr.clone());
            ckpt.save(opts)?;
        }
        report.tables.push(tr);
    }
    for tr in &report.tables {
        report.total_differences += tr.missing_in_target
            + tr.extra_in_target
            + tr.different
            + tr.schema.len() as u64
            + u64::from(tr.target_missing);
    }
    if let Some(f) = fix {
        report.fix_statements = Some(f.finish().map_err(io_error(opts))?);
    }
    on_signal.abort();
    if opts.stop.load(std::sync::atomic::Ordering::SeqCst) {
        let reached = report
            .tables
            .iter()
            .filter(|t| t.status != TableStatus::NotVerified)
            .count();
        report.incomplete.push(format!(
            "interrupted by a signal (Ctrl-C or SIGTERM): {reached} of {total_tables} tables verified{}",
            if opts.checkpoint.is_some() {
                "; run the same command again to resume from the checkpoint"
            } else {
                "; with --checkpoint FILE a run resumes where it stopped"
            }
        ));
        // Keep the checkpoint: the next run resumes from it.
        return Ok(report);
    }
    report.paused_seconds = conns.throttle.paused.as_secs_f64();
    let _ = conns.src.s.run("ROLLBACK").await;
    let _ = conns.tgt.s.run("ROLLBACK").await;
    // A finished run needs no checkpoint: the next run starts afresh.
    if let Some(p) = &opts.checkpoint {
        let _ = std::fs::remove_file(p);
    }
    Ok(report)
}

pub(super) fn io_error(opts: &VerifyOptions) -> impl Fn(std::io::Error) -> VerifyError + '_ {
    move |e| {
        VerifyError::Other(format!(
            "cannot write {}: {e}",
            opts.fix_sql
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ))
    }
}

/// The key a table's rows are matched by: its primary key, else a unique key on NOT NULL columns,
/// else none (a multiset). None when a key column is missing on the target.
pub(super) fn choose_plan(
    t: &Table,
    cols: Vec<EncodedColumn>,
    opts: &VerifyOptions,
) -> Option<Plan> {
    let not_null_unique = t
        .unique_keys
        .iter()
        .find(|k| k.iter().all(|c| t.column(c).is_some_and(|c| !c.nullable)));
    let key_names: Vec<String> = if !t.primary_key.is_empty() {
        t.primary_key.clone()
    } else {
        not_null_unique.cloned().unwrap_or_default()
    };
    let mut key = Vec::new();
    for k in &key_names {
        key.push(
            cols.iter()
                .find(|c| c.name.eq_ignore_ascii_case(k))?
                .clone(),
        );
    }
    let shape = match key.as_slice() {
        [] => KeyShape::Multiset,
        [k] if k.mysql_type.is_integer() && k.target == TargetKind::Plain => KeyShape::IntRange,
        _ => KeyShape::Hashed,
    };
    Some(Plan {
        table: t.name.clone(),
        shape,
        key,
        cols,
        where_clause: opts.where_clause.clone(),
        // FORCE INDEX (PRIMARY) is what keeps MySQL's chunk in key order, and a MySQL target may
        // lack that key; MySQL→MySQL loses nothing, as MariaDB's GROUP_CONCAT costs what its
        // per-row hashes do (the ordered digest is PostgreSQL's saving).
        ordered: shape == KeyShape::IntRange
            && !t.primary_key.is_empty()
            && opts.target.engine != crate::db::Engine::MySql,
        byte_functions: opts.target.flavor != crate::db::Flavor::KaiwuDb,
    })
}
