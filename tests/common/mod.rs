//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workplace's shared material (`../shared` next to the checkout): peer logs, research, SQL.
/// Looked for in CUTOVER_SHARED_DIR, then beside the checkout or any directory above it, then at the
/// workplace's usual place (/work/shared), for clones made elsewhere (CI clones into a fresh directory).
pub fn shared_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CUTOVER_SHARED_DIR") {
        return PathBuf::from(d);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = manifest
        .ancestors()
        .skip(1)
        .map(|up| up.join("shared"))
        .chain([PathBuf::from("/work/shared")]);
    for cand in candidates {
        if cand.join("peer-logs").is_dir() {
            return cand;
        }
    }
    panic!(
        "cannot find the shared material (a `shared/` directory with peer-logs/ beside or above {}): \
         set CUTOVER_SHARED_DIR to its path",
        manifest.display()
    );
}

pub fn percona_logs() -> PathBuf {
    shared_dir().join("peer-logs").join("percona")
}

pub fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpora")
        .join(rel)
}

/// Writes `text` to a fresh temporary file and returns its path (kept alive by the returned guard).
pub fn temp_log(text: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("test.log");
    std::fs::write(&path, text).expect("write temp log");
    (dir, path)
}
