//! The command line's own pieces: its flags and its terminal progress display. Everything else is the
//! library's.

pub mod args;
pub mod progress;
