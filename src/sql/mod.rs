//! SQL text handling shared by every stage: a fast byte-level lexer, fingerprints, statement
//! splitting and password redaction. Analysis that needs structure uses sqlparser's AST instead.

pub mod classify;
pub mod depth;
pub mod fingerprint;
pub mod keywords;
pub mod lexer;
pub mod redact;
pub mod sample;
pub mod script;
pub mod single;
pub mod split;

pub use fingerprint::{FingerprintInfo, Fingerprinter, fingerprint, fingerprint_id, format_id};
