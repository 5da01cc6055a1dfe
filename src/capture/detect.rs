//! Tells a general log from a slow log by looking at the first lines of a file.

use super::lines::{is_header_continuation, is_header_start, line_end};
use crate::workload::LogType;

/// The verdict on a file's first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniff {
    Is(LogType),
    /// Only server header lines, or nothing at all: an empty log of either type.
    Empty,
    /// Bytes that are not a query log (binary data, another kind of file).
    Unknown,
}

/// Looks at up to the first 200 lines of `head`.
pub fn sniff(head: &[u8]) -> Sniff {
    let mut general = 0usize;
    let mut slow = 0usize;
    let mut other = 0usize;
    let mut pos = 0;
    let mut seen = 0;
    while pos < head.len() && seen < 200 {
        let le = line_end(head, pos, head.len());
        let line = &head[pos..le];
        pos = le;
        seen += 1;
        if is_header_start(line)
            || is_header_continuation(line)
            || line.iter().all(u8::is_ascii_whitespace)
        {
            continue;
        }
        if super::slow::is_entry_line(line) || line.starts_with(b"# administrator command: ") {
            slow += 1;
        } else if super::general::parse_record_line(line, 0).is_some() {
            general += 1;
        } else if !line.starts_with(b"#") {
            other += 1;
        }
    }
    if slow == 0 && general == 0 {
        return if other == 0 {
            Sniff::Empty
        } else {
            Sniff::Unknown
        };
    }
    if slow >= general {
        Sniff::Is(LogType::Slow)
    } else {
        Sniff::Is(LogType::General)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_them_apart() {
        assert_eq!(
            sniff(b"# Time: 071015 21:43:52\n# User@Host: root[root] @ localhost []\nselect 1;\n"),
            Sniff::Is(LogType::Slow)
        );
        assert_eq!(sniff(b"/usr/sbin/mariadbd, Version: 10.11 (x). started with:\nTcp port: 3306  Unix socket: s\nTime\t\t    Id Command\tArgument\n\t\t    13 Connect\troot@h on x using TCP/IP\n"), Sniff::Is(LogType::General));
        assert_eq!(sniff(b""), Sniff::Empty);
        assert_eq!(sniff(b"\x00\x01\x02binary\n\xff\xfe"), Sniff::Unknown);
    }
}
