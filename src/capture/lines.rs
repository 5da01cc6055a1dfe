//! Byte-level helpers shared by the log readers: lines, server header blocks and timestamps.

use crate::workload::TimePrecision;
use crate::workload::time::WallClock;

/// The line starting at `pos`: its end (exclusive, after the `\n` when there is one).
#[inline]
pub fn line_end(buf: &[u8], pos: usize, limit: usize) -> usize {
    match memchr::memchr(b'\n', &buf[pos..limit]) {
        Some(off) => pos + off + 1,
        None => limit,
    }
}

/// A line without its `\n` or `\r\n`.
#[inline]
pub fn trim_eol(line: &[u8]) -> &[u8] {
    let mut l = line;
    if let [rest @ .., b'\n'] = l {
        l = rest;
    }
    if let [rest @ .., b'\r'] = l {
        l = rest;
    }
    l
}

/// True for the first line of the block a server writes when it opens a log (start-up, FLUSH LOGS):
/// `/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:`.
pub fn is_header_start(line: &[u8]) -> bool {
    let l = trim_eol(line);
    l.ends_with(b"started with:")
        && memchr::memmem::find(l, b", Version: ").is_some()
        && memchr::memchr(0, l).is_none()
}

/// True for the other lines of that block: `Tcp port: 3306  Unix socket: …` (or the Windows
/// `TCP Port: 3306, Named Pipe: …`) and the column titles `Time  Id Command  Argument`.
pub fn is_header_continuation(line: &[u8]) -> bool {
    let l = trim_eol(line);
    (l.starts_with(b"Tcp port: ") || l.starts_with(b"TCP Port: "))
        || (l.starts_with(b"Time")
            && memchr::memmem::find(l, b"Id").is_some()
            && l.ends_with(b"Argument"))
}

/// A timestamp as read from a log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub us: i64,
    pub precision: TimePrecision,
}

fn digits(b: &[u8], n: usize) -> Option<u32> {
    if b.len() < n {
        return None;
    }
    let mut v = 0u32;
    for &c in &b[..n] {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as u32;
    }
    Some(v)
}

/// Reads `.ffffff` (any number of digits; the first six are microseconds). Returns (micros, length).
fn fraction(b: &[u8]) -> (u32, usize, bool) {
    if b.first() != Some(&b'.') {
        return (0, 0, false);
    }
    let mut i = 1;
    let mut micros = 0u32;
    while i < b.len() && b[i].is_ascii_digit() {
        if i <= 6 {
            micros = micros * 10 + (b[i] - b'0') as u32;
        }
        i += 1;
    }
    if i == 1 {
        return (0, 0, false);
    }
    for _ in i..=6 {
        micros *= 10;
    }
    (micros, i, true)
}

/// Parses an ISO 8601 log timestamp at the start of `b`: `2021-10-12T01:13:38.132884Z`, with `Z`, a
/// `+08:00` offset, or no zone (then `naive_offset_s` applies). Returns the stamp and bytes consumed.
pub fn parse_iso(b: &[u8], naive_offset_s: i32) -> Option<(Stamp, usize)> {
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b'T' || b[10] == b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let wc0 = WallClock {
        year: digits(b, 4)? as i64,
        month: digits(&b[5..], 2)?,
        day: digits(&b[8..], 2)?,
        hour: digits(&b[11..], 2)?,
        minute: digits(&b[14..], 2)?,
        second: digits(&b[17..], 2)?,
        micros: 0,
    };
    let (micros, flen, has_fraction) = fraction(&b[19..]);
    let wc = WallClock { micros, ..wc0 };
    if !wc.is_valid() {
        return None;
    }
    let mut i = 19 + flen;
    let offset = match b.get(i) {
        Some(b'Z') => {
            i += 1;
            0
        }
        Some(&s @ (b'+' | b'-')) => {
            let h = digits(&b[i + 1..], 2)? as i32;
            let (m, len) = if b.get(i + 3) == Some(&b':') {
                (digits(&b[i + 4..], 2)? as i32, 6)
            } else {
                (digits(&b[i + 3..], 2)? as i32, 5)
            };
            if h > 14 || m > 59 {
                return None;
            }
            i += len;
            (if s == b'-' { -1 } else { 1 }) * (h * 3600 + m * 60)
        }
        _ => naive_offset_s,
    };
    let precision = if has_fraction {
        TimePrecision::Microsecond
    } else {
        TimePrecision::Second
    };
    Some((
        Stamp {
            us: wc.to_unix_micros(offset),
            precision,
        },
        i,
    ))
}

