//! Database connections shared by audit (live confirmation), replay and verify: URLs, connecting with
//! session settings that make output comparable, running statements, and the canonical value type
//! ([`value`]) that results from both engines are compared in.
//!
//! Passwords never leave this module: [`Endpoint`]'s `Display` masks them, and errors name the endpoint
//! through it.

pub mod compare;
pub mod credentials;
pub mod dialect;
pub mod exec;
pub mod value;

use std::fmt;

pub use credentials::mask_password;

/// Moves a `password=` (or `pass=`, `pwd=`) URL parameter out of a URL: (URL without it, password).
fn take_query_password(url: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut password = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            if matches!(k.to_ascii_lowercase().as_str(), "password" | "pass" | "pwd") {
                password = Some(percent_decode(v));
                false
            } else {
                true
            }
        })
        .collect();
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (url, password)
}

/// `%XX` escapes decoded (a URL parameter's value).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (
                (b[i + 1] as char).to_digit(16),
                (b[i + 2] as char).to_digit(16),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(if b[i] == b'+' { b' ' } else { b[i] });
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An error that says nothing about the SQL: the client or the infrastructure failed (out of file
/// descriptors, too many connections, a lost connection, a server going down, no connection to
/// send on). Such a statement did not run; it is neither a compatibility mismatch nor "failed on
/// both". `code` is the server's (errno or SQLSTATE) or cutover's own `connect` / `connection`.
pub fn infrastructure_failure(code: &str, message: &str) -> bool {
    [&dialect::MYSQL, &dialect::POSTGRES]
        .iter()
        .any(|d| d.lost_connection_codes.contains(&code))
        || matches!(
            code,
            "connect" | "connection"
                // MySQL/MariaDB: too many connections, user limits, out of resources, can't
                // connect.
                | "1040" | "1203" | "1226" | "1041" | "1135" | "2002" | "2003"
        )
        || code.starts_with("08") // PostgreSQL connection exceptions
        || (code.starts_with("53") && code.len() == 5) // insufficient resources
        || message.contains("Too many open files")
        || message.contains("os error 24")
}

/// The URL schemes cutover takes.
pub(crate) const SCHEMES: &[&str] = &[
    "mysql",
    "mariadb",
    "postgres",
    "postgresql",
    "kingbase",
    "kingbasees",
    "kaiwudb",
    "kwdb",
];

/// The engines cutover talks to. KingbaseES and KaiwuDB speak the PostgreSQL protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    MySql,
    Postgres,
}

/// Which PostgreSQL-protocol server a URL means (they differ in what session settings they accept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    MySql,
    Postgres,
    Kingbase,
    KaiwuDb,
}

/// A database to connect to, from a URL: `mysql://user:pass@host:3306/db`,
/// `postgres://user:pass@host:5432/db` (also `postgresql://`, `kingbase://`, `kaiwudb://`).
#[derive(Clone)]
pub struct Endpoint {
    pub engine: Engine,
    pub flavor: Flavor,
    url: String,
    /// The URL with its password masked: safe to print.
    shown: String,
    /// The password when the URL has none (password file, MYSQL_PWD, PGPASSWORD): never printed.
    password: Option<String>,
    /// PostgreSQL: the schema unqualified names resolve to (`--target-schema`), set as the
    /// session's search_path at connection time.
    search_path: Option<String>,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Endpoint({})", self.shown)
    }
}

/// What went wrong talking to a database. Messages never contain passwords.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(
        "{url:?} is not a database URL: {why}. Write it like mysql://user:password@host:3306/db or postgres://user@host:5432/db"
    )]
    BadUrl { url: String, why: String },
    #[error("cannot connect to {endpoint}: {message}. {hint}")]
    Connect {
        endpoint: String,
        message: String,
        hint: String,
    },
    #[error("{endpoint}: {message}")]
    Server {
        endpoint: String,
        /// MySQL error number, or PostgreSQL SQLSTATE.
        code: String,
        message: String,
    },
    #[error("{endpoint}: connection lost: {message}")]
    Io { endpoint: String, message: String },
    /// The endpoint cannot play the part it was given (a PostgreSQL URL as the MySQL source, a URL
    /// without the database a command needs).
    #[error("{endpoint}: {message}")]
    Usage { endpoint: String, message: String },
    /// Refused before sending: the text may hold more than one statement.
    #[error(
        "{endpoint}: not sent: the text may hold a second statement from byte {offset} ({excerpt:?}); cutover sends one statement at a time, so that nothing rides along behind a harmless one"
    )]
    SeveralStatements {
        endpoint: String,
        offset: usize,
        excerpt: String,
    },
}

