//! Where a password comes from when the URL has none, as the clients do it: a `--password-file`
//! (one line: the password itself; several: `.pgpass` lines `host:port:database:user:password`,
//! `*` matching anything), then `MYSQL_PWD` for MySQL URLs and `PGPASSWORD` for PostgreSQL-protocol
//! ones. A password in the URL wins over both.
//!
//! And masking: every form a password can take in a connection string (`user:secret@` in a URL, even
//! a malformed one; `?password=` and its aliases as URL parameters; `password=` in a libpq key/value
//! string) is replaced by `***` before anything is printed.

use super::Engine;
use std::path::Path;
use std::sync::OnceLock;

/// Passwords from a `--password-file`.
#[derive(Clone, Debug, Default)]
pub struct PasswordFile {
    /// The whole file, when it is one line without `:` fields.
    single: Option<String>,
    entries: Vec<PassEntry>,
}

#[derive(Clone, Debug)]
struct PassEntry {
    host: String,
    port: String,
    database: String,
    user: String,
    password: String,
}

static PASSWORD_FILE: OnceLock<PasswordFile> = OnceLock::new();

/// What went wrong reading a password file (the message never holds its content).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct PasswordFileError {
    path: String,
    why: String,
}

impl PasswordFile {
    pub fn read(path: &Path) -> Result<PasswordFile, PasswordFileError> {
        let err = |why: String| PasswordFileError {
            path: path.display().to_string(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            err(format!(
                "cannot read the password file ({e}); give a readable file with the password on its first line"
            ))
        })?;
        PasswordFile::parse(&text).map_err(err)
    }

    pub fn parse(text: &str) -> Result<PasswordFile, String> {
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        if lines.is_empty() {
            return Err("the password file is empty".into());
        }
        let fields: Vec<Vec<String>> = lines.iter().map(|l| split_pgpass(l)).collect();
        if lines.len() == 1 && fields[0].len() != 5 {
            return Ok(PasswordFile {
                single: Some(lines[0].to_string()),
                entries: Vec::new(),
            });
        }
        let mut entries = Vec::new();
        for (i, f) in fields.into_iter().enumerate() {
            let [host, port, database, user, password]: [String; 5] =
                f.try_into().map_err(|f: Vec<String>| {
                    format!(
                        "line {} has {} fields; write host:port:database:user:password (\\: for a colon in a field, * for any)",
                        i + 1,
                        f.len()
                    )
                })?;
            entries.push(PassEntry {
                host,
                port,
                database,
                user,
                password,
            });
        }
        Ok(PasswordFile {
            single: None,
            entries,
        })
    }

    /// The password for a connection, if the file has one.
    pub fn lookup(&self, host: &str, port: u16, database: &str, user: &str) -> Option<&str> {
        if let Some(s) = &self.single {
            return Some(s);
        }
        let port = port.to_string();
        let m = |pat: &str, v: &str| pat == "*" || pat == v;
        self.entries
            .iter()
            .find(|e| {
                m(&e.host, host)
                    && m(&e.port, &port)
                    && m(&e.database, database)
                    && m(&e.user, user)
            })
            .map(|e| e.password.as_str())
    }
}

/// `.pgpass` fields: `:` separates, `\:` and `\\` stand for themselves.
fn split_pgpass(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(n), Some(s)) = (chars.next(), out.last_mut()) {
                    s.push(n);
                }
            }
            ':' => out.push(String::new()),
            c => {
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    out
}

/// Makes `file` the password source of every endpoint parsed from now on (the CLI's
/// `--password-file`). Set once; a second call is refused.
pub fn use_password_file(file: PasswordFile) -> Result<(), &'static str> {
    PASSWORD_FILE
        .set(file)
        .map_err(|_| "a password file is already in use")
}

/// The password for an endpoint whose URL has none: the password file, then the engine's variable.
pub(crate) fn password_for(
    engine: Engine,
    host: &str,
    port: u16,
    database: &str,
    user: &str,
) -> Option<String> {
    if let Some(p) = PASSWORD_FILE
        .get()
        .and_then(|f| f.lookup(host, port, database, user))
    {
        return Some(p.to_string());
    }
    let var = match engine {
        Engine::MySql => "MYSQL_PWD",
        Engine::Postgres => "PGPASSWORD",
    };
    std::env::var(var).ok().filter(|p| !p.is_empty())
}

/// Key names whose value is a password, in URL parameters and libpq key/value strings.
const PASSWORD_KEYS: &[&str] = &["password", "passwd", "pass", "pwd", "sslpassword"];

/// A connection string with every password in it replaced by `***`: `user:secret@host` in a URL
/// (also without a scheme, or with a malformed one such as `mysql//u:pw@h`), URL parameters
/// (`?password=…&…`) and libpq key/value pairs (`host=h password='a b'`).
pub fn mask_password(text: &str) -> String {
    mask_key_values(&mask_userinfo(text))
}