/// Parses the old `YYMMDD HH:MM:SS` form (hour may be space-padded, `100211  0:55:24`; Percona may add
/// a fraction). Local time without a zone: `naive_offset_s` applies. Returns the stamp and length.
pub fn parse_yymmdd(b: &[u8], naive_offset_s: i32) -> Option<(Stamp, usize)> {
    let yy = digits(b, 2)?;
    let month = digits(&b[2..], 2)?;
    let day = digits(&b[4..], 2)?;
    let mut i = 6;
    let spaces_start = i;
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    if i == spaces_start {
        return None;
    }
    let h_start = i;
    while i < b.len() && b[i].is_ascii_digit() && i - h_start < 2 {
        i += 1;
    }
    let hour = digits(&b[h_start..], i - h_start)?;
    if i == h_start || b.get(i) != Some(&b':') {
        return None;
    }
    let minute = digits(&b[i + 1..], 2)?;
    if b.get(i + 3) != Some(&b':') {
        return None;
    }
    let second = digits(&b[i + 4..], 2)?;
    i += 6;
    let (micros, flen, has_fraction) = fraction(&b[i..]);
    i += flen;
    let year = if yy < 70 {
        2000 + yy as i64
    } else {
        1900 + yy as i64
    };
    let wc = WallClock {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    };
    if !wc.is_valid() {
        return None;
    }
    let precision = if has_fraction {
        TimePrecision::Microsecond
    } else {
        TimePrecision::Second
    };
    Some((
        Stamp {
            us: wc.to_unix_micros(naive_offset_s),
            precision,
        },
        i,
    ))
}

/// Either timestamp form.
pub fn parse_log_time(b: &[u8], naive_offset_s: i32) -> Option<(Stamp, usize)> {
    if b.len() >= 5 && b[4] == b'-' {
        parse_iso(b, naive_offset_s)
    } else {
        parse_yymmdd(b, naive_offset_s)
    }
}

/// Parses seconds with an optional fraction (`0.000012`, `2`, `413.146036`) into microseconds.
pub fn parse_seconds_us(b: &[u8]) -> Option<u64> {
    let dot = b.iter().position(|&c| c == b'.').unwrap_or(b.len());
    if dot == 0 && b.len() <= 1 {
        return None;
    }
    let whole = &b[..dot];
    if whole.len() > 12 || !whole.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut us: u64 = 0;
    for &c in whole {
        us = us * 10 + (c - b'0') as u64;
    }
    us *= 1_000_000;
    if dot < b.len() {
        let frac = &b[dot + 1..];
        if frac.is_empty() || !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let mut scale = 100_000u64;
        for &c in frac.iter().take(6) {
            us += (c - b'0') as u64 * scale;
            scale /= 10;
        }
    }
    Some(us)
}

/// Parses a plain unsigned integer.
pub fn parse_u64(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::time::format_iso_micros;

    #[test]
    fn iso_variants() {
        let (s, n) = parse_iso(b"2021-10-12T01:13:38.132884Z rest", 0).unwrap();
        assert_eq!(format_iso_micros(s.us), "2021-10-12T01:13:38.132884Z");
        assert_eq!(n, 27);
        assert_eq!(s.precision, TimePrecision::Microsecond);
        let (s, n) = parse_iso(b"2018-09-07T18:45:40.098124+08:00\t1", 0).unwrap();
        assert_eq!(format_iso_micros(s.us), "2018-09-07T10:45:40.098124Z");
        assert_eq!(n, 32);
        let (s, _) = parse_iso(b"2018-09-07T18:45:40", 3600).unwrap();
        assert_eq!(format_iso_micros(s.us), "2018-09-07T17:45:40.000000Z");
        assert_eq!(s.precision, TimePrecision::Second);
        assert!(parse_iso(b"2018-13-07T18:45:40Z", 0).is_none());
    }

    #[test]
    fn yymmdd_variants() {
        let (s, n) = parse_yymmdd(b"261202 20:48:57\t", 0).unwrap();
        assert_eq!(format_iso_micros(s.us), "2026-12-02T20:48:57.000000Z");
        assert_eq!(n, 15);
        let (s, _) = parse_yymmdd(b"100211  0:55:24", 0).unwrap();
        assert_eq!(format_iso_micros(s.us), "2010-02-11T00:55:24.000000Z");
        let (s, _) = parse_yymmdd(b"051007   21:55:24", 0).unwrap();
        assert_eq!(format_iso_micros(s.us), "2005-10-07T21:55:24.000000Z");
        let (s, _) = parse_yymmdd(b"121123 19:56:06.0000001967", 0).unwrap();
        assert_eq!(s.precision, TimePrecision::Microsecond);
        assert!(parse_yymmdd(b"991332 10:00:00", 0).is_none());
    }

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds_us(b"0.000012"), Some(12));
        assert_eq!(parse_seconds_us(b"2"), Some(2_000_000));
        assert_eq!(parse_seconds_us(b"413.146036"), Some(413_146_036));
        assert_eq!(parse_seconds_us(b"1.5"), Some(1_500_000));
        assert_eq!(parse_seconds_us(b"18446744073708.796870.000036"), None);
        assert_eq!(parse_seconds_us(b""), None);
    }

    #[test]
    fn headers() {
        assert!(is_header_start(
            b"/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\n"
        ));
        assert!(is_header_continuation(
            b"Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\n"
        ));
        assert!(is_header_continuation(
            b"TCP Port: 3306, Named Pipe: (null)\r\n"
        ));
        assert!(is_header_continuation(
            b"Time\t\t    Id Command\tArgument\n"
        ));
        assert!(is_header_continuation(
            b"Time                 Id Command    Argument\n"
        ));
    }
}
