//! Function calls the profile's catalog gives a template for, and the argument ranges of a call.

use super::Writer;
use crate::sql::lexer::TokenKind;

impl Writer<'_> {
    /// The top-level arguments of the call whose name is at `i`: (index of `)`, argument ranges).
    pub(super) fn call_args(&self, i: usize, end: usize) -> Option<(usize, Vec<(usize, usize)>)> {
        let open = self.next_sig(i + 1, end)?;
        if self.text(open) != "(" {
            return None;
        }
        let close = self.matching(open, end)?;
        let mut args = Vec::new();
        let (mut depth, mut start) = (0, open + 1);
        for k in open + 1..close {
            match (self.toks[k].kind, self.text(k)) {
                (TokenKind::Punct, "(") => depth += 1,
                (TokenKind::Punct, ")") => depth -= 1,
                (TokenKind::Punct, ",") if depth == 0 => {
                    args.push((start, k));
                    start = k + 1;
                }
                _ => {}
            }
        }
        args.push((start, close));
        Some((close, args))
    }

    /// A call of a function the profile gives a template for.
    pub(super) fn function(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let name = self.text(i).to_ascii_uppercase();
        let m = self.profile.function(&name)?;
        let templates = m.template.as_ref()?;
        let open = i + 1;
        if open >= end || self.text(open) != "(" {
            return None;
        }
        let close = self.matching(open, end)?;
        // Split the arguments at top-level commas.
        let mut args: Vec<(usize, usize)> = Vec::new();
        let mut depth = 0;
        let mut start = open + 1;
        for k in open + 1..close {
            if self.toks[k].kind == TokenKind::Punct {
                match self.text(k) {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    "," if depth == 0 => {
                        args.push((start, k));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        }
        if (open + 1..close).any(|k| self.is_sig(k)) {
            args.push((start, close));
        }
        let template = templates
            .get(&args.len().to_string())
            .or_else(|| templates.get("*"))?
            .clone();
        let rendered: Vec<String> = args
            .iter()
            .map(|&(a, b)| self.emit(a, b).trim().to_string())
            .collect();
        let mut s = template.clone();
        s = s.replace("$*", &rendered.join(", "));
        // `$||`: every argument as text, joined with `||` (NULL when any is, as MySQL's CONCAT).
        let as_text: Vec<String> = rendered
            .iter()
            .map(|a| format!("CAST({a} AS text)"))
            .collect();
        s = s.replace("$||", &as_text.join(" || "));
        for (n, a) in rendered.iter().enumerate().rev() {
            s = s.replace(&format!("${}", n + 1), a);
        }
        let rule = match m.status.as_deref() {
            Some("missing") => "FN-MISSING",
            Some("syntax") => "FN-SYNTAX",
            // A function the target has, templated for the argument types it lacks.
            Some("same") => "FN-ARGS",
            _ => "FN-DIFFERS",
        };
        self.note(&format!("{rule}:{name}"));
        Some((s, close + 1))
    }
}
