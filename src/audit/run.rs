//! The library entry of `cutover audit`: load the profile and the schema, read the inputs, audit
//! every distinct statement, and (with `--live`) ask the real target.

use super::input::{self, DistinctStatement, InputError};
use super::live::LiveTarget;
use super::{AuditOptions, AuditReport, Context, audit_all, build_report, summarize, timeseries};
use crate::capture::CaptureOptions;
use crate::db::{DbError, Endpoint};
use crate::profile::{CatalogError, Profile, Rewrites, load_profile};
use crate::schema::{Schema, Table};
use crate::workload::{Header, InputRef, Progress, SchemaId, Unit};
use std::path::PathBuf;
use std::sync::Arc;

/// Where the MySQL schema comes from.
#[derive(Clone, Debug, Default)]
pub enum SchemaSource {
    #[default]
    None,
    /// MySQL DDL (`mysqldump --no-data`, or a full dump whose other statements are skipped).
    Ddl(PathBuf),
    /// The source server's information_schema, over a read-only connection.
    Server(Endpoint),
}

/// What `cutover audit` is asked to do.
#[derive(Clone, Debug)]
pub struct AuditRun {
    /// Logs and `.sql` scripts.
    pub inputs: Vec<PathBuf>,
    /// The target profile id: `postgres`, `kingbase`, `kingbase-pg`, `kaiwudb` (or any
    /// `checklists/NAME.toml`).
    pub profile: String,
    /// Read the profiles from this directory instead of the built-in ones.
    pub checklists: Option<PathBuf>,
    pub schema: SchemaSource,
    /// Ask this target about each statement, inside a transaction that is rolled back.
    pub live: Option<Endpoint>,
    /// With `live`: create the schema's tables there first (rolled back with the rest).
    pub live_setup: bool,
    /// Write the input scripts translated for the target here (`--emit-sql`).
    pub emit_sql: Option<PathBuf>,
    pub options: AuditOptions,
    pub capture: CaptureOptions,
}

impl AuditRun {
    pub fn new(inputs: Vec<PathBuf>, profile: &str) -> AuditRun {
        AuditRun {
            inputs,
            profile: profile.to_string(),
            checklists: None,
            schema: SchemaSource::None,
            live: None,
            live_setup: false,
            emit_sql: None,
            options: AuditOptions::default(),
            capture: CaptureOptions::default(),
        }
    }
}

/// Why an audit could not run.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Profile(#[from] CatalogError),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("{0}")]
    Schema(String),
    #[error(transparent)]
    Emit(#[from] super::emit::EmitError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// Audits the inputs of `r`.
pub fn run(r: &AuditRun, progress: &dyn Progress) -> Result<AuditReport, AuditError> {
    run_keeping(r, progress).map(|(report, _)| report)
}

/// Audits the inputs of `r` and hands over what a replay needs to rewrite the same capture for the
/// target (`replay --rewrite`): the findings per fingerprint and the audit's statement rewriter with
/// the profile and schema it used.
pub fn run_for_rewrites(
    r: &AuditRun,
    progress: &dyn Progress,
) -> Result<(AuditReport, Rewrites), AuditError> {
    let (report, (profile, schema)) = run_keeping(r, progress)?;
    let mut rewrites = report.rewrites();
    rewrites.statements = Some(Arc::new(super::AuditRewriter {
        profile,
        schema,
        options: r.options.clone(),
    }));
    Ok((report, rewrites))
}

/// The audit and the profile and schema it checked against.
fn run_keeping(
    r: &AuditRun,
    progress: &dyn Progress,
) -> Result<(AuditReport, (Profile, Option<Schema>)), AuditError> {
    let mut header = Header::start(SchemaId::AUDIT);
    let profile = load_profile(&r.profile, r.checklists.as_deref())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AuditError::Runtime)?;
    let (schema, schema_warnings) = load_schema(&r.schema, &runtime)?;
    if let SchemaSource::Server(ep) = &r.schema {
        header.endpoints.source = Some(ep.to_string());
    }
    let emitted = match &r.emit_sql {
        Some(out) => Some(super::emit::emit_sql(
            &r.inputs,
            out,
            &profile,
            schema.as_ref().map(|(s, _)| s),
        )?),
        None => None,
    };
    progress.phase("reading", None, Unit::Bytes);
    let got = input::read_inputs(
        &r.inputs,
        r.capture.clone(),
        r.emit_sql.is_some(),
        |done, total| {
            if let Some(t) = total {
                progress.phase("reading", Some(t), Unit::Bytes);
            }
            progress.done(done);
        },
    )?;
    progress.finish();
    header.inputs = if got.inputs.is_empty() {
        r.inputs
            .iter()
            .map(|p| InputRef::path(p.display().to_string()))
            .collect()
    } else {
        got.inputs.clone()
    };
    let mut notes = got.notes;
    notes.extend(schema_warnings);
    // A script's own CREATE TABLE statements are schema for its other statements (and for every
    // input's), under whatever schema was given.
    let schema = with_script_tables(schema, &r.inputs, &got.statements, &mut notes);
    let ctx = Context {
        profile: &profile,
        schema: schema.as_ref().map(|(s, _)| s),
        options: &r.options,
    };
    let statements = audit_all(&got.statements, &ctx);
    let mut report = build_report(
        &profile,
        header,
        schema.as_ref().map(|(s, n)| (s, n.clone())),
        statements,
        notes,
    );
    report.emitted = emitted;
    if let Some((s, _)) = &schema {
        report.proposed_ddl = timeseries::proposed_ddl(
            s,
            &r.options.ts_tables,
            &mut report.schema_findings,
            &profile,
        );
    }
    if let Some(ep) = &r.live {
        report.header.endpoints.target = Some(ep.to_string());
        let s = schema.as_ref().map(|(s, _)| s);
        let summary = runtime.block_on(confirm_live(ep, r, s, &profile, &mut report, progress))?;
        report.summary = summarize(&report.statements);
        report.live = Some(summary);
    }
    report.header.finish();
    Ok((report, (profile, schema.map(|(s, _)| s))))
}

