//! cutover against the real logs from percona-toolkit's test suite, compared with what pt-query-digest
//! 3.2.1 counted in each (../shared/peer-logs/percona/pt-query-digest-counts.tsv). Every file where the
//! counts differ is listed in `DEPARTURES` with the reason.

mod common;

use cutover::capture::{CaptureOptions, EventReader};
use cutover::digest::{DigestOptions, Digester};
use std::collections::BTreeMap;

struct Counts {
    events: u64,
    classes: u64,
    skipped_lines: u64,
    notes: BTreeMap<String, u64>,
}

fn digest(name: &str) -> Counts {
    let path = common::percona_logs().join(name);
    let mut reader = EventReader::open(std::slice::from_ref(&path), CaptureOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut d = Digester::new(DigestOptions::default());
    while let Some(b) = reader
        .next_batch()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    {
        d.add_fingerprints(b.new_fingerprints);
        for ev in &b.events {
            d.add(ev);
        }
    }
    let diag = reader.diagnostics().clone();
    let digest = d.finish(reader.inputs().to_vec(), &diag);
    Counts {
        events: digest.events,
        classes: digest.fingerprints.len() as u64,
        skipped_lines: diag.skipped_lines,
        notes: diag
            .counts
            .iter()
            .map(|(k, v)| (format!("{k:?}"), *v))
            .collect(),
    }
}

/// Files where cutover counts differently from pt-query-digest, and why. (file, events, classes, why)
const DEPARTURES: &[(&str, u64, u64, &str)] = &[
    (
        "slow017.txt",
        1,
        1,
        "its Query_time is corrupt (`18446744073708.796870.000036`): pt drops the whole entry, cutover keeps the \
         statement without a duration and notes the bad value",
    ),
    (
        "slow015.txt",
        0,
        0,
        "a truncated entry with no statement; pt produced no JSON at all (NA), cutover reports the truncation",
    ),
    (
        "empty",
        0,
        0,
        "an empty file; pt produced no JSON (NA), cutover reports zero events",
    ),
];

#[test]
fn counts_match_pt_query_digest_or_are_explained() {
    let tsv = std::fs::read_to_string(common::percona_logs().join("pt-query-digest-counts.tsv"))
        .expect("counts file");
    let mut checked = 0;
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, pt_events, pt_classes) = (cols[0], cols[2], cols[3]);
        let got = digest(file);
        if let Some((_, ev, cl, why)) = DEPARTURES.iter().find(|d| d.0 == file) {
            assert_eq!(
                (got.events, got.classes),
                (*ev, *cl),
                "{file}: expected the documented departure ({why})"
            );
        } else {
            let want: (u64, u64) = (
                pt_events.parse().expect("events"),
                pt_classes.parse().expect("classes"),
            );
            assert_eq!(
                (got.events, got.classes),
                want,
                "{file}: differs from pt-query-digest ({:?})",
                got.notes
            );
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} files checked");
}

#[test]
fn files_pt_did_not_count_are_read_cleanly() {
    // slow027 (a 58 KB IN list), slow039.txt.gz (gzip, a 1.2 MB multi-row INSERT) and slow047 (control
    // bytes inside a statement) are not in pt's counts file.
    for (file, events) in [
        ("slow027.txt", 1),
        ("slow039.txt.gz", 1),
        ("slow047.txt", 1),
    ] {
        let got = digest(file);
        assert_eq!(got.events, events, "{file}: {:?}", got.notes);
        assert_eq!(got.skipped_lines, 0, "{file}: {:?}", got.notes);
    }
}

#[test]
fn notes_explain_what_was_odd() {
    assert_eq!(
        digest("slow017.txt").notes.get("BadMetadataValue"),
        Some(&1)
    );
    assert_eq!(
        digest("slow015.txt").notes.get("TruncatedFinalEvent"),
        Some(&1)
    );
    // slow023's statement has no `;` terminator but ends cleanly on a line: kept, with a note.
    let s = digest("slow023.txt");
    assert_eq!(
        (s.events, s.notes.get("UnterminatedStatement")),
        (1, Some(&1))
    );
}