impl DbError {
    /// The server's error code (MySQL errno or SQLSTATE), when the server answered with an error.
    pub fn code(&self) -> Option<&str> {
        match self {
            DbError::Server { code, .. } => Some(code),
            _ => None,
        }
    }
}

impl Endpoint {
    pub fn parse(url: &str) -> Result<Endpoint, DbError> {
        let shown = mask_password(url);
        let bad = |why: &str| DbError::BadUrl {
            url: shown.clone(),
            why: mask_password(why),
        };
        let scheme = url
            .split("://")
            .next()
            .filter(|_| url.contains("://"))
            .ok_or_else(|| bad("no scheme"))?;
        let (engine, flavor) = match scheme.to_ascii_lowercase().as_str() {
            "mysql" | "mariadb" => (Engine::MySql, Flavor::MySql),
            "postgres" | "postgresql" => (Engine::Postgres, Flavor::Postgres),
            "kingbase" | "kingbasees" => (Engine::Postgres, Flavor::Kingbase),
            "kaiwudb" | "kwdb" => (Engine::Postgres, Flavor::KaiwuDb),
            other => {
                return Err(bad(&format!(
                    "unknown scheme {other:?} (mysql, postgres, kingbase or kaiwudb)"
                )));
            }
        };
        let url = match engine {
            Engine::MySql => format!("mysql://{}", &url[scheme.len() + 3..]),
            Engine::Postgres => format!("postgres://{}", &url[scheme.len() + 3..]),
        };
        // mysql_async knows no `?password=` parameter; libpq (and tokio-postgres) do.
        let (url, query_password) = match engine {
            Engine::MySql => take_query_password(&url),
            Engine::Postgres => (url, None),
        };
        // Check the URL parses now, so a typo is reported before any work starts, and find the
        // password where the URL has none.
        let password = match engine {
            Engine::MySql => {
                let o = mysql_async::Opts::from_url(&url).map_err(|e| bad(&e.to_string()))?;
                match o.pass() {
                    Some(p) if !p.is_empty() => None,
                    _ if query_password.is_some() => query_password,
                    _ => credentials::password_for(
                        engine,
                        o.ip_or_hostname(),
                        o.tcp_port(),
                        o.db_name().unwrap_or(""),
                        o.user().unwrap_or("root"),
                    ),
                }
            }
            Engine::Postgres => {
                let c = url
                    .parse::<tokio_postgres::Config>()
                    .map_err(|e| bad(&e.to_string()))?;
                match c.get_password() {
                    Some(p) if !p.is_empty() => None,
                    _ => {
                        let host = match c.get_hosts().first() {
                            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
                            _ => "localhost".to_string(),
                        };
                        let user = c.get_user().unwrap_or("postgres");
                        credentials::password_for(
                            engine,
                            &host,
                            c.get_ports().first().copied().unwrap_or(5432),
                            c.get_dbname().unwrap_or(user),
                            user,
                        )
                    }
                }
            }
        };
        Ok(Endpoint {
            engine,
            flavor,
            url,
            shown,
            password,
            search_path: None,
        })
    }

    /// Refuses an endpoint given as the MySQL source that is not a MySQL URL (the usual cause:
    /// `--source` and `--target` swapped).
    pub fn require_mysql_source(&self, flag: &str) -> Result<(), DbError> {
        if self.engine == Engine::MySql {
            return Ok(());
        }
        Err(DbError::Usage {
            endpoint: self.to_string(),
            message: format!(
                "{flag} must be the MySQL or MariaDB server the application runs on today (a mysql:// URL); this URL is a PostgreSQL-protocol server. Did you swap --source and --target?"
            ),
        })
    }