type LoadedSchema = (Option<(Schema, String)>, Vec<String>);

/// `given` (the `--schema`/`--source` schema and where it came from) with the tables that the
/// `CREATE TABLE` statements of the input scripts declare and it lacks: the given schema wins where
/// both declare a table. Tables read from tokens (sqlparser could not parse the statement) add a
/// note, as they do in a `--schema` file.
fn with_script_tables(
    given: Option<(Schema, String)>,
    inputs: &[PathBuf],
    statements: &[DistinctStatement],
    notes: &mut Vec<String>,
) -> Option<(Schema, String)> {
    let scripts: Vec<String> = inputs
        .iter()
        .filter(|p| input::is_script(p))
        .map(|p| p.display().to_string())
        .collect();
    if scripts.is_empty() {
        return given;
    }
    let mut added: Vec<Table> = Vec::new();
    let mut views: Vec<String> = Vec::new();
    let mut from: Vec<&str> = Vec::new();
    for st in statements {
        if !scripts.contains(&st.origin.file) {
            continue;
        }
        if let Some(v) = crate::schema::ddl::view_from_statement(&st.sample) {
            views.push(v);
            continue;
        }
        let Some((table, warning)) = crate::schema::ddl::table_from_statement(&st.sample) else {
            continue;
        };
        if given
            .as_ref()
            .is_some_and(|(s, _)| s.table(&table.name).is_some())
        {
            continue;
        }
        if let Some(w) = warning {
            let note = format!("{}:{}: {w}", st.origin.file, st.origin.line);
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        if !from.contains(&st.origin.file.as_str()) {
            from.push(&st.origin.file);
        }
        added.push(table);
    }
    if added.is_empty() {
        // Views alone make no schema, but a given one learns of them.
        return given.map(|(s, name)| (s.with_views(views), name));
    }
    let scripts_said = format!("the CREATE TABLE statements of {}", from.join(", "));
    Some(match given {
        Some((s, name)) => {
            let lctn = s.lower_case_table_names;
            let given_views = s.views.clone();
            let mut tables = s.tables;
            tables.extend(added);
            (
                Schema::new(tables, lctn)
                    .with_views(given_views)
                    .with_views(views),
                format!("{name}, and {scripts_said}"),
            )
        }
        None => (Schema::new(added, None).with_views(views), scripts_said),
    })
}

fn load_schema(
    source: &SchemaSource,
    runtime: &tokio::runtime::Runtime,
) -> Result<LoadedSchema, AuditError> {
    match source {
        SchemaSource::None => Ok((None, Vec::new())),
        SchemaSource::Ddl(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                AuditError::Schema(format!("cannot read the schema file {}: {e}", p.display()))
            })?;
            let d = crate::schema::ddl::schema_from_ddl(&text, &p.display().to_string());
            if d.schema.is_empty() {
                return Err(AuditError::Schema(format!(
                    "{}: no CREATE TABLE statement found; give mysqldump --no-data output",
                    p.display()
                )));
            }
            Ok((Some((d.schema, p.display().to_string())), d.warnings))
        }
        SchemaSource::Server(ep) => {
            ep.require_mysql_source("--source")?;
            let s = runtime.block_on(crate::schema::source::schema_from_server(ep))?;
            Ok((Some((s, ep.to_string())), Vec::new()))
        }
    }
}

async fn confirm_live(
    ep: &Endpoint,
    r: &AuditRun,
    schema: Option<&Schema>,
    profile: &Profile,
    report: &mut AuditReport,
    progress: &dyn Progress,
) -> Result<super::live::LiveSummary, DbError> {
    progress.phase(
        "asking the target",
        Some(report.statements.len() as u64),
        Unit::Items,
    );
    let mut t = LiveTarget::open(ep).await?;
    let schema_ready = match (r.live_setup, schema) {
        (true, Some(s)) => {
            t.setup(s, profile).await?;
            true
        }
        (true, None) => {
            t.summary
                .setup_errors
                .push("--live-setup needs --schema or --source".into());
            false
        }
        (false, _) => false,
    };
    t.confirm(&mut report.statements, schema_ready, |i| {
        progress.done(i as u64)
    })
    .await?;
    let summary = t.summary.clone();
    t.close().await?;
    progress.finish();
    Ok(summary)
}
