//! AST detectors: statements parsed with sqlparser (MySQL dialect) and walked with the schema at hand,
//! typing each expression as the target would ([`typing`]) to find comparisons, arithmetic, function
//! calls and assignments the target rejects or evaluates differently, plus DDL column types and
//! options, GROUP BY/HAVING rules, ordering and collation dependencies.
//!
//! One `Checker` walks a statement; its `impl` is spread over the submodules by job: `scope`
//! (tables and column resolution), `query` (SELECT and set operations), `grouping` (GROUP BY and
//! HAVING), `expr` and `operators` (typing expressions), `functions` (calls), `dml` and `ddl`.
//!
//! [`typing`]: crate::audit::typing

mod ddl;
mod dml;
mod expr;
mod functions;
mod grouping;
mod operators;
mod query;
mod scope;

pub use ddl::type_hits;

use super::typing::Ty;
use super::{Context, Hit};
use crate::profile::Profile;
use crate::schema::{Column, Table};
use sqlparser::ast::*;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

/// Parses one statement with sqlparser's MySQL dialect; `None` when it cannot.
pub fn parse(sql: &str) -> Option<Statement> {
    let mut p = Parser::new(&MySqlDialect {})
        .with_recursion_limit(200)
        .try_with_sql(sql)
        .ok()?;
    let st = p.parse_statement().ok()?;
    // Anything after the statement but a `;` means it was not understood as one statement.
    while p.consume_token(&sqlparser::tokenizer::Token::SemiColon) {}
    if p.peek_token().token != sqlparser::tokenizer::Token::EOF {
        return None;
    }
    Some(st)
}

/// An expression's type, and the column it is when it is one.
#[derive(Clone)]
struct Typed<'a> {
    ty: Ty,
    col: Option<&'a Column>,
    table: Option<&'a Table>,
}

impl<'a> Typed<'a> {
    fn of(ty: Ty) -> Typed<'a> {
        Typed {
            ty,
            col: None,
            table: None,
        }
    }
    fn nullable(&self) -> bool {
        match (&self.ty, self.col) {
            (Ty::Null, _) => true,
            (_, Some(c)) => c.nullable,
            _ => false,
        }
    }
    fn ci(&self) -> bool {
        self.col.is_some_and(|c| c.case_insensitive())
    }
}

struct ScopeEntry<'a> {
    /// The name the statement uses for the table (its alias, else its name).
    name: String,
    table: Option<&'a Table>,
}

/// The walk over one statement: the tables in scope, the select-list aliases of the SELECT being
/// checked, and the findings so far.
struct Checker<'a, 'c> {
    ctx: &'c Context<'a>,
    sql: &'c str,
    scope: Vec<ScopeEntry<'a>>,
    aliases: Vec<String>,
    hits: Vec<Hit>,
}

fn pos(e: &impl Spanned) -> (u64, u64) {
    let s = e.span().start;
    (s.line, s.column)
}

fn ipos(i: &Ident) -> (u64, u64) {
    (i.span.start.line, i.span.start.column)
}

fn last_ident(name: &ObjectName) -> Option<&Ident> {
    name.0.last().and_then(|p| p.as_ident())
}

pub fn hits(stmt: &Statement, sql: &str, ctx: &Context) -> Vec<Hit> {
    let mut c = Checker {
        ctx,
        sql,
        scope: Vec::new(),
        aliases: Vec::new(),
        hits: Vec::new(),
    };
    c.scope = c.statement_scope(stmt);
    match stmt {
        Statement::Query(q) => c.query(q),
        Statement::Insert(ins) => c.insert(ins),
        Statement::Update(u) => c.update(u),
        Statement::Delete(d) => c.delete(d),
        Statement::CreateTable(ct) => c.create_table(ct),
        Statement::AlterTable(at) => c.alter_table(at),
        Statement::CreateView(v) => c.query(&v.query),
        _ => c.scan_functions(stmt),
    }
    c.hits
}

impl<'a, 'c> Checker<'a, 'c> {
    fn push(&mut self, h: Hit) {
        self.hits.push(h);
    }

    fn profile(&self) -> &'a Profile {
        self.ctx.profile
    }
}