fn mask_userinfo(url: &str) -> String {
    // The userinfo ends at the last '@' before the query; it starts after the last "//" before that
    // '@' (or at the start: `u:pw@host` and `mysql:u:pw@host` are still masked).
    let query_start = url.find('?').unwrap_or(url.len());
    let Some(at) = url[..query_start].rfind('@') else {
        return url.to_string();
    };
    // A URL holds no blanks or quotes: the userinfo starts after the last of them too, so that a
    // driver message such as `Access denied for user 'app'@'host'` is left alone.
    let start = url[..at]
        .rfind(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '(' | '<' | ',' | '/'))
        .map_or(0, |i| i + 1);
    let userinfo = &url[start..at];
    // Without "//", `mysql:u:pw@h`: a scheme word before the first colon is not the user.
    let skip = match userinfo.split_once(':') {
        Some((scheme, _))
            if start == 0
                && super::SCHEMES
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(scheme)) =>
        {
            scheme.len() + 1
        }
        _ => 0,
    };
    match userinfo[skip..].find(':') {
        Some(c) => format!("{}***{}", &url[..start + skip + c + 1], &url[at..]),
        None => url.to_string(),
    }
}

/// Masks `key=value` pairs whose key is a password key, where the key starts a parameter (after
/// the start, `?`, `&`, `;` or white space). The value ends at `&`, `;` or white space, or is quoted.
fn mask_key_values(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let at_boundary = i == 0 || matches!(b[i - 1], b'?' | b'&' | b';' | b' ' | b'\t' | b'\n');
        if !at_boundary {
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let key = PASSWORD_KEYS.iter().find(|k| {
            rest.len() >= k.len()
                && rest.as_bytes()[..k.len()].eq_ignore_ascii_case(k.as_bytes())
                && rest[k.len()..].trim_start().starts_with('=')
        });
        let Some(key) = key else {
            i += 1;
            continue;
        };
        let after_key = &rest[key.len()..];
        let eq = i + key.len() + (after_key.len() - after_key.trim_start().len()) + 1;
        let value_start =
            eq + (text[eq..].len() - text[eq..].trim_start_matches([' ', '\t']).len());
        let value_end = match b.get(value_start) {
            Some(&q @ (b'\'' | b'"')) => {
                let mut j = value_start + 1;
                while j < b.len() && b[j] != q {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                (j + 1).min(b.len())
            }
            _ => text[value_start..]
                .find(['&', ';', ' ', '\t', '\n'])
                .map_or(b.len(), |e| value_start + e),
        };
        out.push_str(&text[copied..value_start]);
        out.push_str("***");
        copied = value_end;
        i = value_end.max(i + 1);
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_every_form() {
        let cases = [
            (
                "mysql://app:s3cret@db:3306/shop",
                "mysql://app:***@db:3306/shop",
            ),
            ("postgres://u@h/db", "postgres://u@h/db"),
            ("postgres://u:p@a@h/db?x=1", "postgres://u:***@h/db?x=1"),
            ("mysql//u:pw@h/db", "mysql//u:***@h/db"),
            ("mysql:u:pw@h", "mysql:u:***@h"),
            ("u:pw@h:3306/db", "u:***@h:3306/db"),
            (
                "postgres://u@h/db?sslmode=disable&password=topsecret&x=1",
                "postgres://u@h/db?sslmode=disable&password=***&x=1",
            ),
            (
                "mysql://u@h/db?PASSWORD=topsecret",
                "mysql://u@h/db?PASSWORD=***",
            ),
            (
                "host=h port=5432 password=topsecret dbname=test",
                "host=h port=5432 password=*** dbname=test",
            ),
            (
                "host=h password = 'top secret' dbname=test",
                "host=h password = *** dbname=test",
            ),
            ("user=u pwd=topsecret", "user=u pwd=***"),
            (
                "no secret here: mypassword=1",
                "no secret here: mypassword=1",
            ),
            (
                "Server error: Access denied for user 'app'@'127.0.0.1' (using password: NO)",
                "Server error: Access denied for user 'app'@'127.0.0.1' (using password: NO)",
            ),
            (
                "cannot connect to mysql://app:pw@db/x: refused",
                "cannot connect to mysql://app:***@db/x: refused",
            ),
        ];
        for (given, want) in cases {
            assert_eq!(mask_password(given), want, "{given}");
        }
    }

    #[test]
    fn reads_password_files() {
        let one = PasswordFile::parse("s3cret\n").unwrap();
        assert_eq!(one.lookup("h", 1, "d", "u"), Some("s3cret"));
        let pgpass = PasswordFile::parse(
            "# comment\n127.0.0.1:3306:*:root:my\\:pw\n*:5432:test:postgres:pgpw\n",
        )
        .unwrap();
        assert_eq!(
            pgpass.lookup("127.0.0.1", 3306, "test", "root"),
            Some("my:pw")
        );
        assert_eq!(pgpass.lookup("db", 5432, "test", "postgres"), Some("pgpw"));
        assert_eq!(pgpass.lookup("db", 5432, "other", "postgres"), None);
        assert!(PasswordFile::parse("").is_err());
        let bad = PasswordFile::parse("a:b:c:d:e\nf:g\n").unwrap_err();
        assert!(bad.contains("line 2") && !bad.contains("f:g"), "{bad}");
    }
}
