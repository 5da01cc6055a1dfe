//! Calendar arithmetic for log timestamps, without a date library on the hot path.
//!
//! Timestamps are kept as microseconds since the Unix epoch, UTC. Logs that print local time without
//! a zone (MariaDB, MySQL ≤ 5.6) are interpreted at a caller-given offset.

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date for a count of days since 1970-01-01 (inverse of [`days_from_civil`]).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A broken-down wall-clock time as printed in a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WallClock {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
}

impl WallClock {
    /// Checks ranges so that garbage digits never become a plausible-looking time.
    pub fn is_valid(&self) -> bool {
        (1..=12).contains(&self.month)
            && (1..=31).contains(&self.day)
            && self.hour < 24
            && self.minute < 60
            && self.second < 61
            && self.micros < 1_000_000
    }

    /// Microseconds since the epoch, given the offset from UTC (seconds) the wall clock was printed in.
    pub fn to_unix_micros(&self, utc_offset_s: i32) -> i64 {
        let days = days_from_civil(self.year, self.month, self.day);
        let secs = days * 86_400 + (self.hour * 3600 + self.minute * 60 + self.second) as i64
            - utc_offset_s as i64;
        secs * 1_000_000 + self.micros as i64
    }
}

/// Formats epoch microseconds as `2024-05-01T10:00:00.123456Z`.
pub fn format_iso_micros(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let micros = us.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Parses what [`format_iso_micros`] writes (`2024-05-01T10:00:00.123456Z`; the fraction may have
/// fewer digits or be absent) back into epoch microseconds.
pub fn parse_iso_micros(text: &str) -> Option<i64> {
    let t = text.strip_suffix('Z')?;
    let (date, clock) = t.split_once('T')?;
    let mut d = date.splitn(3, '-');
    let (year, month, day) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    let (hms, frac) = clock.split_once('.').unwrap_or((clock, ""));
    let mut c = hms.splitn(3, ':');
    let (hour, minute, second) = (
        c.next()?.parse().ok()?,
        c.next()?.parse().ok()?,
        c.next()?.parse().ok()?,
    );
    if frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let micros = format!("{frac:0<6}").parse().ok()?;
    let w = WallClock {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    };
    w.is_valid().then(|| w.to_unix_micros(0))
}

/// A duration as people write one: `500ms`, `30s`, `5m`, `1h`, or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let (num, mult) = match s.chars().last() {
        Some('s') if s.ends_with("ms") => (&s[..s.len() - 2], 0.001),
        Some('s') => (&s[..s.len() - 1], 1.0),
        Some('m') => (&s[..s.len() - 1], 60.0),
        Some('h') => (&s[..s.len() - 1], 3600.0),
        _ => (s, 1.0),
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(std::time::Duration::from_secs_f64(v * mult)),
        _ => Err(format!("{s:?}: write a duration like 500ms, 30s, 5m or 1h")),
    }
}

/// Formats epoch microseconds as `2024-05-01 10:00:00` (UTC), for human-facing reports.
pub fn format_human_seconds(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Parses a UTC offset such as `+08:00`, `-0530`, `Z` or `UTC` into seconds east of UTC.
pub fn parse_utc_offset(text: &str) -> Option<i32> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("z") || t.eq_ignore_ascii_case("utc") {
        return Some(0);
    }
    let (sign, rest) = match t.as_bytes().first()? {
        b'+' => (1, &t[1..]),
        b'-' => (-1, &t[1..]),
        _ => return None,
    };
    let digits: Vec<u8> = rest.bytes().filter(|b| *b != b':').collect();
    if !(digits.len() == 2 || digits.len() == 4) || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let h = ((digits[0] - b'0') * 10 + (digits[1] - b'0')) as i32;
    let m = if digits.len() == 4 {
        ((digits[2] - b'0') * 10 + (digits[3] - b'0')) as i32
    } else {
        0
    };
    if h > 14 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("500ms"),
            Ok(std::time::Duration::from_millis(500))
        );
        assert_eq!(
            parse_duration("5m"),
            Ok(std::time::Duration::from_secs(300))
        );
        assert_eq!(parse_duration("90"), Ok(std::time::Duration::from_secs(90)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn iso_round_trip() {
        for us in [0, 1_714_557_600_000_400, 1_796_246_169_999_900] {
            assert_eq!(parse_iso_micros(&format_iso_micros(us)), Some(us));
        }
        assert_eq!(
            parse_iso_micros("2024-05-01T10:00:00Z"),
            Some(1_714_557_600_000_000)
        );
        assert_eq!(parse_iso_micros("2024-13-01T10:00:00Z"), None);
    }

    #[test]
    fn civil_round_trip() {
        for days in [-800_000i64, -1, 0, 1, 10_957, 19_844, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn iso_formatting() {
        let wc = WallClock {
            year: 2021,
            month: 10,
            day: 12,
            hour: 1,
            minute: 13,
            second: 38,
            micros: 132_884,
        };
        let us = wc.to_unix_micros(0);
        assert_eq!(format_iso_micros(us), "2021-10-12T01:13:38.132884Z");
        assert_eq!(wc.to_unix_micros(8 * 3600), us - 8 * 3600 * 1_000_000);
        assert_eq!(format_iso_micros(-1), "1969-12-31T23:59:59.999999Z");
    }

    #[test]
    fn offsets() {
        assert_eq!(parse_utc_offset("+08:00"), Some(28_800));
        assert_eq!(parse_utc_offset("-0530"), Some(-19_800));
        assert_eq!(parse_utc_offset("Z"), Some(0));
        assert_eq!(parse_utc_offset("+8"), None);
        assert_eq!(parse_utc_offset("+25:00"), None);
    }
}
