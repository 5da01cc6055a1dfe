//! How deep sqlparser's tree of a statement would grow, told from tokens before parsing.
//!
//! sqlparser parses `a OR b OR c …` and `1 + 1 + …` in a loop, without recursion, into a left-deep
//! tree: 30,000 `OR` terms (an ORM's expansion of a list) make a tree 30,000 levels deep, and every
//! walk over it (our visitors, sqlparser's own `Display`, even dropping it) recurses once per level
//! and overflows the stack. Nested parentheses are bounded by the parser's recursion limit; chains
//! are not. So the audit measures the longest chain of operators first and, past
//! [`MAX_OPERATOR_CHAIN`], checks the statement on tokens only.

use super::lexer::{Lexer, TokenKind};

/// The longest chain of binary operators the audit parses (about 500 KB of stack in the deepest
/// walk, measured in `tests/hostile_input.rs`; threads have 2 MB or more).
pub const MAX_OPERATOR_CHAIN: usize = 1_000;

/// The longest run of operators in one expression: operators counted within one parenthesis level
/// between commas (each comma-separated item, each `( … )` group is its own expression).
/// Over-counts (a comparison inside each `OR` term counts too), which errs on the safe side.
pub fn longest_operator_chain(sql: &[u8]) -> usize {
    let mut levels: Vec<usize> = vec![0];
    let mut longest = 0;
    for tok in Lexer::new(sql) {
        let text = tok.text(sql);
        let is_operator = match tok.kind {
            TokenKind::Punct => match text {
                b"(" => {
                    levels.push(0);
                    false
                }
                b")" => {
                    if levels.len() > 1 {
                        levels.pop();
                    }
                    false
                }
                b"," | b";" => {
                    if let Some(l) = levels.last_mut() {
                        *l = 0;
                    }
                    false
                }
                _ => text.iter().all(|b| b"+-*/%=<>!|&^~".contains(b)),
            },
            TokenKind::Word => [
                &b"AND"[..],
                b"OR",
                b"XOR",
                b"DIV",
                b"MOD",
                b"LIKE",
                b"REGEXP",
                b"IS",
            ]
            .iter()
            .any(|k| text.eq_ignore_ascii_case(k)),
            _ => false,
        };
        if is_operator && let Some(l) = levels.last_mut() {
            *l += 1;
            longest = longest.max(*l);
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_longest_chain() {
        assert_eq!(longest_operator_chain(b"SELECT 1"), 0);
        assert_eq!(longest_operator_chain(b"SELECT 1+1+1"), 2);
        assert_eq!(longest_operator_chain(b"SELECT a+b, c+d, (e+f+g)"), 2);
        assert_eq!(
            longest_operator_chain(b"SELECT a FROM t WHERE id=0 OR id=1 OR id=2"),
            5
        );
        assert_eq!(longest_operator_chain(b"SELECT '+ + + +' , `a+b`"), 0);
        let long = format!("SELECT 1{}", "+1".repeat(10_000));
        assert_eq!(longest_operator_chain(long.as_bytes()), 10_000);
        // A long row list is many short expressions.
        let rows = format!(
            "INSERT INTO t VALUES {}",
            vec!["(-1, 2*3)"; 10_000].join(",")
        );
        assert!(longest_operator_chain(rows.as_bytes()) <= 2);
    }
}
