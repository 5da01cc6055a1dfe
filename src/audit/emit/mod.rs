//! `cutover audit --emit-sql OUT.sql`: the input scripts translated for the target, statement by
//! statement, in input order, as a stream (a dump of gigabytes is read and written with the memory
//! of one statement plus its schema). Tables take the profile's type map; data keeps its values
//! (literals are written on the MySQL lexer's tokens for the column they go into); identity resets
//! and foreign keys, which need only the schema, come after the data. What cannot be translated is
//! written commented out with the reason and the finding ids, never dropped.

mod insert;
pub mod literal;
mod partition;
pub(crate) mod table;
mod trigger;

use super::{Context, Verdict, audit_statement, input};
use crate::profile::Profile;
use crate::schema::Schema;
use crate::schema::ddl::table_from_statement;
use crate::sql::script::{ScriptError, ScriptReader, ScriptStatement};
use literal::{LiteralNotes, code_tokens, translate_tokens, word};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What `--emit-sql` wrote.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct EmitSummary {
    /// The file written.
    pub path: String,
    /// Statements read.
    pub statements: u64,
    /// Statements written for the target (translated, or unchanged because they run as they are).
    pub translated: u64,
    /// Statements written commented out (their reasons are in `commented_reasons` and the file).
    pub commented: u64,
    /// Rows of INSERT … VALUES written.
    pub rows: u64,
    /// Bytes read and written.
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Statements added at the end: identity resets and foreign keys.
    pub resets: u64,
    pub foreign_keys: u64,
    /// Zero dates written as NULL; NUL characters dropped from text values.
    pub zero_dates: u64,
    pub nul_bytes: u64,
    /// `file:line: why` for every statement written commented out.
    pub commented_reasons: Vec<String>,
}

/// Why the translation could not be written.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("--emit-sql: {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "--emit-sql: {path}:{line}: the script is not UTF-8 text; convert it (iconv -f latin1 -t utf-8) and run again"
    )]
    NotUtf8 { path: String, line: usize },
    #[error(
        "--emit-sql: {0} is not a .sql script; only scripts (mysqldump output) can be translated"
    )]
    NotScript(String),
}

/// The translator's state across statements.
struct Emitter<'a, W: Write> {
    out: W,
    profile: &'a Profile,
    /// Tables created so far (and those of `--schema`/`--source`): the column types INSERTs go into.
    schema: Schema,
    index_names: HashSet<String>,
    foreign_keys: Vec<String>,
    resets: Vec<String>,
    notes: LiteralNotes,
    summary: EmitSummary,
    options: super::AuditOptions,
}

/// Translates `inputs` (scripts) into `out` for `profile`. `schema` (from `--schema`/`--source`)
/// gives the column types of tables the scripts do not create.
pub fn emit_sql(
    inputs: &[PathBuf],
    out: &Path,
    profile: &Profile,
    schema: Option<&Schema>,
) -> Result<EmitSummary, EmitError> {
    let io_err = |p: &Path| {
        let path = p.display().to_string();
        move |source| EmitError::Io {
            path: path.clone(),
            source,
        }
    };
    for p in inputs {
        if !input::is_script(p) {
            return Err(EmitError::NotScript(p.display().to_string()));
        }
    }
    let file = std::fs::File::create(out).map_err(io_err(out))?;
    let mut e = Emitter {
        out: BufWriter::with_capacity(1 << 20, CountingWriter::new(file)),
        profile,
        schema: schema.cloned().unwrap_or_default(),
        index_names: HashSet::new(),
        foreign_keys: Vec::new(),
        resets: Vec::new(),
        notes: LiteralNotes::default(),
        summary: EmitSummary {
            path: out.display().to_string(),
            ..EmitSummary::default()
        },
        options: super::AuditOptions::default(),
    };
    e.header(inputs).map_err(io_err(out))?;
    for p in inputs {
        e.script(p, out)?;
    }
    e.tail().map_err(io_err(out))?;
    e.out.flush().map_err(io_err(out))?;
    e.summary.bytes_out = e.out.get_ref().written;
    e.summary.zero_dates = e.notes.zero_dates as u64;
    e.summary.nul_bytes = e.notes.nul_bytes as u64;
    Ok(e.summary)
}

/// Counts the bytes written through it.
struct CountingWriter<W> {
    inner: W,
    written: u64,
}

