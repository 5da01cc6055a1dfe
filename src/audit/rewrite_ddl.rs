//! Whole-statement rewrites of MySQL DDL the target writes differently: `ALTER TABLE` actions
//! (`ADD COLUMN … AFTER/FIRST`, `MODIFY`, `CHANGE`, `ADD INDEX/KEY/UNIQUE`, `DROP INDEX/KEY`,
//! `DROP PRIMARY KEY`, `AUTO_INCREMENT=n`, `COMMENT=`, `ENGINE=`), `RENAME TABLE`, `DROP INDEX … ON`,
//! `CREATE INDEX` with `USING` and prefix lengths, `CREATE VIEW` with `ALGORITHM`/`DEFINER`/`SQL
//! SECURITY`, `CREATE DATABASE … CHARACTER SET utf8mb4`. Written on the byte lexer's tokens; column
//! definitions go through the `--emit-sql` table translator so types and defaults match a
//! translated `CREATE TABLE`. Several target statements become one `DO` block.

use super::Context;
use super::emit::literal::{
    LiteralNotes, Slot, code_tokens, ident_name, target_ident, translate_with_slot, word,
};
use super::emit::table;
use crate::schema::ddl::table_from_statement;
use crate::schema::target::column_type;
use crate::sql::lexer::{Token, TokenKind, unquote};
use std::collections::HashSet;

/// The rules a statement translated here may carry (anything else leaves it to the token rewriter).
pub const RULES: &[&str] = &[
    "DDL-012", "DDL-013", "DDL-014", "DDL-005", "DDL-016", "DDL-021", "TYP-FAIL", "DDL-020",
];

/// Several target statements as one (replay and `--live` send one statement at a time): a `DO`
/// block, whose statements run in order as one.
pub fn one_statement(stmts: Vec<String>) -> Option<String> {
    match stmts.len() {
        0 => None,
        1 => stmts.into_iter().next(),
        _ => Some(format!(
            "DO $cutover_rw$ BEGIN\n{};\nEND $cutover_rw$",
            stmts.join(";\n")
        )),
    }
}

struct Toks<'a> {
    src: &'a [u8],
    /// Code tokens without whitespace (a trailing `;` dropped).
    t: Vec<Token>,
}