    /// Refuses a URL that names no database where a command works on one database (PostgreSQL
    /// would silently take the one named after the user).
    pub fn require_database(&self, flag: &str, why: &str) -> Result<(), DbError> {
        if self.database().is_some_and(|d| !d.is_empty()) {
            return Ok(());
        }
        let example = match self.engine {
            Engine::MySql => "mysql://user@host:3306/shop",
            Engine::Postgres => "postgres://user@host:5432/shop",
        };
        Err(DbError::Usage {
            endpoint: self.to_string(),
            message: format!(
                "the {flag} URL names no database, and {why}: add it at the end of the URL, like {example}"
            ),
        })
    }

    /// The endpoint with its tables looked for in `schema`: on PostgreSQL the sessions' search_path
    /// (then `public`), on MySQL the database.
    pub fn with_schema(&self, schema: &str) -> Endpoint {
        match self.engine {
            Engine::MySql => self.with_database(schema),
            Engine::Postgres => {
                let mut e = self.clone();
                e.search_path = Some(schema.to_string());
                e.shown = format!("{} (schema {schema})", e.shown);
                e
            }
        }
    }

    /// The schema given with `--target-schema`, if any (PostgreSQL).
    pub fn schema(&self) -> Option<&str> {
        self.search_path.as_deref()
    }

    /// The database named in the URL, if any.
    pub fn database(&self) -> Option<String> {
        match self.engine {
            Engine::MySql => mysql_async::Opts::from_url(&self.url)
                .ok()?
                .db_name()
                .map(str::to_string),
            Engine::Postgres => self
                .url
                .parse::<tokio_postgres::Config>()
                .ok()?
                .get_dbname()
                .map(str::to_string),
        }
    }

    /// The URL with the database replaced (used to reach a scratch database next to the named one).
    pub fn with_database(&self, db: &str) -> Endpoint {
        let (before_query, query) = match self.url.find('?') {
            Some(q) => (&self.url[..q], &self.url[q..]),
            None => (self.url.as_str(), ""),
        };
        let scheme_end = before_query.find("://").map_or(0, |i| i + 3);
        let base = match before_query[scheme_end..].find('/') {
            Some(slash) => &before_query[..scheme_end + slash],
            None => before_query,
        };
        let url = format!("{base}/{db}{query}");
        let shown = mask_password(&url);
        Endpoint {
            engine: self.engine,
            flavor: self.flavor,
            url,
            shown,
            password: self.password.clone(),
            search_path: self.search_path.clone(),
        }
    }

    /// The driver options of a MySQL endpoint, with the password from elsewhere applied.
    pub(crate) fn mysql_opts(&self) -> Result<mysql_async::Opts, String> {
        let opts = mysql_async::Opts::from_url(&self.url).map_err(|e| e.to_string())?;
        let mut b = mysql_async::OptsBuilder::from_opts(opts);
        if let Some(p) = &self.password {
            b = b.pass(Some(p.clone()));
        }
        Ok(b.into())
    }

    /// The driver configuration of a PostgreSQL-protocol endpoint, with the password from
    /// elsewhere applied.
    pub(crate) fn pg_config(&self) -> Result<tokio_postgres::Config, String> {
        let mut c = self
            .url
            .parse::<tokio_postgres::Config>()
            .map_err(|e| e.to_string())?;
        if let Some(p) = &self.password {
            c.password(p.as_bytes());
        }
        if let Some(s) = &self.search_path {
            // Sent as a startup option: every session of the endpoint resolves names there.
            let quoted = format!("\"{}\"", s.replace('"', "\"\""));
            c.options(format!(
                "-c search_path={},public",
                quoted.replace(' ', "\\ ")
            ));
        }
        Ok(c)
    }
}

