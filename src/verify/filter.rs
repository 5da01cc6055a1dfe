//! `--where`: one boolean expression added to every query on both servers. It is parsed, not pasted:
//! text that is not exactly one expression under both MySQL's and PostgreSQL's grammar (a `;` and a
//! second statement, a comment hiding the rest of the query, a bare number) is refused before any
//! connection is made.

use sqlparser::ast::{Expr, Value};
use sqlparser::dialect::{Dialect, MySqlDialect, PostgreSqlDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

/// Checks a `--where` condition; the error says what is wrong with it.
pub fn check_where(text: &str) -> Result<(), String> {
    let dialects: [(&str, &dyn Dialect); 2] = [
        ("MySQL", &MySqlDialect {}),
        ("PostgreSQL", &PostgreSqlDialect {}),
    ];
    for (name, dialect) in dialects {
        let mut parser = Parser::new(dialect)
            .with_recursion_limit(64)
            .try_with_sql(text)
            .map_err(|e| format!("--where {text:?} does not read as SQL for {name}: {e}"))?;
        let expr = parser
            .parse_expr()
            .map_err(|e| format!("--where {text:?} is not one expression for {name}: {e}"))?;
        // A comment in the condition could hide the rest of the query it is pasted into.
        let tokens = Tokenizer::new(dialect, text)
            .tokenize()
            .map_err(|e| format!("--where {text:?} does not read as SQL for {name}: {e}"))?;
        if tokens.iter().any(|t| {
            matches!(
                t,
                Token::Whitespace(
                    Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_)
                )
            )
        }) {
            return Err(format!(
                "--where {text:?} holds a comment, which could hide the rest of the query it is added to; write the condition without it"
            ));
        }
        let next = parser.peek_token();
        if next.token != Token::EOF {
            return Err(format!(
                "--where {text:?} must be one boolean expression, but {name} reads more after it (from {}); write only the condition, without ';' or a second statement",
                next.token
            ));
        }
        if let Expr::Value(v) = &expr
            && !matches!(v.value, Value::Boolean(_))
        {
            return Err(format!(
                "--where {text:?} is a value, not a condition (write it like \"updated_at >= '2026-01-01'\")"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_pass() {
        for w in [
            "1=1",
            "id > 5",
            "updated_at >= '2026-01-01' AND (k BETWEEN 1 AND 9 OR c IS NULL)",
            "c IN ('a;b', 'x', 'a#b', '-- no')",
            "TRUE",
        ] {
            assert_eq!(check_where(w), Ok(()), "{w}");
        }
    }

    #[test]
    fn anything_else_is_refused() {
        for w in [
            "1=1; DROP TABLE sbtest2",
            "1=1) OR (1=1",
            "id > 5 -- ",
            "id > 5 /* x */",
            "id > 5 # x",
            "5",
            "'x'",
            "",
            "id > 5 UNION SELECT 1",
        ] {
            assert!(check_where(w).is_err(), "{w}");
        }
    }
}
