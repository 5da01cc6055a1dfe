//! One connection to one database, with session settings pinned so that both engines print values
//! the same way (UTC, ISO dates, hex bytea), and statements run into canonical result sets.

use super::value::{Kind, Value};
use super::{DbError, Endpoint, Engine, Flavor, connect_error, scrub};
use crate::sql::single::{Lexicon, second_statement};
use mysql_async::consts::{ColumnFlags, ColumnType, StatusFlags};
use mysql_async::prelude::*;
use std::time::Duration;

/// How long a connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// A column of a result set.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
}

/// Rows returned by one statement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultSet {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Value>>,
}

/// Everything a statement returned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Result sets, in order (a stored procedure's CALL can return several).
    pub sets: Vec<ResultSet>,
    /// Rows affected by the last statement (MySQL's count, PostgreSQL's command tag).
    pub affected: Option<u64>,
}

impl Outcome {
    /// The first column of the first row of the first result set, as text.
    pub fn scalar(&self) -> Option<String> {
        self.sets.first()?.rows.first()?.first()?.as_text()
    }
}

enum Inner {
    MySql(mysql_async::Conn),
    Pg(tokio_postgres::Client),
}

/// The kinds of a statement's result columns (PostgreSQL describes them).
type Described = Option<Vec<Kind>>;

/// An open session.
pub struct Session {
    endpoint: Endpoint,
    inner: Inner,
    /// Result descriptions by caller key (a fingerprint id): replay describes each statement shape
    /// once instead of once per execution, so latency is one round trip like the application's.
    described: rustc_hash::FxHashMap<u64, Described>,
    /// The server's id of this connection (MySQL's thread id, PostgreSQL's backend pid).
    connection_id: Option<u32>,
}

