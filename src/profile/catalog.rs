//! Loading target profiles from the rule catalogs, type maps and function maps in `checklists/*.toml`.
//!
//! A profile names the profile it `extends`; its tables are merged over the parent's key by key, so
//! `kingbase` and `kaiwudb` only say where they differ from the shared `postgres-family` base. The
//! catalogs are compiled into the binary; `--checklists DIR` reads them from a directory instead.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The catalogs shipped with cutover.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "postgres-family",
        include_str!("../../checklists/postgres-family.toml"),
    ),
    ("postgres", include_str!("../../checklists/postgres.toml")),
    ("kingbase", include_str!("../../checklists/kingbase.toml")),
    (
        "kingbase-pg",
        include_str!("../../checklists/kingbase-pg.toml"),
    ),
    ("kaiwudb", include_str!("../../checklists/kaiwudb.toml")),
];

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The target rejects the statement.
    Error,
    /// The target runs it, but results or behaviour may differ.
    Warning,
    /// A claim nobody has verified on this target (vendor statements): check it on a live target.
    Notice,
    /// Worth knowing; no change in behaviour.
    Info,
    /// The rule does not apply to this target.
    Off,
}

/// One rule of a catalog.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Rule {
    #[serde(default)]
    pub category: String,
    pub severity: Option<Severity>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub rewrite: Option<String>,
    /// Where the fact comes from (source file, documentation page).
    #[serde(default)]
    pub evidence: Option<String>,
    /// How sure we are: `src` (read in the target's source), `doc` (official docs), `vblog` (vendor
    /// marketing), `3p` (third party), `inf` (inferred), `live` (observed on a real server).
    #[serde(default)]
    pub confidence: Option<String>,
}

/// How a MySQL type fares on the target.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TypeMapping {
    /// What happens when the MySQL type is written as it is: `fails`, `differs` or `same`.
    #[serde(default)]
    pub written: Option<String>,
    /// The type to use on the target, as advice for people (may name alternatives).
    #[serde(default)]
    pub target: Option<String>,
    /// The one type cutover writes for it: a template with `$n` (length), `$m`, `$d` (precision,
    /// scale) and `$type` (the MySQL type as written). See [`Profile::target_type`].
    #[serde(default)]
    pub ddl: Option<String>,
    /// The target type's class, for expression typing (integer, numeric, float, bool, text, char,
    /// bytes, date, time, timestamp, timestamptz, json, bits, enum).
    #[serde(default)]
    pub class: Option<String>,
    /// What can be lost or changes.
    #[serde(default)]
    pub note: Option<String>,
}

/// How a MySQL function fares on the target.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FunctionMapping {
    /// `missing` (the target has no such function), `differs` (it has one that behaves
    /// differently), `same`, or `syntax` (the call's syntax itself is rejected).
    #[serde(default)]
    pub status: Option<String>,
    /// The rewrite, for people (`COALESCE(a, b)`).
    #[serde(default)]
    pub rewrite: Option<String>,
    /// The class of the result: a class name, or `argN` for the class of argument N (1-based).
    #[serde(default)]
    pub returns: Option<String>,
    /// For functions the target has: per arity, the classes each argument accepts (`text`,
    /// `numeric`, `any`). An argument of another, known class makes the call fail.
    #[serde(default)]
    pub args: Option<Vec<Vec<String>>>,
    /// When `differs` applies: `always`, `nullable_args`, `non_ascii`, `negative_arg`.
    #[serde(default)]
    pub differs_when: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// Mechanical rewrites of a call, by number of arguments (`"2"`, or `"*"` for any), with `$1`,
    /// `$2`, … for the arguments (already rewritten), `$*` for all of them and `$||` for all of them
    /// as text joined with `||` (NULL when one is).
    #[serde(default)]
    pub template: Option<BTreeMap<String, String>>,
}

/// A target profile, merged with the profiles it extends.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Profile {
    pub id: String,
    pub name: String,
    pub rules: BTreeMap<String, Rule>,
    pub types: BTreeMap<String, TypeMapping>,
    pub functions: BTreeMap<String, FunctionMapping>,
    /// Words the target reserves: unquoted as names they are syntax errors.
    pub reserved_words: Vec<String>,
    /// Keywords that cannot be a column alias without AS.
    pub as_label_words: Vec<String>,
    /// The profile chain, base first.
    pub lineage: Vec<String>,
}

#[derive(Deserialize)]
struct ProfileFile {
    profile: ProfileHeader,
    #[serde(default)]
    rules: BTreeMap<String, toml::Table>,
    #[serde(default)]
    types: BTreeMap<String, toml::Table>,
    #[serde(default)]
    functions: BTreeMap<String, toml::Table>,
    #[serde(default)]
    keywords: Option<Keywords>,
}

#[derive(Deserialize)]
struct ProfileHeader {
    id: String,
    name: String,
    extends: Option<String>,
}

#[derive(Deserialize, Default)]
struct Keywords {
    #[serde(default)]
    reserved: Vec<String>,
    #[serde(default)]
    as_label: Vec<String>,
}

/// Why a profile could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(
        "no target profile {0:?}: use postgres, kingbase or kaiwudb (or add checklists/{0}.toml)"
    )]
    Unknown(String),
    #[error("checklists/{file}.toml: {message}")]
    Invalid { file: String, message: String },
    #[error("checklists/{0}.toml extends itself (directly or through other profiles)")]
    Cycle(String),
}

