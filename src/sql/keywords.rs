//! Word classification for the fingerprinter, in one table lookup per word: sqlparser's keywords (so
//! the fingerprint folds exactly the words sqlparser's tokenizer would call keywords), MySQL built-in
//! function names, and the few words the fingerprinter treats specially.

use std::collections::HashMap;
use std::sync::OnceLock;

/// In sqlparser's keyword list.
pub const KEYWORD: u8 = 1;
/// A MySQL/MariaDB built-in function name.
pub const FUNCTION: u8 = 2;
/// A clause keyword: a `(` after it is spaced and a sign after it is unary.
pub const CLAUSE: u8 = 4;
/// `VALUES` / `VALUE`: starts a row list.
pub const VALUES: u8 = 8;
/// `IN`: a `(` after it opens a list.
pub const IN: u8 = 16;
/// `IDENTIFIED`: account statements carry a password after it.
pub const IDENTIFIED: u8 = 32;
/// `ROW`, which may continue a `VALUES` row list (`VALUES ROW(1), ROW(2)`).
pub const ROW: u8 = 64;
/// A MySQL/MariaDB key word missing from sqlparser's list: folded like one in fingerprints, so
/// `LOAD DATA LOCAL INFILE` and `load data local infile` are one shape.
pub const MYSQL_KEYWORD: u8 = 128;

/// MySQL 8.0 / MariaDB key words (from the manuals' keyword lists) that sqlparser does not list.
/// Only words that cannot be mistaken for a common column name are here: a non-reserved key word
/// may be a name, and names keep their case.
const MYSQL_KEYWORDS: &[&str] = &[
    "ACCESSIBLE",
    "DELAYED",
    "DISTINCTROW",
    "DUMPFILE",
    "ENCLOSED",
    "ESCAPED",
    "HIGH_PRIORITY",
    "INFILE",
    "LOW_PRIORITY",
    "OPTIONALLY",
    "OUTFILE",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_CACHE",
    "SQL_CALC_FOUND_ROWS",
    "SQL_NO_CACHE",
    "SQL_SMALL_RESULT",
    "STARTING",
    "STRAIGHT_JOIN",
    "TERMINATED",
];