impl<'a> Toks<'a> {
    fn new(sql: &'a str) -> Toks<'a> {
        let src = sql.as_bytes();
        let mut t: Vec<Token> = code_tokens(src)
            .into_iter()
            .filter(|t| t.kind != TokenKind::Whitespace)
            .collect();
        if t.last().is_some_and(|l| l.text(src) == b";") {
            t.pop();
        }
        Toks { src, t }
    }
    fn w(&self, i: usize) -> String {
        self.t.get(i).map(|t| word(t, self.src)).unwrap_or_default()
    }
    fn text(&self, i: usize) -> &str {
        self.t
            .get(i)
            .and_then(|t| std::str::from_utf8(t.text(self.src)).ok())
            .unwrap_or("")
    }
    fn name(&self, i: usize) -> Option<String> {
        let t = self.t.get(i)?;
        matches!(t.kind, TokenKind::Word | TokenKind::QuotedIdent).then(|| ident_name(t, self.src))
    }
    /// The source text of tokens `a..b`.
    fn span(&self, a: usize, b: usize) -> &str {
        if a >= b || b > self.t.len() {
            return "";
        }
        std::str::from_utf8(&self.src[self.t[a].start..self.t[b - 1].end]).unwrap_or("")
    }
    /// Top-level comma-separated ranges of `a..b`.
    fn split(&self, a: usize, b: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let (mut depth, mut start) = (0i32, a);
        for k in a..b {
            match self.text(k) {
                "(" => depth += 1,
                ")" => depth -= 1,
                "," if depth == 0 => {
                    out.push((start, k));
                    start = k + 1;
                }
                _ => {}
            }
        }
        out.push((start, b));
        out
    }
    /// The names of the parenthesised list starting at `open` (prefix lengths as `left(c, n)`).
    fn index_columns(&self, open: usize, end: usize) -> Option<Vec<String>> {
        if self.text(open) != "(" || self.text(end - 1) != ")" {
            return None;
        }
        let mut cols = Vec::new();
        for (a, b) in self.split(open + 1, end - 1) {
            let name = target_ident(&self.name(a)?);
            let mut k = a + 1;
            let mut col = name.clone();
            if self.text(k) == "(" {
                let n: u32 = self.text(k + 1).parse().ok()?;
                if self.text(k + 2) != ")" {
                    return None;
                }
                col = format!("(left({name}, {n}))");
                k += 3;
            }
            match self.w(k).as_str() {
                "ASC" | "DESC" if k + 1 == b => col = format!("{col} {}", self.w(k)),
                _ if k == b => {}
                _ => return None,
            }
            cols.push(col);
        }
        Some(cols)
    }
}

/// A column definition written for the target.
struct Col {
    /// The whole definition (`name type [DEFAULT …] [NOT NULL] [CHECK …]`).
    def: String,
    ty: String,
    default: Option<String>,
    nullable: bool,
    /// Statements to run after (COMMENT ON COLUMN).
    more: Vec<String>,
}

/// A column definition written for the target through the table translator. None when the
/// translator leaves something out.
fn column(table: &str, def: &str, ctx: &Context) -> Option<Col> {
    let sql = format!("CREATE TABLE {} ({def})", target_ident(table));
    let (t, _) = table_from_statement(&sql)?;
    let col = t.columns.first()?;
    let mut notes = LiteralNotes::default();
    let tr = table::translate(&sql, &t, ctx.profile, &mut HashSet::new(), &mut notes)?;
    if notes.zero_dates > 0 || notes.nul_bytes > 0 || !tr.notes.is_empty() || col.auto_increment {
        return None;
    }
    let mut now = tr.now.into_iter();
    let create = now.next()?;
    let body = create
        .split_once("(\n  ")?
        .1
        .strip_suffix("\n)")?
        .to_string();
    let ty = column_type(ctx.profile, col);
    let src = sql.as_bytes();
    let toks = code_tokens(src);
    let default = table::default_tokens(src, &toks).map(|d| {
        translate_with_slot(src, &d, Slot::of_target_type(&ty), &ty, &mut notes)
            .trim()
            .to_string()
    });
    Some(Col {
        def: body,
        ty,
        default,
        nullable: col.nullable,
        more: now.collect(),
    })
}

/// The statement translated, or None.
pub fn rewrite(sql: &str, ctx: &Context) -> Option<String> {
    let k = Toks::new(sql);
    match (k.w(0).as_str(), k.w(1).as_str()) {
        ("ALTER", "TABLE") => alter_table(&k, ctx),
        ("RENAME", "TABLE") => {
            let mut out = Vec::new();
            for (a, b) in k.split(2, k.t.len()) {
                if b != a + 3 || k.w(a + 1) != "TO" {
                    return None;
                }
                out.push(format!(
                    "ALTER TABLE {} RENAME TO {}",
                    target_ident(&k.name(a)?),
                    target_ident(&k.name(a + 2)?)
                ));
            }
            one_statement(out)
        }
        ("DROP", "INDEX") if k.w(3) == "ON" && k.t.len() == 5 => {
            Some(drop_index(&k.name(4)?, &k.name(2)?))
        }
        ("CREATE", "INDEX" | "UNIQUE") => create_index(&k),
        ("CREATE", "DATABASE") => {
            let name = k.name(2)?;
            let mut i = 3;
            while i < k.t.len() {
                match k.w(i).as_str() {
                    "DEFAULT" => i += 1,
                    "CHARACTER" if k.w(i + 1) == "SET" => {
                        i += 2;
                        if k.text(i) == "=" {
                            i += 1;
                        }
                        if !k.w(i).starts_with("UTF8") {
                            return None;
                        }
                        i += 1;
                    }
                    "CHARSET" => {
                        i += 1;
                        if k.text(i) == "=" {
                            i += 1;
                        }
                        if !k.w(i).starts_with("UTF8") {
                            return None;
                        }
                        i += 1;
                    }
                    _ => return None,
                }
            }
            Some(format!(
                "CREATE DATABASE {} ENCODING 'UTF8'",
                target_ident(&name)
            ))
        }
        ("CREATE", _) => create_view(&k),
        _ => None,
    }
}

/// `DROP INDEX name` on the target: a unique key is a constraint there, an index an index.
fn drop_index(table: &str, name: &str) -> String {
    let (t, n) = (target_ident(table), target_ident(name));
    format!(
        "DO $cutover_rw$ BEGIN\nIF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = '{}'::regclass AND conname = '{}') THEN ALTER TABLE {t} DROP CONSTRAINT {n}; ELSE DROP INDEX {n}; END IF;\nEND $cutover_rw$",
        t.replace('\'', "''"),
        name.to_lowercase().replace('\'', "''")
    )
}

/// `CREATE [UNIQUE] INDEX name [USING BTREE|HASH] ON t [USING …] (cols)`.
fn create_index(k: &Toks) -> Option<String> {
    let unique = k.w(1) == "UNIQUE";
    let mut i = if unique { 3 } else { 2 };
    if k.w(i - 1) != "INDEX" {
        return None;
    }
    let name = target_ident(&k.name(i)?);
    i += 1;
    let mut using = None;
    if k.w(i) == "USING" {
        using = Some(k.w(i + 1));
        i += 2;
    }
    if k.w(i) != "ON" {
        return None;
    }
    let table = target_ident(&k.name(i + 1)?);
    i += 2;
    if k.w(i) == "USING" {
        using = Some(k.w(i + 1));
        i += 2;
    }
    let cols = k.index_columns(i, k.t.len())?;
    let using = match using.as_deref() {
        None => String::new(),
        Some("BTREE") => " USING btree".into(),
        Some("HASH") if cols.len() == 1 && !unique => " USING hash".into(),
        _ => return None,
    };
    Some(format!(
        "CREATE {}INDEX {name} ON {table}{using} ({})",
        if unique { "UNIQUE " } else { "" },
        cols.join(", ")
    ))
}

/// `CREATE [OR REPLACE] [ALGORITHM=…] [DEFINER=…] [SQL SECURITY …] VIEW name AS select`: the
/// options dropped (`SQL SECURITY INVOKER` kept as `security_invoker`), the body left to the token
/// rewriter (the caller runs it on the result).
fn create_view(k: &Toks) -> Option<String> {
    let mut i = 1;
    let mut or_replace = false;
    let mut invoker = false;
    if k.w(1) == "OR" && k.w(2) == "REPLACE" {
        or_replace = true;
        i = 3;
    }
    loop {
        match k.w(i).as_str() {
            "ALGORITHM" if k.text(i + 1) == "=" => i += 3,
            "DEFINER" if k.text(i + 1) == "=" => {
                i += 3;
                // user@host: `root`@`localhost` lexes as the user, then `@…` pieces.
                while i < k.t.len() && k.w(i) != "VIEW" && k.w(i) != "SQL" {
                    if !k.text(i).starts_with('@') && k.t[i].kind != TokenKind::QuotedIdent {
                        if k.text(i - 1).starts_with('@') || k.text(i) == "@" {
                            i += 1;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            "SQL" if k.w(i + 1) == "SECURITY" => {
                invoker = k.w(i + 2) == "INVOKER";
                i += 3;
            }
            "VIEW" => break,
            _ => return None,
        }
    }
    if i == 1 {
        return None;
    }
    let name = k.span(i + 1, i + 2);
    if k.w(i + 2) != "AS" || name.is_empty() {
        return None;
    }
    Some(format!(
        "CREATE {}VIEW {name}{} AS {}",
        if or_replace { "OR REPLACE " } else { "" },
        if invoker {
            " WITH (security_invoker = true)"
        } else {
            ""
        },
        k.span(i + 3, k.t.len())
    ))
}

fn alter_table(k: &Toks, ctx: &Context) -> Option<String> {
    let tname = k.name(2)?;
    let t = target_ident(&tname);
    // Actions of the ALTER TABLE itself, and statements to run after it.
    let mut actions: Vec<String> = Vec::new();
    let mut before: Vec<String> = Vec::new();
    let mut after: Vec<String> = Vec::new();
    // ENGINE=InnoDB, which rebuilds the table in place.
    let mut innodb = false;
    for (a, b) in k.split(3, k.t.len()) {
        let w0 = k.w(a);
        let w1 = k.w(a + 1);
        match (w0.as_str(), w1.as_str()) {
            ("ADD", "INDEX" | "KEY") => {
                let (name, open) = if k.text(a + 2) == "(" {
                    (None, a + 2)
                } else {
                    (Some(target_ident(&k.name(a + 2)?)), a + 3)
                };
                let cols = k.index_columns(open, b)?;
                after.push(match name {
                    Some(n) => format!("CREATE INDEX {n} ON {t} ({})", cols.join(", ")),
                    None => format!("CREATE INDEX ON {t} ({})", cols.join(", ")),
                });
            }
            ("ADD", "UNIQUE") => {
                let mut i = a + 2;
                if matches!(k.w(i).as_str(), "KEY" | "INDEX") {
                    i += 1;
                }
                let name = if k.text(i) == "(" {
                    None
                } else {
                    i += 1;
                    Some(target_ident(&k.name(i - 1)?))
                };
                let cols = k.index_columns(i, b)?;
                if cols.iter().any(|c| c.starts_with('(')) {
                    return None;
                }
                actions.push(match name {
                    Some(n) => format!("ADD CONSTRAINT {n} UNIQUE ({})", cols.join(", ")),
                    None => format!("ADD UNIQUE ({})", cols.join(", ")),
                });
            }
            ("ADD", "PRIMARY") if k.w(a + 2) == "KEY" => {
                let cols = k.index_columns(a + 3, b)?;
                actions.push(format!("ADD PRIMARY KEY ({})", cols.join(", ")));
            }
            ("ADD", "FULLTEXT") => {
                let mut i = a + 2;
                if matches!(k.w(i).as_str(), "KEY" | "INDEX") {
                    i += 1;
                }
                let (name, open) = if k.text(i) == "(" {
                    (None, i)
                } else {
                    (Some(target_ident(&k.name(i)?)), i + 1)
                };
                let cols = k.index_columns(open, b)?;
                if cols.iter().any(|c| c.starts_with('(') || c.contains(' ')) {
                    return None;
                }
                let name =
                    name.unwrap_or_else(|| target_ident(&format!("{tname}_{}", cols.join("_"))));
                after.push(table::search_index(&name, &t, &cols)?);
            }
            ("ADD", "SPATIAL" | "CONSTRAINT" | "FOREIGN" | "CHECK") => return None,
            ("ADD", _) => {
                let start = if w1 == "COLUMN" { a + 2 } else { a + 1 };
                let mut end = b;
                if k.w(b - 1) == "FIRST" {
                    end = b - 1;
                } else if b >= 2 && k.w(b - 2) == "AFTER" {
                    end = b - 2;
                }
                let col = column(&tname, k.span(start, end), ctx)?;
                actions.push(format!("ADD COLUMN {}", col.def));
                after.extend(col.more);
            }
            ("MODIFY", _) | ("CHANGE", _) => {
                let mut i = if w1 == "COLUMN" { a + 2 } else { a + 1 };
                let old = k.name(i)?;
                if w0 == "CHANGE" {
                    i += 1;
                }
                let new = k.name(i)?;
                let mut end = b;
                if k.w(b - 1) == "FIRST" {
                    end = b - 1;
                } else if b >= 2 && k.w(b - 2) == "AFTER" {
                    end = b - 2;
                }
                let Col {
                    ty,
                    default,
                    nullable,
                    more,
                    ..
                } = column(&tname, k.span(i, end), ctx)?;
                if !more.is_empty() {
                    return None;
                }
                let c = target_ident(&new);
                if !old.eq_ignore_ascii_case(&new) {
                    before.push(format!(
                        "ALTER TABLE {t} RENAME COLUMN {} TO {c}",
                        target_ident(&old)
                    ));
                }
                actions.push(format!("ALTER COLUMN {c} TYPE {ty} USING {c}::{ty}"));
                actions.push(format!(
                    "ALTER COLUMN {c} {} NOT NULL",
                    if nullable { "DROP" } else { "SET" }
                ));
                actions.push(match default {
                    Some(d) => format!("ALTER COLUMN {c} SET DEFAULT {d}"),
                    None => format!("ALTER COLUMN {c} DROP DEFAULT"),
                });
            }
            ("DROP", "INDEX" | "KEY") if b == a + 3 => {
                after.push(drop_index(&tname, &k.name(a + 2)?));
            }
            ("DROP", "PRIMARY") if k.w(a + 2) == "KEY" && b == a + 3 => {
                // The target names a primary key <table>_pkey unless told otherwise.
                actions.push(format!(
                    "DROP CONSTRAINT {}",
                    target_ident(&format!("{tname}_pkey"))
                ));
            }
            ("ENGINE", _) if b == a + 3 && k.text(a + 1) == "=" => {
                innodb = k.w(a + 2) == "INNODB";
            }
            ("ENGINE", _) if b == a + 2 => innodb = k.w(a + 1) == "INNODB",
            ("COMMENT", _) => {
                let s = if k.text(a + 1) == "=" { a + 2 } else { a + 1 };
                if b != s + 1 || k.t[s].kind != TokenKind::String {
                    return None;
                }
                let mut nul = 0;
                let v = super::emit::literal::pg_string(&unquote(k.t[s].text(k.src)), &mut nul);
                after.push(format!("COMMENT ON TABLE {t} IS {v}"));
            }
            ("AUTO_INCREMENT", _) => {
                let s = if k.text(a + 1) == "=" { a + 2 } else { a + 1 };
                let n: u64 = k.text(s).parse().ok()?;
                if b != s + 1 {
                    return None;
                }
                let col = ctx
                    .schema?
                    .table(&tname)?
                    .columns
                    .iter()
                    .find(|c| c.auto_increment)?
                    .name
                    .clone();
                actions.push(format!(
                    "ALTER COLUMN {} RESTART WITH {n}",
                    target_ident(&col)
                ));
            }
            _ => return None,
        }
    }
    let mut stmts = before;
    if !actions.is_empty() {
        stmts.push(format!("ALTER TABLE {t} {}", actions.join(", ")));
    }
    stmts.extend(after);
    if stmts.is_empty() && innodb {
        // Alone, MySQL rebuilds the table in the engine it has: the target's own rebuild into its
        // (only) table access method.
        return Some(format!("ALTER TABLE {t} SET ACCESS METHOD heap"));
    }
    if stmts.is_empty() {
        return None;
    }
    one_statement(stmts)
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use crate::audit::with_postgres;

    fn rw(sql: &str) -> Option<String> {
        with_postgres(|ctx| rewrite(sql, ctx))
    }

    #[test]
    fn translates_alter_table() {
        assert_eq!(
            rw("ALTER TABLE customers ADD COLUMN nickname VARCHAR(30) NULL AFTER name").as_deref(),
            Some("ALTER TABLE customers ADD COLUMN nickname varchar(30)")
        );
        assert_eq!(
            rw("ALTER TABLE kv MODIFY COLUMN hits BIGINT NOT NULL DEFAULT 1").as_deref(),
            Some(
                "ALTER TABLE kv ALTER COLUMN hits TYPE bigint USING hits::bigint, ALTER COLUMN hits SET NOT NULL, ALTER COLUMN hits SET DEFAULT 1"
            )
        );
        let change = rw("ALTER TABLE customers CHANGE name full_name VARCHAR(120) NOT NULL")
            .unwrap_or_default();
        assert!(change.starts_with("DO $cutover_rw$ BEGIN\nALTER TABLE customers RENAME COLUMN name TO full_name;\nALTER TABLE customers ALTER COLUMN full_name TYPE varchar(120)"), "{change}");
        assert_eq!(
            rw("ALTER TABLE orders ADD INDEX idx_s (status)").as_deref(),
            Some("CREATE INDEX idx_s ON orders (status)")
        );
        assert_eq!(
            rw("ALTER TABLE customers ADD UNIQUE KEY uk_code (code)").as_deref(),
            Some("ALTER TABLE customers ADD CONSTRAINT uk_code UNIQUE (code)")
        );
        assert!(
            rw("ALTER TABLE products DROP KEY uk_sku")
                .is_some_and(|s| s.contains("DROP CONSTRAINT uk_sku; ELSE DROP INDEX uk_sku;"))
        );
        assert_eq!(
            rw("ALTER TABLE products COMMENT='catalogue'").as_deref(),
            Some("COMMENT ON TABLE products IS 'catalogue'")
        );
        assert_eq!(
            rw("ALTER TABLE kv ENGINE=InnoDB").as_deref(),
            Some("ALTER TABLE kv SET ACCESS METHOD heap")
        );
        assert_eq!(rw("ALTER TABLE kv ENGINE=MyISAM"), None);
        assert_eq!(
            rw("ALTER TABLE products ADD FULLTEXT INDEX ft (title)").as_deref(),
            Some("CREATE INDEX ft ON products USING gin (to_tsvector('simple', title))")
        );
        assert_eq!(
            rw("ALTER TABLE products ADD FULLTEXT (title, sku)").as_deref(),
            Some(
                "CREATE INDEX products_title_sku ON products USING gin (to_tsvector('simple', coalesce(title, '') || ' ' || coalesce(sku, '')))"
            )
        );
    }

    #[test]
    fn translates_other_ddl() {
        assert_eq!(
            rw("RENAME TABLE kv TO kv_archive").as_deref(),
            Some("ALTER TABLE kv RENAME TO kv_archive")
        );
        assert_eq!(
            rw("CREATE INDEX idx_t USING BTREE ON products (title(8))").as_deref(),
            Some("CREATE INDEX idx_t ON products USING btree ((left(title, 8)))")
        );
        assert_eq!(
            rw("CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` AS select 1").as_deref(),
            Some("CREATE VIEW `v` AS select 1")
        );
        assert_eq!(
            rw("CREATE DATABASE d DEFAULT CHARACTER SET utf8mb4").as_deref(),
            Some("CREATE DATABASE d ENCODING 'UTF8'")
        );
    }
}
