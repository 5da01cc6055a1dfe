//! How long operations report how far they got. The library only calls this trait; the CLI draws
//! a bar on a terminal (done of total, rate, time left) and stays quiet when piped.

/// What a phase counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    /// Statements, tables, chunks: named in the phase's text.
    Items,
    /// No counter: the notes say how far it got (verify's "table 120/400 chunks").
    Notes,
}

/// Receives progress. Every method has a do-nothing default, so [`Quiet`] is one line.
pub trait Progress: Sync {
    /// A new phase starts: what is done (`"reading logs"`, `"asking the target"`), and how much
    /// there is in all when that is known.
    fn phase(&self, _what: &str, _total: Option<u64>, _unit: Unit) {}
    /// How much of the current phase is done.
    fn done(&self, _n: u64) {}
    /// A short note beside the count (the table under way, events read).
    fn note(&self, _text: &str) {}
    /// The current phase ended; clears what was drawn.
    fn finish(&self) {}
}

/// Reports nothing.
pub struct Quiet;

impl Progress for Quiet {}