const BUILTIN_FUNCTIONS: &[&str] = &[
    "ABS",
    "ACOS",
    "ADDDATE",
    "ADDTIME",
    "AES_DECRYPT",
    "AES_ENCRYPT",
    "ANY_VALUE",
    "ASCII",
    "ASIN",
    "ATAN",
    "ATAN2",
    "AVG",
    "BENCHMARK",
    "BIN",
    "BIN_TO_UUID",
    "BIT_AND",
    "BIT_COUNT",
    "BIT_LENGTH",
    "BIT_OR",
    "BIT_XOR",
    "CAST",
    "CEIL",
    "CEILING",
    "CHAR",
    "CHARACTER_LENGTH",
    "CHARSET",
    "CHAR_LENGTH",
    "COALESCE",
    "COERCIBILITY",
    "COLLATION",
    "COLUMN_CREATE",
    "COLUMN_GET",
    "COLUMN_JSON",
    "COMPRESS",
    "CONCAT",
    "CONCAT_WS",
    "CONNECTION_ID",
    "CONV",
    "CONVERT",
    "CONVERT_TZ",
    "COS",
    "COT",
    "COUNT",
    "CRC32",
    "CUME_DIST",
    "CURDATE",
    "CURRENT_DATE",
    "CURRENT_ROLE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "CURTIME",
    "DATABASE",
    "DATE",
    "DATEDIFF",
    "DATE_ADD",
    "DATE_FORMAT",
    "DATE_SUB",
    "DAY",
    "DAYNAME",
    "DAYOFMONTH",
    "DAYOFWEEK",
    "DAYOFYEAR",
    "DECODE",
    "DECODE_ORACLE",
    "DEFAULT",
    "DEGREES",
    "DENSE_RANK",
    "DES_DECRYPT",
    "DES_ENCRYPT",
    "ELT",
    "ENCODE",
    "ENCRYPT",
    "EXP",
    "EXPORT_SET",
    "EXTRACT",
    "EXTRACTVALUE",
    "FIELD",
    "FIND_IN_SET",
    "FIRST_VALUE",
    "FLOOR",
    "FORMAT",
    "FOUND_ROWS",
    "FROM_BASE64",
    "FROM_DAYS",
    "FROM_UNIXTIME",
    "GET_FORMAT",
    "GET_LOCK",
    "GREATEST",
    "GROUPING",
    "GROUP_CONCAT",
    "HEX",
    "HOUR",
    "IF",
    "IFNULL",
    "IN",
    "INET6_ATON",
    "INET6_NTOA",
    "INET_ATON",
    "INET_NTOA",
    "INSERT",
    "INSTR",
    "INTERVAL",
    "ISNULL",
    "IS_FREE_LOCK",
    "IS_IPV4",
    "IS_IPV6",
    "IS_USED_LOCK",
    "JSON_ARRAY",
    "JSON_ARRAYAGG",
    "JSON_ARRAY_APPEND",
    "JSON_ARRAY_INSERT",
    "JSON_CONTAINS",
    "JSON_CONTAINS_PATH",
    "JSON_DEPTH",
    "JSON_EXTRACT",
    "JSON_INSERT",
    "JSON_KEYS",
    "JSON_LENGTH",
    "JSON_MERGE",
    "JSON_MERGE_PATCH",
    "JSON_MERGE_PRESERVE",
    "JSON_OBJECT",
    "JSON_OBJECTAGG",
    "JSON_OVERLAPS",
    "JSON_PRETTY",
    "JSON_QUOTE",
    "JSON_REMOVE",
    "JSON_REPLACE",
    "JSON_SEARCH",
    "JSON_SET",
    "JSON_TABLE",
    "JSON_TYPE",
    "JSON_UNQUOTE",
    "JSON_VALID",
    "JSON_VALUE",
    "LAG",
    "LAST_DAY",
    "LAST_INSERT_ID",
    "LAST_VALUE",
    "LCASE",
    "LEAD",
    "LEAST",
    "LEFT",
    "LENGTH",
    "LN",
    "LOAD_FILE",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "LOCATE",
    "LOG",
    "LOG10",
    "LOG2",
    "LOWER",
    "LPAD",
    "LTRIM",
    "MAKEDATE",
    "MAKETIME",
    "MAKE_SET",
    "MASTER_POS_WAIT",
    "MATCH",
    "MAX",
    "MD5",
    "MICROSECOND",
    "MID",
    "MIN",
    "MINUTE",
    "MOD",
    "MONTH",
    "MONTHNAME",
    "NAME_CONST",
    "NOW",
    "NTH_VALUE",
    "NTILE",
    "NULLIF",
    "NVL",
    "NVL2",
    "OCT",
    "OCTET_LENGTH",
    "ORD",
    "PERCENT_RANK",
    "PERIOD_ADD",
    "PERIOD_DIFF",
    "PI",
    "POINT",
    "POSITION",
    "POW",
    "POWER",
    "QUARTER",
    "QUOTE",
    "RADIANS",
    "RAND",
    "RANDOM_BYTES",
    "RANK",
    "REGEXP_INSTR",
    "REGEXP_LIKE",
    "REGEXP_REPLACE",
    "REGEXP_SUBSTR",
    "RELEASE_ALL_LOCKS",
    "RELEASE_LOCK",
    "REPEAT",
    "REPLACE",
    "REVERSE",
    "RIGHT",
    "ROUND",
    "ROW_COUNT",
    "ROW_NUMBER",
    "RPAD",
    "RTRIM",
    "SCHEMA",
    "SECOND",
    "SEC_TO_TIME",
    "SESSION_USER",
    "SHA",
    "SHA1",
    "SHA2",
    "SIGN",
    "SIN",
    "SLEEP",
    "SOUNDEX",
    "SPACE",
    "SQRT",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "STRCMP",
    "STR_TO_DATE",
    "ST_ASTEXT",
    "ST_CONTAINS",
    "ST_DISTANCE",
    "ST_GEOMFROMTEXT",
    "ST_WITHIN",
    "ST_X",
    "ST_Y",
    "SUBDATE",
    "SUBSTR",
    "SUBSTRING",
    "SUBSTRING_INDEX",
    "SUBTIME",
    "SUM",
    "SYSDATE",
    "SYSTEM_USER",
    "SYS_GUID",
    "TAN",
    "TIME",
    "TIMEDIFF",
    "TIMESTAMP",
    "TIMESTAMPADD",
    "TIMESTAMPDIFF",
    "TIME_FORMAT",
    "TIME_TO_SEC",
    "TO_BASE64",
    "TO_DAYS",
    "TO_SECONDS",
    "TRIM",
    "TRUNCATE",
    "UCASE",
    "UNCOMPRESS",
    "UNCOMPRESSED_LENGTH",
    "UNHEX",
    "UNIX_TIMESTAMP",
    "UPDATEXML",
    "UPPER",
    "USER",
    "UTC_DATE",
    "UTC_TIME",
    "UTC_TIMESTAMP",
    "UUID",
    "UUID_SHORT",
    "UUID_TO_BIN",
    "VALIDATE_PASSWORD_STRENGTH",
    "VALUES",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "VERSION",
    "WAIT_FOR_EXECUTED_GTID_SET",
    "WEEK",
    "WEEKDAY",
    "WEEKOFYEAR",
    "WEIGHT_STRING",
    "YEAR",
    "YEARWEEK",
];

