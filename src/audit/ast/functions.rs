//! Function calls: names the target lacks or spells differently, argument classes, and the few
//! functions whose results differ with their arguments.

use super::operators::is_zero_literal;
use super::{Checker, Typed, pos};
use crate::audit::Hit;
use crate::audit::tokens::function_hit;
use crate::audit::typing::{Literal, Ty, literal_for};
use sqlparser::ast::*;
use std::ops::ControlFlow;

pub(super) fn fn_name(f: &Function) -> String {
    f.name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.to_ascii_uppercase())
        .unwrap_or_default()
}

pub(super) fn fn_args(f: &Function) -> Vec<&Expr> {
    match &f.args {
        FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                FunctionArg::Named {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                }
                | FunctionArg::ExprNamed {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                } => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn is_distinct_call(f: &Function) -> bool {
    matches!(&f.args, FunctionArguments::List(l) if matches!(l.duplicate_treatment, Some(DuplicateTreatment::Distinct)))
}

impl<'a, 'c> Checker<'a, 'c> {
    pub(super) fn function(&mut self, e: &Expr, f: &Function) -> Typed<'a> {
        let name = fn_name(f);
        let args = fn_args(f);
        let tys: Vec<Typed<'a>> = args.iter().map(|a| self.expr(a)).collect();
        if let FunctionArguments::Subquery(q) = &f.args {
            self.query(q);
        }
        let (line, col) = pos(e);
        let offset_hits = {
            let mut hs = Vec::new();
            function_hit(self.profile(), &name, 0, &mut hs);
            hs
        };
        for h in offset_hits {
            self.push(Hit { offset: None, ..h }.pos(line, col));
        }
        let Some(m) = self.profile().function(&name).cloned() else {
            return Typed::of(Ty::Unknown);
        };
        let exists = !matches!(m.status.as_deref(), Some("missing") | Some("syntax"));
        if exists {
            match (m.status.as_deref(), m.differs_when.as_deref()) {
                (Some("differs"), Some("nullable_args")) if tys.iter().any(|t| t.nullable()) => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("differs"), Some("non_ascii")) if tys.iter().any(|t| t.ty.is_text() && t.ty.is_typed() || matches!(&t.ty, Ty::StrLit(s) if !s.is_ascii())) => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("differs"), Some("negative_arg")) if tys.iter().skip(1).any(|t| matches!(&t.ty, Ty::NumLit { text, .. } if text.starts_with('-') || text == "0")) => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("differs"), Some("one_arg")) if tys.len() == 1 => {
                    self.push(Hit::new("FN-DIFFERS").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default())).rewrite(m.rewrite.clone().unwrap_or_default()));
                }
                (Some("note"), _) => self.push(Hit::new("FN-NOTE").pos(line, col).detail(format!("{name}(): {}", m.note.clone().unwrap_or_default()))),
                _ => {}
            }
            // Argument classes.
            if let Some(variants) = &m.args
                && let Some(v) = variants.iter().find(|v| v.len() == tys.len())
            {
                for (t, class) in tys.iter().zip(v) {
                    if !accepts(class, &t.ty) {
                        self.push(
                            Hit::new("FN-ARGS")
                                .pos(line, col)
                                .detail(format!(
                                    "{}({} …): no such function for {}",
                                    name.to_lowercase(),
                                    t.ty.name(),
                                    t.ty.name()
                                ))
                                .rewrite(format!(
                                    "cast the argument: {}(x::{})",
                                    name.to_lowercase(),
                                    if class == "text" { "text" } else { "numeric" }
                                )),
                        );
                        break;
                    }
                }
            }
        }
        // Semantics specific to a few functions.
        match name.as_str() {
            "COALESCE" | "IFNULL" | "NULLIF" | "GREATEST" | "LEAST" => {
                if let Some(typed) = tys.iter().find(|t| t.ty.is_typed() && !t.ty.is_text()) {
                    for t in &tys {
                        if let Ty::StrLit(s) = &t.ty
                            && literal_for(&typed.ty, s) == Literal::Invalid
                        {
                            self.push(Hit::new("SEM-001L").pos(line, col).detail(format!(
                                "'{s}' mixed with {} in {name}()",
                                typed.ty.name()
                            )));
                        }
                    }
                }
            }
            "CONCAT" | "CONCAT_WS" => {
                for t in &tys {
                    match t.ty {
                        Ty::Bool | Ty::Timestamp | Ty::TimestampTz if t.col.is_some() => {
                            self.push(
                                Hit::new("SEM-027")
                                    .pos(line, col)
                                    .detail(format!("{name}() of a {} column", t.ty.name())),
                            );
                        }
                        Ty::Char if t.col.is_some() => self.push(
                            Hit::new("SEM-023")
                                .pos(line, col)
                                .detail(format!("{name}() of a CHAR column")),
                        ),
                        _ => {}
                    }
                }
            }
            "SUM" | "AVG" => {
                if let Some(t) = tys.first() {
                    if matches!(t.ty, Ty::Text | Ty::Char | Ty::Bool | Ty::Enum(_)) {
                        self.push(
                            Hit::new(if matches!(t.ty, Ty::Bool) {
                                "SEM-015"
                            } else {
                                "SEM-021"
                            })
                            .pos(line, col)
                            .detail(format!(
                                "{}({})",
                                name.to_lowercase(),
                                t.ty.name()
                            )),
                        );
                    } else if name == "AVG" && (matches!(t.ty, Ty::Numeric) || t.ty.is_integer()) {
                        self.push(Hit::new("SEM-025").pos(line, col));
                    }
                }
            }
            "MIN" | "MAX" => {
                if let Some(t) = tys.first()
                    && t.ci()
                    && t.ty.is_text()
                {
                    self.push(
                        Hit::new("CASE-005")
                            .pos(line, col)
                            .detail(format!("{name}() of a case-insensitive string column")),
                    );
                }
            }
            "COUNT" if is_distinct_call(f) => {
                if let Some(t) = tys.first()
                    && t.ci()
                {
                    self.push(
                        Hit::new("CASE-004")
                            .pos(line, col)
                            .detail("COUNT(DISTINCT) of a case-insensitive string column"),
                    );
                }
            }
            "MOD" => {
                if let Some(Typed {
                    ty: Ty::NumLit { text, .. },
                    ..
                }) = tys.get(1)
                    && is_zero_literal(text)
                {
                    self.push(Hit::new("SEM-003").pos(line, col).detail("MOD(x, 0)"));
                }
            }
            _ => {}
        }
        let ret = match m.returns.as_deref() {
            Some(r) if r.starts_with("arg") => r[3..]
                .parse::<usize>()
                .ok()
                .and_then(|i| tys.get(i.wrapping_sub(1)))
                .map(|t| match &t.ty {
                    Ty::NumLit { integer: true, .. } => Ty::Int,
                    Ty::NumLit { .. } => Ty::Numeric,
                    Ty::StrLit(_) => Ty::Text,
                    other => other.clone(),
                }),
            Some(class) => Some(Ty::from_class(class, &[])),
            None => None,
        };
        Typed::of(ret.unwrap_or(Ty::Unknown))
    }

    /// Function checks for whatever is walked without typing (SET, CALL, DDL expressions, …).
    pub(super) fn scan_functions<V: Visit>(&mut self, node: &V) {
        let mut found = Vec::new();
        let _ = visit_expressions(node, |x| {
            if let Expr::Function(f) = x {
                found.push((fn_name(f), pos(x)));
            }
            ControlFlow::<()>::Continue(())
        });
        for (n, (l, c)) in found {
            let mut hs = Vec::new();
            function_hit(self.profile(), &n, 0, &mut hs);
            for h in hs {
                self.push(Hit { offset: None, ..h }.pos(l, c));
            }
        }
    }
}

/// Does a function argument of class `t` fit the accepted class?
fn accepts(class: &str, t: &Ty) -> bool {
    if !t.is_typed() {
        return true;
    }
    match class {
        "text" => t.is_text() || matches!(t, Ty::Enum(_) | Ty::Json),
        "number" => t.is_numeric(),
        "exact" => matches!(t, Ty::Int | Ty::Numeric),
        "integer" => matches!(t, Ty::Int),
        _ => true,
    }
}