impl Session {
    /// Connects and pins the session settings. Never writes anything.
    pub async fn connect(endpoint: &Endpoint) -> Result<Session, DbError> {
        let attempt = async {
            match endpoint.engine {
                Engine::MySql => {
                    let opts = endpoint
                        .mysql_opts()
                        .map_err(|e| connect_error(endpoint, e))?;
                    // Measure over TCP as configured, never silently over the Unix socket.
                    let opts = mysql_async::OptsBuilder::from_opts(opts).prefer_socket(false);
                    let conn = mysql_async::Conn::new(opts)
                        .await
                        .map_err(|e| connect_error(endpoint, e.to_string()))?;
                    Ok::<_, DbError>(Inner::MySql(conn))
                }
                Engine::Postgres => {
                    let config = endpoint
                        .pg_config()
                        .map_err(|e| connect_error(endpoint, e))?;
                    let (client, connection) = config
                        .connect(tokio_postgres::NoTls)
                        .await
                        .map_err(|e| connect_error(endpoint, pg_message(&e)))?;
                    tokio::spawn(async move {
                        let _ = connection.await;
                    });
                    Ok(Inner::Pg(client))
                }
            }
        };
        let inner = tokio::time::timeout(CONNECT_TIMEOUT, attempt)
            .await
            .map_err(|_| {
                connect_error(
                    endpoint,
                    format!(
                        "no answer within {} s (timed out)",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                )
            })??;
        let connection_id = match &inner {
            Inner::MySql(conn) => Some(conn.id()),
            Inner::Pg(_) => None,
        };
        let mut s = Session {
            endpoint: endpoint.clone(),
            inner,
            described: Default::default(),
            connection_id,
        };
        s.pin_settings().await?;
        if s.connection_id.is_none()
            && let Some(q) = endpoint.engine.dialect().connection_id_query
            && let Ok(o) = s.execute(q).await
        {
            s.connection_id = o.scalar().and_then(|v| v.parse().ok());
        }
        Ok(s)
    }

    /// The server's id of this connection, where it has one.
    pub fn connection_id(&self) -> Option<u32> {
        self.connection_id
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    async fn pin_settings(&mut self) -> Result<(), DbError> {
        for s in self.endpoint.engine.dialect().session_settings {
            // KaiwuDB and KingbaseES may not know every PostgreSQL setting; their output is already
            // ISO/UTC by default. MySQL and PostgreSQL themselves must take them all.
            if let Err(e) = self.execute(s).await
                && matches!(self.endpoint.flavor, Flavor::Postgres | Flavor::MySql)
            {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Refuses a text the server could read as more than one statement (see [`crate::sql::single`]):
    /// the drivers would run them all, and a read-only looking text could carry a write behind it.
    fn one_statement(&self, sql: &[u8]) -> Result<(), DbError> {
        let (lexicon, escapes) = match &self.inner {
            // MySQL reports NO_BACKSLASH_ESCAPES in every OK packet; before the first, try both.
            Inner::MySql(conn) => (
                Lexicon::MySql,
                conn.last_ok_packet().map(|ok| {
                    !ok.status_flags()
                        .contains(StatusFlags::SERVER_STATUS_NO_BACKSLASH_ESCAPES)
                }),
            ),
            Inner::Pg(_) => (Lexicon::Postgres, None),
        };
        match second_statement(sql, lexicon, escapes) {
            None => Ok(()),
            Some(at) => Err(DbError::SeveralStatements {
                endpoint: self.endpoint.to_string(),
                offset: at,
                excerpt: excerpt(&sql[at..]),
            }),
        }
    }

    /// Runs one SQL statement and collects everything it returns.
    pub async fn execute(&mut self, sql: &str) -> Result<Outcome, DbError> {
        self.execute_bytes(sql.as_bytes()).await
    }

    /// Runs one SQL statement whose result shape is the same for every text with this `key` (the
    /// statement's fingerprint id): on PostgreSQL the description is fetched once per key.
    pub async fn execute_keyed(&mut self, sql: &[u8], key: u64) -> Result<Outcome, DbError> {
        self.one_statement(sql)?;
        match &mut self.inner {
            Inner::MySql(conn) => mysql_execute(conn, sql, &self.endpoint).await,
            Inner::Pg(client) => {
                let text = String::from_utf8_lossy(sql);
                let kinds = match self.described.get(&key) {
                    Some(k) => k.clone(),
                    None => {
                        let k = pg_describe(client, &text, &self.endpoint).await?;
                        self.described.insert(key, k.clone());
                        k
                    }
                };
                pg_run(client, &text, kinds, &self.endpoint).await
            }
        }
    }

    /// Runs one statement for its effect (transaction control, settings), discarding results.
    pub async fn run(&mut self, sql: &str) -> Result<(), DbError> {
        self.execute(sql).await.map(|_| ())
    }

    /// The engine this session talks to.
    pub fn engine(&self) -> Engine {
        self.endpoint.engine
    }

    /// Runs one SQL statement given as bytes (MySQL takes them as they are; PostgreSQL needs UTF-8).
    pub async fn execute_bytes(&mut self, sql: &[u8]) -> Result<Outcome, DbError> {
        self.one_statement(sql)?;
        match &mut self.inner {
            Inner::MySql(conn) => mysql_execute(conn, sql, &self.endpoint).await,
            Inner::Pg(client) => {
                let text = String::from_utf8_lossy(sql);
                pg_execute(client, &text, &self.endpoint).await
            }
        }
    }

    /// Closes the session politely.
    pub async fn close(self) {
        if let Inner::MySql(conn) = self.inner {
            let _ = conn.disconnect().await;
        }
    }

    /// A way to cancel, from elsewhere, the statement this session runs at that moment.
    pub fn cancel_handle(&self) -> CancelHandle {
        match &self.inner {
            Inner::MySql(conn) => CancelHandle::MySql {
                endpoint: self.endpoint.clone(),
                connection_id: conn.id(),
            },
            Inner::Pg(client) => CancelHandle::Pg(client.cancel_token()),
        }
    }
}

/// Cancels the statement a session is running: PostgreSQL's cancel request, or MySQL's `KILL QUERY`
/// sent on a connection of its own (the session's own is busy). The session stays open.
#[derive(Clone)]
pub enum CancelHandle {
    MySql {
        endpoint: Endpoint,
        connection_id: u32,
    },
    Pg(tokio_postgres::CancelToken),
}

impl CancelHandle {
    pub async fn cancel(&self) -> Result<(), DbError> {
        match self {
            CancelHandle::MySql {
                endpoint,
                connection_id,
            } => {
                let mut side = Session::connect(endpoint).await?;
                let r = side.run(&format!("KILL QUERY {connection_id}")).await;
                side.close().await;
                match r {
                    // 1094: the connection is gone already.
                    Err(e) if e.code() == Some("1094") => Ok(()),
                    other => other,
                }
            }
            CancelHandle::Pg(token) => {
                token
                    .cancel_query(tokio_postgres::NoTls)
                    .await
                    .map_err(|e| DbError::Io {
                        endpoint: "cancel request".into(),
                        message: e.to_string(),
                    })
            }
        }
    }
}

/// The column kind of a MySQL result column.
pub fn mysql_kind(ct: ColumnType, flags: ColumnFlags, charset: u16) -> Kind {
    use ColumnType::*;
    match ct {
        MYSQL_TYPE_TINY | MYSQL_TYPE_SHORT | MYSQL_TYPE_LONG | MYSQL_TYPE_LONGLONG
        | MYSQL_TYPE_INT24 | MYSQL_TYPE_YEAR => Kind::Int,
        MYSQL_TYPE_DECIMAL | MYSQL_TYPE_NEWDECIMAL => Kind::Decimal,
        MYSQL_TYPE_FLOAT => Kind::Float32,
        MYSQL_TYPE_DOUBLE => Kind::Float64,
        MYSQL_TYPE_DATE | MYSQL_TYPE_NEWDATE => Kind::Date,
        MYSQL_TYPE_DATETIME | MYSQL_TYPE_DATETIME2 => Kind::Timestamp,
        MYSQL_TYPE_TIMESTAMP | MYSQL_TYPE_TIMESTAMP2 => Kind::TimestampTz,
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => Kind::Time,
        MYSQL_TYPE_BIT => Kind::Bits,
        MYSQL_TYPE_JSON => Kind::Json,
        MYSQL_TYPE_GEOMETRY => Kind::Bytes,
        MYSQL_TYPE_NULL => Kind::Other,
        _ => {
            // Strings and blobs: character set 63 is `binary`.
            if charset == 63
                && !flags.contains(ColumnFlags::ENUM_FLAG)
                && !flags.contains(ColumnFlags::SET_FLAG)
            {
                Kind::Bytes
            } else {
                Kind::Text
            }
        }
    }
}

/// The column kind of a PostgreSQL-protocol result column.
pub fn pg_kind(ty: &tokio_postgres::types::Type) -> Kind {
    use tokio_postgres::types::{Kind as PgKind, Type};
    match *ty {
        Type::INT2 | Type::INT4 | Type::INT8 | Type::OID => Kind::Int,
        Type::NUMERIC => Kind::Decimal,
        Type::FLOAT4 => Kind::Float32,
        Type::FLOAT8 => Kind::Float64,
        Type::BOOL => Kind::Bool,
        Type::BPCHAR => Kind::PaddedText,
        Type::TEXT | Type::VARCHAR | Type::NAME | Type::CHAR | Type::UNKNOWN => Kind::Text,
        Type::BYTEA => Kind::Bytes,
        Type::DATE => Kind::Date,
        Type::TIME | Type::TIMETZ => Kind::Time,
        Type::TIMESTAMP => Kind::Timestamp,
        Type::TIMESTAMPTZ => Kind::TimestampTz,
        Type::JSON | Type::JSONB => Kind::Json,
        Type::BIT | Type::VARBIT => Kind::Bits,
        _ => match ty.kind() {
            PgKind::Enum(_) => Kind::Text,
            PgKind::Domain(inner) => pg_kind(inner),
            _ => Kind::Other,
        },
    }
}

async fn mysql_execute(
    conn: &mut mysql_async::Conn,
    sql: &[u8],
    ep: &Endpoint,
) -> Result<Outcome, DbError> {
    let mut out = Outcome::default();
    let mut r = conn.query_iter(sql).await.map_err(|e| mysql_error(e, ep))?;
    loop {
        let columns: Vec<Column> = r
            .columns()
            .map(|cols| {
                cols.iter()
                    .map(|c| Column {
                        name: c.name_str().into_owned(),
                        kind: mysql_kind(c.column_type(), c.flags(), c.character_set()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        // Row by row, moving each value's bytes into the canonical value: no second copy of the
        // result, and no copy of the text values (most of a replay's allocations otherwise).
        let mut rows: Vec<Vec<Value>> = Vec::new();
        while let Some(mut row) = r.next().await.map_err(|e| mysql_error(e, ep))? {
            let values = columns
                .iter()
                .enumerate()
                .map(|(i, col)| match row.take::<mysql_async::Value, usize>(i) {
                    None | Some(mysql_async::Value::NULL) => Value::Null,
                    // BIT arrives as its bytes, big-endian, not as text.
                    Some(mysql_async::Value::Bytes(b))
                        if col.kind == Kind::Bits && b.len() <= 8 =>
                    {
                        Value::Bits(b.iter().fold(0u64, |acc, &x| (acc << 8) | x as u64))
                    }
                    Some(mysql_async::Value::Bytes(b)) => Value::from_text_owned(col.kind, b),
                    Some(other) => Value::from_text(col.kind, other.as_sql(true).as_bytes()),
                })
                .collect();
            rows.push(values);
        }
        out.affected = Some(r.affected_rows());
        if !columns.is_empty() {
            out.sets.push(ResultSet { columns, rows });
        }
        if r.is_empty() {
            break;
        }
    }
    Ok(out)
}

async fn pg_execute(
    client: &tokio_postgres::Client,
    sql: &str,
    ep: &Endpoint,
) -> Result<Outcome, DbError> {
    let kinds = pg_describe(client, sql, ep).await?;
    pg_run(client, sql, kinds, ep).await
}

/// Column types come from describing the statement; values from the simple (text) protocol, so that
/// any type, including ones the driver has no decoder for, arrives as the server prints it. A
/// statement the driver cannot describe (servers that refuse its catalog queries) runs without types.
async fn pg_describe(
    client: &tokio_postgres::Client,
    sql: &str,
    ep: &Endpoint,
) -> Result<Described, DbError> {
    Ok(match client.prepare(sql).await {
        Ok(stmt) => Some(stmt.columns().iter().map(|c| pg_kind(c.type_())).collect()),
        // The server's parser refuses several statements here too ("cannot insert multiple commands
        // into a prepared statement", 42601): that error stands, and nothing runs.
        Err(e) => match e.as_db_error() {
            Some(_) => return Err(pg_error(&e, ep)),
            // The driver could not look the types up (servers that refuse its catalog queries).
            None => None,
        },
    })
}

async fn pg_run(
    client: &tokio_postgres::Client,
    sql: &str,
    kinds: Described,
    ep: &Endpoint,
) -> Result<Outcome, DbError> {
    use tokio_postgres::SimpleQueryMessage;
    let messages = client
        .simple_query(sql)
        .await
        .map_err(|e| pg_error(&e, ep))?;
    let mut out = Outcome::default();
    let mut current: Option<ResultSet> = None;
    for m in messages {
        match m {
            SimpleQueryMessage::RowDescription(cols) => {
                let columns = cols
                    .iter()
                    .enumerate()
                    .map(|(i, c)| Column {
                        name: c.name().to_string(),
                        kind: kinds
                            .as_ref()
                            .and_then(|k| k.get(i))
                            .copied()
                            .unwrap_or(Kind::Other),
                    })
                    .collect();
                if let Some(done) = current.take() {
                    out.sets.push(done);
                }
                current = Some(ResultSet {
                    columns,
                    rows: Vec::new(),
                });
            }
            SimpleQueryMessage::Row(row) => {
                let set = current.get_or_insert_with(ResultSet::default);
                let values = (0..row.len())
                    .map(|i| match row.get(i) {
                        None => Value::Null,
                        Some(text) => Value::from_text(
                            set.columns.get(i).map_or(Kind::Other, |c| c.kind),
                            text.as_bytes(),
                        ),
                    })
                    .collect();
                set.rows.push(values);
            }
            SimpleQueryMessage::CommandComplete(n) => {
                out.affected = Some(n);
                if let Some(done) = current.take() {
                    out.sets.push(done);
                }
            }
            _ => {}
        }
    }
    if let Some(done) = current.take() {
        out.sets.push(done);
    }
    Ok(out)
}

/// The start of a refused statement, for the error message.
fn excerpt(sql: &[u8]) -> String {
    let text = String::from_utf8_lossy(&sql[..sql.len().min(80)]);
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if sql.len() > 80 {
        format!("{text}…")
    } else {
        text
    }
}

fn mysql_error(e: mysql_async::Error, ep: &Endpoint) -> DbError {
    match e {
        mysql_async::Error::Server(s) => DbError::Server {
            endpoint: ep.to_string(),
            code: s.code.to_string(),
            message: scrub(&s.message, ep),
        },
        mysql_async::Error::Io(io) => DbError::Io {
            endpoint: ep.to_string(),
            message: scrub(&io.to_string(), ep),
        },
        other => DbError::Io {
            endpoint: ep.to_string(),
            message: scrub(&other.to_string(), ep),
        },
    }
}

/// The most useful text of a PostgreSQL driver error (since tokio-postgres 0.7.15, `Display` says only
/// "db error").
fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => d.message().to_string(),
        None => {
            let mut s = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(inner) = src {
                s = format!("{s}: {inner}");
                src = inner.source();
            }
            s
        }
    }
}

fn pg_error(e: &tokio_postgres::Error, ep: &Endpoint) -> DbError {
    match e.as_db_error() {
        Some(d) => DbError::Server {
            endpoint: ep.to_string(),
            code: d.code().code().to_string(),
            message: scrub(d.message(), ep),
        },
        None => DbError::Io {
            endpoint: ep.to_string(),
            message: scrub(&pg_message(e), ep),
        },
    }
}