/// Clause keywords (see [`CLAUSE`]).
const CLAUSE_WORDS: &[&str] = &[
    "IN",
    "VALUES",
    "VALUE",
    "AND",
    "OR",
    "NOT",
    "ON",
    "USING",
    "AS",
    "FROM",
    "JOIN",
    "WHERE",
    "SELECT",
    "EXISTS",
    "ANY",
    "ALL",
    "SOME",
    "UNION",
    "SET",
    "BY",
    "WHEN",
    "THEN",
    "ELSE",
    "HAVING",
    "IS",
    "LIKE",
    "BETWEEN",
    "CASE",
    "OVER",
    "DISTINCT",
    "XOR",
    "DIV",
    "MOD",
    "RETURN",
    "WITH",
    "LIMIT",
    "OFFSET",
    "INTERVAL",
    "REGEXP",
    "RLIKE",
    "INTO",
    "DEFAULT",
    "EXCEPT",
    "INTERSECT",
    "ESCAPE",
    "TABLE",
    "LATERAL",
];

/// Words up to 16 bytes are packed, upper-cased, into a u128: lookup hashes one register.
type Table = HashMap<u128, u8, BuildPacked>;

struct Classes {
    short: Table,
    /// Longer words (a handful of keywords).
    long: HashMap<Vec<u8>, u8>,
}

#[derive(Default, Clone, Copy)]
struct BuildPacked;

impl std::hash::BuildHasher for BuildPacked {
    type Hasher = PackedHasher;
    fn build_hasher(&self) -> PackedHasher {
        PackedHasher(0)
    }
}

struct PackedHasher(u64);

