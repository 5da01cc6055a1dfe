//! The flags of every subcommand (clap). Defaults are the library's: a flag not given is `None` and
//! the library fills it in.

use clap::{Args, Parser, Subcommand, ValueEnum};
use cutover::render::Format;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "cutover",
    version,
    about = "Is it safe to move this MySQL application onto another database?"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
    /// Passwords for URLs that have none: one line (the password), or .pgpass lines
    /// host:port:database:user:password (* for any). Without it, MYSQL_PWD and PGPASSWORD are used.
    #[arg(long, global = true, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Digest query logs: events, sessions, QPS, concurrency and per-fingerprint statistics.
    Digest(DigestArgs),
    /// Write the normalized event stream that replay and audit consume.
    Events(EventsArgs),
    /// Check every distinct statement of logs or .sql scripts against a target database profile.
    Audit(AuditArgs),
    /// Replay a captured workload against a source and a target, comparing results and latency.
    Replay(ReplayArgs),
    /// Combine the JSON results of sharded replays (`replay --shard K/N --format json`).
    Merge(MergeArgs),
    /// Check that source and target hold the same rows (checksums pushed down, row-level diffs).
    Verify(VerifyArgs),
    /// One go/no-go verdict from the stages' JSON results, against the gate, with waivers.
    Report(ReportArgs),
    /// The whole path from one scenario file: audit, replay, verify and the go/no-go report.
    Check(CheckArgs),
}

#[derive(Args)]
pub struct CheckArgs {
    /// The check scenario (TOML: logs, source, target, profile, [audit], [replay], [verify],
    /// [report]; paths relative to the file). See replays/check-sysbench.toml.
    #[arg(long, value_name = "FILE")]
    pub scenario: PathBuf,
    /// The folder for every stage's JSON and the report (default: ./NAME, NAME the scenario's file
    /// name without .toml).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How the report is printed on standard output: text, markdown or json.
    #[arg(long, default_value = "text")]
    pub format: Format,
    /// Evidence items listed per criterion in text and Markdown.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Never draw progress (drawn only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args)]
pub struct ReportArgs {
    /// `cutover audit --format json` results (several: several captures or scripts).
    #[arg(long, value_name = "FILE")]
    pub audit: Vec<PathBuf>,
    /// `cutover replay --format json` results; several are merged as `cutover merge` does.
    #[arg(long, value_name = "FILE")]
    pub replay: Vec<PathBuf>,
    /// `cutover verify --format json` results (or `--watch` ones); the newest decides, the others
    /// show the trend.
    #[arg(long, value_name = "FILE")]
    pub verify: Vec<PathBuf>,
    /// A `cutover digest --format json` result (cross-checked with the others' capture).
    #[arg(long, value_name = "FILE")]
    pub digest: Option<PathBuf>,
    /// Thresholds over the built-in checklists/gate.toml.
    #[arg(long, value_name = "FILE")]
    pub gate: Option<PathBuf>,
    /// Waivers (TOML `[[waiver]]` with criterion, match, reason, owner, expires).
    #[arg(long, value_name = "FILE")]
    pub waivers: Option<PathBuf>,
    /// An earlier report (`--format json`): what is new, fixed, better or worse since.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write it as Markdown (a pull request or a CI step summary).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write it as JUnit XML (one testcase per criterion).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Evidence items listed per criterion in text and Markdown.
    #[arg(long)]
    pub limit: Option<usize>,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Where and how a result is printed.
#[derive(Args)]
pub struct OutputArgs {
    /// text, markdown or json.
    #[arg(long, default_value = "text")]
    pub format: Format,
    /// Write the result to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Never draw progress (drawn only when stderr is a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum LogTypeArg {
    General,
    Slow,
}

#[derive(Args)]
pub struct ReadArgs {
    /// The log type, when detection from the first lines is not wanted.
    #[arg(long, value_enum)]
    pub log_type: Option<LogTypeArg>,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long, default_value = "+00:00")]
    pub log_timezone: String,
    /// Parser threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

#[derive(Args)]
pub struct DigestArgs {
    /// Log files: general or slow query logs, plain or gzip; `-` reads standard input.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Fingerprints to report (default: 20 in text and Markdown, all in JSON).
    #[arg(long)]
    pub limit: Option<usize>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args)]
