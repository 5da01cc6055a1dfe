//! `--fix-sql`: the statements that make the target hold what the source holds, in the target's
//! dialect, written as the differences are found (never held in memory) and never run by cutover.

use super::plan::{KeyShape, Plan};
use super::{DiffKind, Pending};
use crate::db::Engine;
use crate::db::value::Value;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub struct FixWriter {
    out: BufWriter<File>,
    engine: Engine,
    pub statements: u64,
}

impl FixWriter {
    pub fn create(path: &Path, engine: Engine, about: &str) -> io::Result<FixWriter> {
        let mut out = BufWriter::new(File::create(path)?);
        writeln!(
            out,
            "-- cutover verify --fix-sql: {about}\n-- Review before applying to the TARGET; cutover never runs these. One transaction."
        )?;
        for setting in engine.dialect().script_preamble {
            writeln!(out, "{setting}")?;
        }
        writeln!(out, "{}", engine.dialect().script_begin)?;
        Ok(FixWriter {
            out,
            engine,
            statements: 0,
        })
    }

    pub fn raw(&mut self, statement: &str) -> io::Result<()> {
        self.statements += 1;
        writeln!(self.out, "{statement};")
    }

    /// The repair of one persistent difference; `Some(why)` when it cannot be written because the
    /// target cannot hold a source value (then a comment says so in its place).
    pub fn write(&mut self, plan: &Plan, p: &Pending) -> io::Result<Option<String>> {
        let e = self.engine;
        let table = plan.name(e);
        let unholdable = p.source.iter().flatten().enumerate().find_map(|(i, v)| {
            let bytes = match v {
                Value::Text(t) => t.as_slice(),
                Value::Json(j) => j.as_bytes(),
                _ => return None,
            };
            let why = e.dialect().cannot_hold(bytes)?;
            Some(format!(
                "column {} {why}",
                plan.cols.get(i).map_or("?", |c| c.name.as_str())
            ))
        });
        if let Some(why) = unholdable {
            let key = p
                .key
                .iter()
                .map(Value::display)
                .collect::<Vec<_>>()
                .join(", ");
            let note = format!("row ({key}) not repaired: its {why}");
            writeln!(self.out, "-- {}", note.replace(['\n', '\r'], " "))?;
            return Ok(Some(note));
        }
        let lit = |i: usize, v: &Value| {
            super::encode::literal(e, plan.cols.get(i).map(|c| c.type_on(e)).unwrap_or(""), v)
        };
        let insert = |row: &[Value]| {
            let vals: Vec<String> = row.iter().enumerate().map(|(i, v)| lit(i, v)).collect();
            format!(
                "INSERT INTO {table} ({}) VALUES ({})",
                plan.column_list(e),
                vals.join(", ")
            )
        };
        match (p.kind, plan.shape) {
            (DiffKind::Missing, KeyShape::Multiset) => {
                if let Some(row) = &p.source {
                    for _ in 0..p.copies {
                        self.raw(&insert(row))?;
                    }
                }
            }
            (DiffKind::Extra, KeyShape::Multiset) => {
                if let Some(row) = &p.target {
                    let cond = Plan::condition(e, &plan.cols, row);
                    self.raw(&e.dialect().delete_copies(&table, &cond, p.copies))?;
                }
            }
            (DiffKind::Missing, _) => {
                if let Some(row) = &p.source {
                    self.raw(&insert(row))?;
                }
            }
            (DiffKind::Extra, _) => self.raw(&format!(
                "DELETE FROM {table} WHERE {}",
                plan.key_condition(e, &p.key)
            ))?,
            (DiffKind::Different, _) => {
                let Some(row) = &p.source else {
                    return Ok(None);
                };
                let sets: Vec<String> = plan
                    .cols
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| p.columns.iter().any(|d| d.eq_ignore_ascii_case(&c.name)))
                    .map(|(i, c)| {
                        format!(
                            "{} = {}",
                            super::encode::quote(e, &c.name),
                            lit(i, row.get(i).unwrap_or(&Value::Null))
                        )
                    })
                    .collect();
                if !sets.is_empty() {
                    self.raw(&format!(
                        "UPDATE {table} SET {} WHERE {}",
                        sets.join(", "),
                        plan.key_condition(e, &p.key)
                    ))?;
                }
            }
        }
        Ok(None)
    }

    pub fn finish(mut self) -> io::Result<u64> {
        writeln!(self.out, "COMMIT;")?;
        self.out.flush()?;
        Ok(self.statements)
    }
}