impl std::hash::Hasher for PackedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0 ^ u64::from_le_bytes(b))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(29);
        }
    }
    fn write_u128(&mut self, v: u128) {
        let x = (v as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ ((v >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        self.0 = x ^ (x >> 29);
    }
}

/// Packs an ASCII word of at most 16 bytes, upper-cased.
#[inline]
fn pack_upper(word: &[u8]) -> Option<u128> {
    if word.len() > 16 {
        return None;
    }
    let mut lo = [0u8; 16];
    lo[..word.len()].copy_from_slice(word);
    let v = u128::from_le_bytes(lo);
    // Any byte ≥ 0x80 means not ASCII: not a keyword.
    if v & 0x8080_8080_8080_8080_8080_8080_8080_8080 != 0 {
        return None;
    }
    // Upper-case the a–z bytes, all sixteen at once: a byte is lower-case when b + (0x80 - 'a') carries
    // into the high bit and b + (0x80 - 'z' - 1) does not.
    const ONES: u128 = 0x0101_0101_0101_0101_0101_0101_0101_0101;
    let ge_a = v + ONES * (0x80 - b'a' as u128);
    let gt_z = v + ONES * (0x80 - b'z' as u128 - 1);
    let lower = (ge_a & !gt_z) & (ONES * 0x80);
    Some(v - (lower >> 2))
}

fn classes() -> &'static Classes {
    static C: OnceLock<Classes> = OnceLock::new();
    C.get_or_init(|| {
        let mut c = Classes {
            short: Table::default(),
            long: HashMap::new(),
        };
        let mut add = |w: &str, flag: u8| match pack_upper(w.as_bytes()) {
            Some(p) => *c.short.entry(p).or_insert(0) |= flag,
            None => {
                *c.long
                    .entry(w.to_ascii_uppercase().into_bytes())
                    .or_insert(0) |= flag
            }
        };
        for kw in sqlparser::keywords::ALL_KEYWORDS {
            add(kw, KEYWORD);
        }
        for f in BUILTIN_FUNCTIONS {
            add(f, FUNCTION);
        }
        for w in CLAUSE_WORDS {
            add(w, CLAUSE);
        }
        add("VALUES", VALUES);
        add("VALUE", VALUES);
        add("IN", IN);
        add("IDENTIFIED", IDENTIFIED);
        add("ROW", ROW);
        for w in MYSQL_KEYWORDS {
            add(w, MYSQL_KEYWORD);
        }
        c
    })
}

/// The flags of `word` (any case); 0 for identifiers.
#[inline]
pub fn classify(word: &[u8]) -> u8 {
    if word.is_empty() || !word[0].is_ascii_alphabetic() {
        return 0;
    }
    match pack_upper(word) {
        Some(p) => classes().short.get(&p).copied().unwrap_or(0),
        None => {
            if !word.is_ascii() {
                return 0;
            }
            classes()
                .long
                .get(&word.to_ascii_uppercase())
                .copied()
                .unwrap_or(0)
        }
    }
}

/// True when `word` (any case) is a keyword in sqlparser's list.
#[inline]
pub fn is_keyword(word: &[u8]) -> bool {
    classify(word) & KEYWORD != 0
}

/// True when `word` (any case) names a built-in function.
#[inline]
pub fn is_builtin_function(word: &[u8]) -> bool {
    classify(word) & FUNCTION != 0
}

/// ASCII-case-insensitive comparison against an uppercase keyword.
#[inline]
pub fn eq_kw(word: &[u8], upper: &[u8]) -> bool {
    word.len() == upper.len()
        && word
            .iter()
            .zip(upper)
            .all(|(a, b)| a.to_ascii_uppercase() == *b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_like_sqlparser() {
        assert!(is_keyword(b"select"));
        assert!(is_keyword(b"SeLeCt"));
        assert!(is_keyword(b"CURRENT_TIMESTAMP"));
        assert!(!is_keyword(b"sbtest1"));
        assert!(!is_keyword(b"pad"));
        assert!(!is_keyword(b"_utf8mb4"));
        assert!(!is_keyword(b"s\xc3\xa9lect"));
        assert_eq!(
            classify(b"values") & (VALUES | CLAUSE | KEYWORD),
            VALUES | CLAUSE | KEYWORD
        );
        assert_eq!(classify(b"In") & IN, IN);
        assert!(is_builtin_function(b"now"));
        assert_eq!(pack_upper(b"aZz{`@"), pack_upper(b"AZZ{`@"));
        for kw in sqlparser::keywords::ALL_KEYWORDS {
            assert!(is_keyword(kw.as_bytes()), "{kw}");
            assert!(is_keyword(kw.to_ascii_lowercase().as_bytes()), "{kw}");
        }
    }
}