fn source_of(id: &str, dir: Option<&Path>) -> Result<String, CatalogError> {
    if let Some(d) = dir {
        let p = d.join(format!("{id}.toml"));
        if p.exists() {
            return std::fs::read_to_string(&p).map_err(|e| CatalogError::Invalid {
                file: id.to_string(),
                message: e.to_string(),
            });
        }
    }
    BUILTIN
        .iter()
        .find(|(n, _)| *n == id)
        .map(|(_, s)| s.to_string())
        .ok_or_else(|| CatalogError::Unknown(id.to_string()))
}

/// Merges `over` into `base`, field by field.
fn merge(base: &mut BTreeMap<String, toml::Table>, over: BTreeMap<String, toml::Table>) {
    for (k, v) in over {
        let slot = base.entry(k).or_default();
        for (f, x) in v {
            slot.insert(f, x);
        }
    }
}

fn typed<T: for<'de> Deserialize<'de>>(
    file: &str,
    section: &str,
    m: BTreeMap<String, toml::Table>,
) -> Result<BTreeMap<String, T>, CatalogError> {
    m.into_iter()
        .map(|(k, v)| {
            toml::Value::Table(v)
                .try_into::<T>()
                .map(|t| (k.clone(), t))
                .map_err(|e| CatalogError::Invalid {
                    file: file.to_string(),
                    message: format!("[{section}.{k}]: {e}"),
                })
        })
        .collect()
}

/// Loads profile `id` (and what it extends), from `dir` when given, else the built-in catalogs.
pub fn load_profile(id: &str, dir: Option<&Path>) -> Result<Profile, CatalogError> {
    let mut chain = Vec::new();
    let mut next = Some(id.to_string());
    while let Some(cur) = next {
        if chain.iter().any(|(c, _): &(String, ProfileFile)| *c == cur) {
            return Err(CatalogError::Cycle(cur));
        }
        let text = source_of(&cur, dir)?;
        let file: ProfileFile = toml::from_str(&text).map_err(|e| CatalogError::Invalid {
            file: cur.clone(),
            message: e.to_string(),
        })?;
        if file.profile.id != cur {
            return Err(CatalogError::Invalid {
                file: cur.clone(),
                message: format!("[profile] id is {:?}, expected {cur:?}", file.profile.id),
            });
        }
        next = file.profile.extends.clone();
        chain.push((cur, file));
    }
    chain.reverse();
    let (mut rules, mut types, mut functions) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let mut reserved = Vec::new();
    let mut as_label = Vec::new();
    let mut lineage = Vec::new();
    let mut name = String::new();
    for (id, f) in chain {
        merge(&mut rules, f.rules);
        merge(&mut types, f.types);
        merge(&mut functions, f.functions);
        if let Some(k) = f.keywords {
            if !k.reserved.is_empty() {
                reserved = k.reserved;
            }
            if !k.as_label.is_empty() {
                as_label = k.as_label;
            }
        }
        name = f.profile.name;
        lineage.push(id);
    }
    let rules: BTreeMap<String, Rule> = typed(id, "rules", rules)?;
    for (rid, r) in &rules {
        if r.severity.is_none() {
            return Err(CatalogError::Invalid {
                file: id.to_string(),
                message: format!("[rules.{rid}] has no severity"),
            });
        }
    }
    Ok(Profile {
        id: id.to_string(),
        name,
        rules,
        types: typed(id, "types", types)?,
        functions: typed(id, "functions", functions)?
            .into_iter()
            .map(|(k, v)| (k.to_ascii_uppercase(), v))
            .collect(),
        reserved_words: reserved
            .into_iter()
            .map(|w| w.to_ascii_uppercase())
            .collect(),
        as_label_words: as_label
            .into_iter()
            .map(|w| w.to_ascii_uppercase())
            .collect(),
        lineage,
    })
}

impl Profile {
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.get(id)
    }

    pub fn function(&self, name: &str) -> Option<&FunctionMapping> {
        self.functions.get(&name.to_ascii_uppercase())
    }

    /// The mapping of a MySQL type: the most specific key first (`TINYINT(1)`, `INT UNSIGNED`,
    /// `DOUBLE(M,D)`, then the bare name).
    pub fn type_mapping(&self, t: &crate::schema::MySqlType) -> Option<(&str, &TypeMapping)> {
        let mut keys = Vec::new();
        if let Some(l) = t.length {
            keys.push(format!("{}({l})", t.base));
        }
        if t.zerofill {
            keys.push(format!("{} ZEROFILL", t.base));
        }
        if t.unsigned {
            keys.push(format!("{} UNSIGNED", t.base));
        }
        if t.length.is_some() && t.scale.is_some() {
            keys.push(format!("{}(M,D)", t.base));
        }
        if t.length.is_some() {
            keys.push(format!("{}(N)", t.base));
        }
        keys.push(t.base.clone());
        keys.into_iter()
            .find_map(|k| self.types.get_key_value(&k))
            .map(|(k, v)| (k.as_str(), v))
    }

    pub fn is_reserved(&self, word: &str) -> bool {
        self.reserved_words
            .iter()
            .any(|w| w.eq_ignore_ascii_case(word))
    }

    pub fn needs_as(&self, word: &str) -> bool {
        self.as_label_words
            .iter()
            .any(|w| w.eq_ignore_ascii_case(word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_profiles_load_and_extend() {
        for id in ["postgres", "kingbase", "kingbase-pg", "kaiwudb"] {
            let p = load_profile(id, None).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(
                p.lineage.first().map(String::as_str),
                Some("postgres-family"),
                "{id}"
            );
            assert!(p.rules.len() > 50, "{id}: {} rules", p.rules.len());
            for (rid, r) in &p.rules {
                assert!(!r.message.is_empty(), "{id} {rid} has no message");
                assert!(!r.category.is_empty(), "{id} {rid} has no category");
            }
        }
        assert!(load_profile("oracle", None).is_err());
    }
}
