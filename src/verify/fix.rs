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

    /// The repair of one persistent difference.
    pub fn write(&mut self, plan: &Plan, p: &Pending) -> io::Result<()> {
        let e = self.engine;
        let table = plan.name(e);
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
                    return Ok(());
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
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<u64> {
        writeln!(self.out, "COMMIT;")?;
        self.out.flush()?;
        Ok(self.statements)
    }
}