pub struct EventsArgs {
    /// Log files: general or slow query logs, plain or gzip; `-` reads standard input.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// jsonl (one JSON object per event).
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl"])]
    pub format: String,
    /// Write the events to this file instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KingbaseMode {
    /// A cluster initialised in MySQL compatibility mode (database_mode=mysql).
    Mysql,
    /// A cluster initialised in PostgreSQL or Oracle mode.
    Pg,
}

#[derive(Args)]
pub struct AuditArgs {
    /// Captured logs (anything `cutover digest` reads) and .sql scripts (mysqldump output included).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The target profile: postgres, kingbase or kaiwudb (or any checklists/NAME.toml).
    #[arg(long)]
    pub target: String,
    /// For --target kingbase: the mode the cluster was initialised in.
    #[arg(long, value_enum, default_value = "mysql")]
    pub kingbase_mode: KingbaseMode,
    /// The MySQL schema, as DDL (mysqldump --no-data output; a full dump works too).
    #[arg(long, conflicts_with = "source")]
    pub schema: Option<PathBuf>,
    /// Read the schema from the MySQL source's information_schema (mysql://user:pass@host:3306/db).
    #[arg(long)]
    pub source: Option<String>,
    /// Ask the real target about each statement and its rewrite, inside a transaction that is rolled back.
    #[arg(long)]
    pub live: Option<String>,
    /// With --live: create the --schema/--source tables on the target first (rolled back with the rest).
    #[arg(long, requires = "live")]
    pub live_setup: bool,
    /// Write the input .sql scripts translated for the target to this file (tables with the profile's
    /// types, data with translated literals, keys and identity resets after the data).
    #[arg(long, value_name = "OUT.sql")]
    pub emit_sql: Option<PathBuf>,
    /// A MySQL table that becomes a KaiwuDB time-series table (repeatable).
    #[arg(long = "ts-table")]
    pub ts_tables: Vec<String>,
    /// Read the target profiles from this directory instead of the built-in ones.
    #[arg(long)]
    pub checklists: Option<PathBuf>,
    /// Statements listed in detail in text and Markdown (default 50).
    #[arg(long)]
    pub limit: Option<usize>,
    /// The verdict that makes the audit exit 1: fail (a statement the target rejects) or warn (also
    /// one that runs differently or needs checking).
    #[arg(long, value_enum, default_value = "fail")]
    pub fail_on: FailOnArg,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    /// Exit 1 when any statement is `warn` or `fail`.
    Warn,
    /// Exit 1 when any statement is `fail`.
    Fail,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// Captured logs (general or slow, plain or gzip).
    pub logs: Vec<PathBuf>,
    /// A scenario file (replays/*.toml) holding the settings; options given here override it.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// The source database (mysql://user:pass@host:3306/db).
    #[arg(long)]
    pub source: Option<String>,
    /// The target database (postgres://… for PostgreSQL, KingbaseES and KaiwuDB, or mysql://…).
    #[arg(long)]
    pub target: Option<String>,
    /// The target profile, for --rewrite (default: the one the target URL's scheme names).
    #[arg(long)]
    pub profile: Option<String>,
    /// Replay at this multiple of the recorded pace (1 = as recorded).
    #[arg(long, conflicts_with = "max_speed")]
    pub speed: Option<f64>,
    /// No pauses: per-session order and concurrency are kept.
    #[arg(long)]
    pub max_speed: bool,
    /// reads (default): only statements that cannot change data; all: writes and transactions too.
    #[arg(long)]
    pub mode: Option<cutover::replay::Mode>,
    /// Required with --mode all: you replay against copies you may write to.
    #[arg(long)]
    pub allow_writes: bool,
    /// Send the audit's mechanical rewrites to the target.
    #[arg(long)]
    pub rewrite: bool,
    /// With --mode all: let writes from different sessions start in any order. By default writes,
    /// locking reads and COMMITs keep the captured order across sessions, so that both sides see the
    /// same interleaving of concurrent writers (reads are never held back).
    #[arg(long)]
    pub free_order: bool,
    /// With --mode all: a statement found in a wait cycle through a server lock (its own
    /// transaction holds a lock a session it waits for needs) goes at once when it is the cycle's
    /// earliest waiting statement, instead of after the 2 s limit. Faster on captures with such
    /// cycles (TPC-C), but A/A copies can end with a mismatch the default does not show.
    #[arg(long, conflicts_with = "free_order")]
    pub break_lock_cycles: bool,
    /// Stop after this long (30s, 5m, 1h).
    #[arg(long)]
    pub duration: Option<String>,
    /// Replay only the sessions of shard K of N (0-based K), to share a capture between machines.
    #[arg(long)]
    pub shard: Option<String>,
    /// Slower by more than this fraction (at p50 or p95) is a regression candidate (default 0.2).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// Significance level of the latency test (default 0.01).
    #[arg(long)]
    pub alpha: Option<f64>,
    /// UTC offset of timestamps printed without a zone (MariaDB, MySQL ≤ 5.6), e.g. +08:00.
    #[arg(long)]
    pub log_timezone: Option<String>,
    /// The most connections replay may open on each server (one per captured session open at
    /// once, plus one). Default: half of the server's free connections; never more than all of them.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<u64>,
    /// A session idle this long outside a transaction gives its connection back (and reconnects,
    /// its state restored, when it runs again): idle sessions share connections. Default 30s.
    #[arg(long, value_name = "DURATION")]
    pub release_idle: Option<String>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args)]
