//! Database connections shared by audit (live confirmation), replay and verify: URLs, connecting with
//! session settings that make output comparable, running statements, and the canonical value type
//! ([`value`]) that results from both engines are compared in.
//!
//! Passwords never leave this module: [`Endpoint`]'s `Display` masks them, and errors name the endpoint
//! through it.

pub mod compare;
pub mod dialect;
pub mod exec;
pub mod value;

use std::fmt;

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
    /// The connection is gone (see [`dialect::Dialect::lost_connection_codes`]; the codes of the
    /// two engines do not collide, so this needs no endpoint).
    pub fn connection_lost(&self) -> bool {
        dialect::MYSQL.lost_connection(self) || dialect::POSTGRES.lost_connection(self)
    }

    /// The server's error code (MySQL errno or SQLSTATE), when the server answered with an error.
    pub fn code(&self) -> Option<&str> {
        match self {
            DbError::Server { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// Masks the password of a URL (`scheme://user:secret@host` → `scheme://user:***@host`).
pub fn mask_password(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            match userinfo.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme_end + 3],
                    &userinfo[..colon],
                    &rest[at..]
                ),
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    }
}

impl Endpoint {
    pub fn parse(url: &str) -> Result<Endpoint, DbError> {
        let shown = mask_password(url);
        let bad = |why: &str| DbError::BadUrl {
            url: shown.clone(),
            why: why.to_string(),
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
        // Check the URL parses now, so a typo is reported before any work starts.
        match engine {
            Engine::MySql => {
                mysql_async::Opts::from_url(&url).map_err(|e| bad(&e.to_string()))?;
            }
            Engine::Postgres => {
                url.parse::<tokio_postgres::Config>()
                    .map_err(|e| bad(&e.to_string()))?;
            }
        }
        Ok(Endpoint {
            engine,
            flavor,
            url,
            shown,
        })
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
        }
    }

    pub(crate) fn raw_url(&self) -> &str {
        &self.url
    }
}

/// Turns a driver's connection error into an actionable message.
pub(crate) fn connect_error(endpoint: &Endpoint, message: String) -> DbError {
    let lower = message.to_lowercase();
    let hint = if lower.contains("refused")
        || lower.contains("no such file")
        || lower.contains("timed out")
    {
        "Is the server running and listening there? For the local test servers run scripts/setup-servers.sh"
    } else if lower.contains("access denied")
        || lower.contains("password")
        || lower.contains("authentication")
    {
        "Check the user name and password in the URL, and that this user may connect from here"
    } else if lower.contains("unknown database") || lower.contains("does not exist") {
        "Check the database name at the end of the URL"
    } else {
        "Check the URL and that the server is reachable"
    };
    DbError::Connect {
        endpoint: endpoint.to_string(),
        message: scrub(&message, endpoint),
        hint: hint.to_string(),
    }
}

/// Removes anything that looks like the endpoint's password from a driver message.
pub(crate) fn scrub(message: &str, endpoint: &Endpoint) -> String {
    let password = match endpoint.engine {
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
    match password {
        Some(p) if !p.is_empty() => message.replace(&p, "***"),
        _ => message.to_string(),
    }
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
