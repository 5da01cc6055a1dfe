//! The target profile: the one source of rules, type map and function map for a target database
//! (PostgreSQL, KingbaseES in MySQL or PostgreSQL mode, KaiwuDB), held as data in `checklists/*.toml`.
//! The audit judges statements by it, schema translation (`--live-setup`, `--emit-sql`) writes its
//! types, and verify checks the target's columns against them, so a column gets one answer
//! everywhere.

mod catalog;
mod finding;
pub mod rewrite;
mod types;

pub use catalog::{
    BUILTIN, CatalogError, FunctionMapping, Profile, Rule, Severity, TypeMapping, load_profile,
};
pub use finding::{Finding, Rewrites, StatementRewriter};

/// The profile a target URL implies when none is named: its scheme says which server it is
/// (`kingbase://` means a cluster in MySQL mode; name `kingbase-pg` otherwise). None for MySQL.
pub fn default_for(target: &crate::db::Endpoint) -> Option<&'static str> {
    use crate::db::Flavor;
    match target.flavor {
        Flavor::Postgres => Some("postgres"),
        Flavor::Kingbase => Some("kingbase"),
        Flavor::KaiwuDb => Some("kaiwudb"),
        Flavor::MySql => None,
    }
}
