//! The workload model: the normalized events every stage consumes.
//!
//! Capture turns log records into [`Event`]s; audit, replay and the digest read them. These are plain
//! data types with no behaviour tied to any log format, so that stages meet here and nowhere else.

pub mod diag;
pub mod header;
pub mod progress;
pub mod signals;
pub mod time;

pub use header::{Endpoints, Header, InputRef, SchemaId, Tool};
pub use progress::{Progress, Quiet, Unit};

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What a log record says the client asked the server to do.
///
/// Names follow the server's own command names (MySQL `Command_names`), which are what the general log
/// prints and what the slow log prints after `# administrator command:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// A text-protocol statement (COM_QUERY). Slow-log statements are always this.
    Query,
    /// COM_STMT_PREPARE: the statement text with `?` placeholders.
    Prepare,
    /// COM_STMT_EXECUTE: the general log prints the statement with the values substituted.
    Execute,
    /// COM_STMT_CLOSE (`Close stmt`).
    CloseStmt,
    /// COM_STMT_RESET (`Reset stmt`).
    ResetStmt,
    /// COM_STMT_SEND_LONG_DATA (`Long Data`).
    LongData,
    /// COM_STMT_FETCH (`Fetch`).
    Fetch,
    Connect,
    Quit,
    /// COM_INIT_DB (`Init DB`): the client changed its default database.
    InitDb,
    /// COM_CHANGE_USER (`Change user`).
    ChangeUser,
    /// COM_RESET_CONNECTION (`Reset Connection`).
    ResetConnection,
    Ping,
    FieldList,
    SetOption,
    Statistics,
    Refresh,
    Shutdown,
    Processlist,
    Kill,
    Debug,
    Sleep,
    /// Any other server command (replication, clone, daemon, ...), kept by name.
    Other,
}

impl Command {
    /// Every command, in declaration order (`ALL[c as usize] == c`).
    pub const ALL: [Command; 23] = [
        Command::Query,
        Command::Prepare,
        Command::Execute,
        Command::CloseStmt,
        Command::ResetStmt,
        Command::LongData,
        Command::Fetch,
        Command::Connect,
        Command::Quit,
        Command::InitDb,
        Command::ChangeUser,
        Command::ResetConnection,
        Command::Ping,
        Command::FieldList,
        Command::SetOption,
        Command::Statistics,
        Command::Refresh,
        Command::Shutdown,
        Command::Processlist,
        Command::Kill,
        Command::Debug,
        Command::Sleep,
        Command::Other,
    ];

    /// The name the server prints for this command.
    /// The fingerprint text of a command that carries no statement (`Quit`, `Connect`, …), as
    /// pt-query-digest prints them, so reports stay comparable.
    pub fn admin_fingerprint(self) -> String {
        format!("administrator command: {}", self.server_name())
    }

    pub fn server_name(self) -> &'static str {
        match self {
            Command::Query => "Query",
            Command::Prepare => "Prepare",
            Command::Execute => "Execute",
            Command::CloseStmt => "Close stmt",
            Command::ResetStmt => "Reset stmt",
            Command::LongData => "Long Data",
            Command::Fetch => "Fetch",
            Command::Connect => "Connect",
            Command::Quit => "Quit",
            Command::InitDb => "Init DB",
            Command::ChangeUser => "Change user",
            Command::ResetConnection => "Reset Connection",
            Command::Ping => "Ping",
            Command::FieldList => "Field List",
            Command::SetOption => "Set option",
            Command::Statistics => "Statistics",
            Command::Refresh => "Refresh",
            Command::Shutdown => "Shutdown",
            Command::Processlist => "Processlist",
            Command::Kill => "Kill",
            Command::Debug => "Debug",
            Command::Sleep => "Sleep",
            Command::Other => "Other",
        }
    }

    /// True for events that run SQL a replay must send: text queries and prepared-statement executions.
    pub fn is_statement(self) -> bool {
        matches!(self, Command::Query | Command::Execute)
    }
}

/// How finely the log timed an event. MariaDB and MySQL ≤ 5.6 print whole seconds only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimePrecision {
    Microsecond,
    Second,
    /// The log gave no time for this event and none could be inherited.
    Unknown,
}

/// Which kind of log an event came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogType {
    General,
    Slow,
}

impl LogType {
    pub fn name(self) -> &'static str {
        match self {
            LogType::General => "general",
            LogType::Slow => "slow",
        }
    }
}

/// Where in which input file an event was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// Index into the list of inputs.
    pub file: u32,
    /// 1-based line of the record's first line.
    pub line: u64,
}

/// One statement or command from a captured log, with everything the log said about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// Position in the stream (0-based, in log order).
    pub seq: u64,
    pub command: Command,
    /// The server's thread (connection) id; 0 when the log names none (old slow logs).
    pub session: u64,
    /// When the statement started, in microseconds since the Unix epoch (UTC).
    pub start_us: Option<i64>,
    pub time_precision: TimePrecision,
    /// Execution time from the slow log; the general log records none.
    pub duration_us: Option<u64>,
    pub lock_us: Option<u64>,
    pub user: Option<Arc<str>>,
    pub host: Option<Arc<str>>,
    /// The default database in effect for the statement.
    pub db: Option<Arc<str>>,
    /// The statement text (or the command's argument), exactly as logged; may hold non-UTF-8 bytes.
    pub sql: Vec<u8>,
    pub rows_sent: Option<u64>,
    pub rows_examined: Option<u64>,
    pub rows_affected: Option<u64>,
    pub errno: Option<u32>,
    /// Stable 64-bit id of the statement's fingerprint (see `sql::fingerprint`).
    pub fingerprint_id: u64,
    /// For `Execute`: the 1-based number of the session's `Prepare` whose fingerprint it matches.
    pub prepared_stmt: Option<u32>,
    /// For a statement split out of a multi-statement `Query`: its 0-based index and the total.
    pub multi: Option<(u16, u16)>,
    /// The text held a password that was masked, either by the server (`<secret>`) or by cutover; the
    /// statement cannot be replayed as logged.
    pub redacted: bool,
    pub origin: Origin,
}

impl Event {
    /// The statement text as UTF-8, with invalid bytes replaced.
    pub fn sql_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.sql)
    }
}

impl From<&InputSummary> for header::InputRef {
    fn from(i: &InputSummary) -> header::InputRef {
        header::InputRef {
            path: i.path.clone(),
            bytes: i.bytes,
            xxh3: i.xxh3.clone(),
            damaged: i.damaged.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Command;

    #[test]
    fn all_commands_indexed_by_discriminant() {
        for (i, c) in Command::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i);
        }
    }
}

/// What is known about one input file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InputSummary {
    pub path: String,
    pub log_type: LogType,
    pub compressed: bool,
    /// Size on disk, when known.
    pub bytes: Option<u64>,
    /// Bytes of log text read (after decompression).
    pub text_bytes: u64,
    pub lines: u64,
    pub events: u64,
    /// xxh3-64 of the file's bytes (hex), when it was read to its end.
    pub xxh3: Option<String>,
    /// Where and why reading stopped before the end (a corrupt or truncated file): the result
    /// covers only what came before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damaged: Option<String>,
}
