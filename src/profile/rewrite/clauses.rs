//! Clauses the token rewriter rearranges: `GROUP BY … DESC`, MySQL 5's sorted grouping.

use super::Writer;

impl Writer<'_> {
    /// `GROUP BY a DESC, b` (MySQL 5's sorted grouping, which MariaDB keeps) → `GROUP BY a, b
    /// ORDER BY a DESC, b`. Not with HAVING, WITH ROLLUP or an ORDER BY of the statement's own
    /// (which MariaDB lets decide).
    pub(super) fn group_by_order(&mut self, i: usize, end: usize) -> Option<(String, usize)> {
        let by = self.next_sig(i + 1, end)?;
        if !self.word_is(by, "BY") {
            return None;
        }
        // The list: up to the next clause at this depth.
        let mut items: Vec<(usize, usize, Option<usize>)> = Vec::new();
        let mut depth = 0i32;
        let mut start = by + 1;
        let mut dir = None;
        let mut k = by + 1;
        let stop = loop {
            if k >= end {
                break end;
            }
            if self.is_sig(k) {
                let t = self.text(k);
                if t == "(" {
                    depth += 1;
                } else if t == ")" {
                    if depth == 0 {
                        break k;
                    }
                    depth -= 1;
                } else if depth == 0 {
                    if t == "," {
                        items.push((start, k, dir.take()));
                        start = k + 1;
                    } else if t == ";"
                        || [
                            "HAVING", "ORDER", "LIMIT", "WITH", "UNION", "WINDOW", "FOR", "LOCK",
                            "INTO",
                        ]
                        .iter()
                        .any(|w| self.word_is(k, w))
                    {
                        break k;
                    } else if self.word_is(k, "ASC") || self.word_is(k, "DESC") {
                        dir = Some(k);
                    }
                }
            }
            k += 1;
        };
        items.push((start, stop, dir));
        if items.iter().all(|(_, _, d)| d.is_none()) {
            return None;
        }
        // Nothing but the end of the statement or of its parentheses, LIMIT or a locking clause
        // may follow.
        let mut depth = 0i32;
        for k in stop..end {
            let t = self.text(k);
            if t == "(" {
                depth += 1;
            } else if t == ")" {
                depth -= 1;
                if depth < 0 {
                    break;
                }
            } else if depth == 0
                && ["HAVING", "ORDER", "WITH", "UNION", "WINDOW", "INTO"]
                    .iter()
                    .any(|w| self.word_is(k, w))
            {
                return None;
            }
        }
        let mut keys = Vec::new();
        let mut order = Vec::new();
        for (a, b, d) in items {
            let key = self.emit(a, d.unwrap_or(b)).trim().to_string();
            if key.is_empty() {
                return None;
            }
            order.push(match d {
                Some(d) => format!("{key} {}", self.text(d).to_ascii_uppercase()),
                None => key.clone(),
            });
            keys.push(key);
        }
        self.note("DML-012");
        let space = if stop < end { " " } else { "" };
        Some((
            format!(
                "GROUP BY {} ORDER BY {}{space}",
                keys.join(", "),
                order.join(", ")
            ),
            stop,
        ))
    }
}