impl<W> CountingWriter<W> {
    fn new(inner: W) -> Self {
        CountingWriter { inner, written: 0 }
    }
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Emitter<'_, W> {
    fn header(&mut self, inputs: &[PathBuf]) -> std::io::Result<()> {
        writeln!(
            self.out,
            "-- Translated for {} ({}) by cutover {} audit --emit-sql from {}.",
            self.profile.name,
            self.profile.id,
            env!("CARGO_PKG_VERSION"),
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        writeln!(
            self.out,
            "-- Load with: psql -v ON_ERROR_STOP=1 -f FILE. Lines starting with `-- cutover:` say what changed;\n-- statements that could not be translated are commented out with the reason and finding ids.\nSET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\n"
        )
    }

    fn script(&mut self, path: &Path, out: &Path) -> Result<(), EmitError> {
        let display = path.display().to_string();
        let io_in = |source| EmitError::Io {
            path: display.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io_in)?;
        let mut head = std::io::BufReader::with_capacity(1 << 20, file);
        let gzip = std::io::BufRead::fill_buf(&mut head)
            .map_err(io_in)?
            .starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn std::io::Read> = if gzip {
            Box::new(flate2::read::MultiGzDecoder::new(head))
        } else {
            Box::new(head)
        };
        let mut statements = ScriptReader::new(reader).with_raw_bytes_in_strings();
        for st in statements.by_ref() {
            let st = match st {
                Ok(st) => st,
                Err(ScriptError::NotUtf8 { line }) => {
                    return Err(EmitError::NotUtf8 {
                        path: display.clone(),
                        line,
                    });
                }
                Err(ScriptError::Io(source)) => {
                    return Err(EmitError::Io {
                        path: display,
                        source,
                    });
                }
                Err(other) => {
                    return Err(EmitError::Io {
                        path: display,
                        source: std::io::Error::other(other.to_string()),
                    });
                }
            };
            self.summary.statements += 1;
            let not_utf8_before = self.notes.not_utf8_text;
            self.statement(&st, &display)
                .map_err(|source| EmitError::Io {
                    path: out.display().to_string(),
                    source,
                })?;
            if self.notes.not_utf8_text > not_utf8_before {
                // Raw bytes are kept only for binary and BIT columns.
                return Err(EmitError::NotUtf8 {
                    path: display,
                    line: st.line,
                });
            }
        }
        self.summary.bytes_in += statements.bytes_read() as u64;
        Ok(())
    }

    fn write_statement(&mut self, sql: &str) -> std::io::Result<()> {
        self.out.write_all(sql.trim_end().as_bytes())?;
        self.out.write_all(b";\n")?;
        self.summary.translated += 1;
        Ok(())
    }

    fn note(&mut self, text: &str) -> std::io::Result<()> {
        for line in text.lines() {
            writeln!(self.out, "-- cutover: {line}")?;
        }
        Ok(())
    }

    /// Writes `sql` commented out, after the reason.
    fn comment_out(&mut self, st: &ScriptStatement, file: &str, why: &str) -> std::io::Result<()> {
        let where_ = format!("{file}:{}", st.line);
        self.note(&format!("not translated ({where_}): {why}"))?;
        for line in st.text.lines() {
            writeln!(self.out, "-- {line}")?;
        }
        if st.delimiter != ";" {
            writeln!(self.out, "-- {}", st.delimiter)?;
        } else {
            writeln!(self.out, "-- ;")?;
        }
        self.summary.commented += 1;
        self.summary
            .commented_reasons
            .push(format!("{where_}: {why}"));
        Ok(())
    }

    fn statement(&mut self, st: &ScriptStatement, file: &str) -> std::io::Result<()> {
        let src = st.text.as_bytes();
        let toks = code_tokens(src);
        let words: Vec<String> = toks
            .iter()
            .filter(|t| t.kind != crate::sql::lexer::TokenKind::Whitespace)
            .take(4)
            .map(|t| word(t, src))
            .collect();
        let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
        if words.is_empty() {
            // Only comments, or a version comment MariaDB skips.
            return Ok(());
        }
        let is_trigger = w(0) == "CREATE"
            && toks
                .iter()
                .filter(|t| t.kind != crate::sql::lexer::TokenKind::Whitespace)
                .take(12)
                .any(|t| word(t, src) == "TRIGGER");
        if is_trigger && table::has_triggers(self.profile) {
            return match trigger::translate(src, &toks, &mut self.notes) {
                Ok(stmts) => {
                    self.note(&format!(
                        "{file}:{}: trigger body translated to a PL/pgSQL function (DDL-019)",
                        st.line
                    ))?;
                    for s in &stmts {
                        self.write_statement(s)?;
                    }
                    self.summary.translated -= stmts.len().saturating_sub(1) as u64;
                    Ok(())
                }
                Err(why) => self.generic(st, file, Some(&format!("trigger not translated: {why}"))),
            };
        }
        match (w(0), w(1)) {
            ("CREATE", "TABLE") | ("CREATE", "TEMPORARY") => self.create_table(st, file),
            ("INSERT", _) | ("REPLACE", _) => match insert::translate(src, &toks, &self.schema, self.profile, &mut self.notes) {
                Ok(t) => {
                    self.summary.rows += t.rows;
                    self.write_statement(&t.sql)
                }
                Err(why) => self.generic(st, file, Some(&why)),
            },
            ("SET", _) | ("USE", _) | ("LOCK", _) | ("UNLOCK", _) => {
                let what = match w(0) {
                    "USE" => "USE: connect to the target database instead (psql -d)",
                    "LOCK" | "UNLOCK" => "table locks of the dump: the load runs in its own session",
                    _ => "a MySQL session setting with no equivalent on the target",
                };
                self.comment_out(st, file, what)
            }
            ("CREATE", "DATABASE") | ("CREATE", "SCHEMA") | ("DROP", "DATABASE") | ("DROP", "SCHEMA") => self.comment_out(
                st,
                file,
                "databases are created and chosen outside the script on the target (createdb, psql -d)",
            ),
            ("ALTER", "TABLE") if toks.iter().any(|t| matches!(word(t, src).as_str(), "DISABLE" | "ENABLE")) => self.comment_out(
                st,
                file,
                "ALTER TABLE … DISABLE/ENABLE KEYS is a MyISAM load optimisation with no equivalent",
            ),
            ("DROP", "TABLE") | ("DROP", "VIEW") => {
                let mut sql = translate_tokens(src, &toks, &mut self.notes);
                if w(0) == "DROP" && w(1) == "TABLE" {
                    sql = format!("{} CASCADE", sql.trim_end());
                }
                self.write_statement(&sql)
            }
            ("START", "TRANSACTION") | ("BEGIN", _) | ("COMMIT", _) | ("ROLLBACK", _) => {
                let sql = translate_tokens(src, &toks, &mut self.notes);
                self.write_statement(&sql)
            }
            _ => self.generic(st, file, None),
        }
    }

    fn create_table(&mut self, st: &ScriptStatement, file: &str) -> std::io::Result<()> {
        let Some((t, warning)) = table_from_statement(&st.text) else {
            return self.generic(
                st,
                file,
                Some("CREATE TABLE … LIKE/SELECT is not translated"),
            );
        };
        if let Some(w) = warning {
            self.note(&format!("{file}:{}: {w}", st.line))?;
        }
        let Some(tr) = table::translate(
            &st.text,
            &t,
            self.profile,
            &mut self.index_names,
            &mut self.notes,
        ) else {
            return self.generic(st, file, Some("the column list could not be read"));
        };
        for n in &tr.notes {
            self.note(n)?;
        }
        for s in &tr.now {
            self.write_statement(s)?;
        }
        self.summary.translated -= tr.now.len().saturating_sub(1) as u64;
        self.foreign_keys.extend(tr.foreign_keys);
        self.resets.extend(tr.resets);
        // Later statements are checked and translated against this table.
        let mut tables = std::mem::take(&mut self.schema).tables;
        tables.retain(|x| !x.name.eq_ignore_ascii_case(&t.name));
        tables.push(t);
        self.schema = Schema::new(tables, None);
        Ok(())
    }

    /// Anything else: audited as the audit would; written as it is when it runs unchanged (`ok`),
    /// as the audit's complete rewrite when there is one, else commented out with the findings.
    fn generic(
        &mut self,
        st: &ScriptStatement,
        file: &str,
        why: Option<&str>,
    ) -> std::io::Result<()> {
        let d = input::distinct(st, file);
        let ctx = Context {
            profile: self.profile,
            schema: (!self.schema.is_empty()).then_some(&self.schema),
            options: &self.options,
        };
        let a = audit_statement(0, &d, &ctx);
        let blocking: Vec<String> = a
            .findings
            .iter()
            .filter(|f| f.severity == crate::profile::Severity::Error)
            .map(|f| format!("{} {}", f.rule, f.title))
            .collect();
        if why.is_none() && a.verdict != Verdict::Fail {
            let src = st.text.as_bytes();
            let toks = code_tokens(src);
            let sql = translate_tokens(src, &toks, &mut self.notes);
            return self.write_statement(&sql);
        }
        if why.is_none()
            && let Some(r) = &a.rewrite
        {
            self.note(&format!(
                "{file}:{}: rewritten ({})",
                st.line,
                a.findings
                    .iter()
                    .map(|f| f.rule.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?;
            return self.write_statement(r);
        }
        let mut reason = why.map(str::to_string).unwrap_or_default();
        if !blocking.is_empty() {
            if !reason.is_empty() {
                reason.push_str("; ");
            }
            reason.push_str(&blocking.join("; "));
        }
        if reason.is_empty() {
            reason = "the target rejects it".into();
        }
        self.comment_out(st, file, &reason)
    }

    /// The identity resets and foreign keys (counted apart from the input's statements).
    fn tail(&mut self) -> std::io::Result<()> {
        let translated = self.summary.translated;
        if !self.resets.is_empty() {
            writeln!(
                self.out,
                "\n-- cutover: identity columns continue after the loaded ids (MySQL's AUTO_INCREMENT counter)."
            )?;
            for r in std::mem::take(&mut self.resets) {
                self.write_statement(&r)?;
                self.summary.resets += 1;
            }
        }
        if !self.foreign_keys.is_empty() {
            writeln!(
                self.out,
                "\n-- cutover: foreign keys, after the data (mysqldump loads with FOREIGN_KEY_CHECKS=0)."
            )?;
            for f in std::mem::take(&mut self.foreign_keys) {
                self.write_statement(&f)?;
                self.summary.foreign_keys += 1;
            }
        }
        self.summary.translated = translated;
        Ok(())
    }
}