/// Turns a driver's connection error into an actionable message.
pub(crate) fn connect_error(endpoint: &Endpoint, message: String) -> DbError {
    let lower = message.to_lowercase();
    let hint = if lower.contains("too many open files") || lower.contains("os error 24") {
        "cutover ran out of file descriptors (one per connection): raise the limit (ulimit -n) or replay fewer sessions at once (--shard K/N)"
    } else if lower.contains("refused")
        || lower.contains("no such file")
        || lower.contains("timed out")
    {
        "Is the server running, and listening on that host and port? Check the host and port in the URL and that a firewall lets cutover through"
    } else if lower.contains("access denied")
        || lower.contains("password")
        || lower.contains("authentication")
    {
        "Check the user name and the password (from the URL, --password-file, MYSQL_PWD or PGPASSWORD), and that this user may connect from here"
    } else if lower.contains("role \"") && lower.contains("does not exist") {
        // PostgreSQL says "does not exist" of a user (role) as of a database.
        "Check the user name in the URL: the server has no such user"
    } else if lower.contains("unknown database") || lower.contains("does not exist") {
        "Check the database name at the end of the URL"
    } else {
        "Check the URL and that the server is reachable"
    };
    DbError::Connect {
        endpoint: endpoint.to_string(),
        message: scrub(&without_repeats(&message), endpoint),
        hint: hint.to_string(),
    }
}

/// A driver message with causes repeated by nested errors said once
/// (`Input/output error: Input/output error: Connection refused` → `Input/output error: Connection
/// refused`).
pub(crate) fn without_repeats(message: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in message.split(": ") {
        if parts.last() != Some(&p) && !parts.contains(&p) {
            parts.push(p);
        }
    }
    parts.join(": ")
}

/// Removes anything that looks like the endpoint's password from a driver message.
pub(crate) fn scrub(message: &str, endpoint: &Endpoint) -> String {
    let from_url = match endpoint.engine {
        Engine::MySql => mysql_async::Opts::from_url(&endpoint.url)
            .ok()
            .and_then(|o| o.pass().map(str::to_string)),
        Engine::Postgres => endpoint
            .url
            .parse::<tokio_postgres::Config>()
            .ok()
            .and_then(|c| {
                c.get_password()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
            }),
    };
    let mut out = mask_password(message);
    for p in [from_url, endpoint.password.clone()].into_iter().flatten() {
        if !p.is_empty() {
            out = out.replace(&p, "***");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_passwords() {
        assert_eq!(
            mask_password("mysql://app:s3cret@db:3306/shop"),
            "mysql://app:***@db:3306/shop"
        );
        assert_eq!(mask_password("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            mask_password("postgres://u:p@a@h/db?x=1"),
            "postgres://u:***@h/db?x=1"
        );
        let e = Endpoint::parse("kaiwudb://root:pw@127.0.0.1:26257/defaultdb").unwrap();
        assert_eq!(
            e.to_string(),
            "kaiwudb://root:***@127.0.0.1:26257/defaultdb"
        );
        assert_eq!((e.engine, e.flavor), (Engine::Postgres, Flavor::KaiwuDb));
        assert!(!format!("{e:?}").contains("pw"));
    }

    #[test]
    fn rejects_bad_urls_without_leaking() {
        let err = Endpoint::parse("oracle://u:topsecret@h/db")
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("unknown scheme") && !err.contains("topsecret"),
            "{err}"
        );
        assert!(Endpoint::parse("localhost:3306").is_err());
    }

    #[test]
    fn a_password_parameter_leaves_a_mysql_url() {
        let (url, pw) =
            take_query_password("mysql://u@h:3306/db?password=s%40cret&prefer_socket=false");
        assert_eq!(url, "mysql://u@h:3306/db?prefer_socket=false");
        assert_eq!(pw.as_deref(), Some("s@cret"));
        let e = Endpoint::parse("mysql://u@h:3306/db?pwd=x%C3%A9").unwrap();
        assert_eq!(e.password.as_deref(), Some("xé"));
        assert!(!e.to_string().contains("x%C3"), "{e}");
        assert_eq!(take_query_password("mysql://u@h/db").1, None);
        assert_eq!(without_repeats("a: a: b"), "a: b");
    }

    #[test]
    fn swaps_database() {
        let e = Endpoint::parse("mysql://root:x@127.0.0.1:3306/test?prefer_socket=false").unwrap();
        let s = e.with_database("scratch");
        assert_eq!(
            s.to_string(),
            "mysql://root:***@127.0.0.1:3306/scratch?prefer_socket=false"
        );
        assert_eq!(s.database().as_deref(), Some("scratch"));
        let p = Endpoint::parse("postgres://postgres@127.0.0.1:5432")
            .unwrap()
            .with_database("x");
        assert_eq!(p.to_string(), "postgres://postgres@127.0.0.1:5432/x");
    }
}