pub struct MergeArgs {
    /// JSON results of `cutover replay --format json`.
    #[arg(required = true)]
    pub results: Vec<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// The MySQL source (mysql://user:pass@host:3306/db).
    #[arg(long)]
    pub source: String,
    /// The target (postgres://…, kingbase://…, kaiwudb://… or mysql://…).
    #[arg(long)]
    pub target: String,
    /// The target schema holding the tables (PostgreSQL: set as the search_path; MySQL: the
    /// database). Default: the schemas of the target's search_path, as the application sees them.
    #[arg(long, value_name = "SCHEMA")]
    pub target_schema: Option<String>,
    /// The target profile, shown in the report (the URL scheme already tells the dialect).
    #[arg(long, value_parser = ["postgres", "kingbase", "kingbase-pg", "kaiwudb"])]
    pub profile: Option<String>,
    /// Tables to check, comma-separated (default: every base table of the source database).
    #[arg(long, value_delimiter = ',', conflicts_with = "all")]
    pub tables: Option<Vec<String>>,
    /// Check every table (the default).
    #[arg(long)]
    pub all: bool,
    /// A condition both sides apply (for example "updated_at >= '2026-12-01'").
    #[arg(long = "where")]
    pub where_clause: Option<String>,
    /// Rows per chunk (key range) or per hash bucket (default 10000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk_rows: Option<u64>,
    /// Sessions per server computing chunk digests (default 1; each holds its own snapshot on
    /// MySQL; on PostgreSQL they share one).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Pause while either server runs more than N queries (MySQL Threads_running, PostgreSQL
    /// active backends).
    #[arg(long, value_name = "N")]
    pub max_load: Option<u64>,
    /// Re-check each difference on the latest data, after a delay that doubles, before reporting
    /// it: rows in flight during double-writes are counted as in flight, not as differences.
    #[arg(long)]
    pub live: bool,
    /// Re-checks per difference with --live (default 4).
    #[arg(long)]
    pub live_retries: Option<u32>,
    /// First delay before a --live re-check, then doubled (default 500ms).
    #[arg(long)]
    pub live_delay: Option<String>,
    /// Repeat the check every INTERVAL until it finds no difference (or --rounds runs).
    #[arg(long, value_name = "INTERVAL")]
    pub watch: Option<String>,
    /// With --watch: stop after this many rounds (0: until converged).
    #[arg(long, default_value_t = 0)]
    pub rounds: u32,
    /// Write the INSERT/UPDATE/DELETE statements that repair the target to FILE (never run).
    #[arg(long, value_name = "FILE")]
    pub fix_sql: Option<PathBuf>,
    /// Keep progress in FILE; an interrupted run given the same FILE resumes where it stopped.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}
