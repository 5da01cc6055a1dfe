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

/// What to do when a server cannot be reached.
pub const HOW_TO_START: &str = "start the servers with scripts/setup-servers.sh, or point CUTOVER_TEST_MYSQL_URL / CUTOVER_TEST_PG_URL at them";

pub fn mysql_url() -> String {
    std::env::var("CUTOVER_TEST_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".into())
}

pub fn pg_url() -> String {
    std::env::var("CUTOVER_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// The URL with another database.
pub fn with_db(url: &str, db: &str) -> String {
    match url.rfind('/') {
        Some(i) if i > url.find("://").map_or(0, |p| p + 2) => format!("{}/{db}", &url[..i]),
        _ => format!("{url}/{db}"),
    }
}

/// User, password, host and port of a test URL, for the command-line clients.
pub struct UrlParts {
    pub user: String,
    pub pass: String,
    pub host: String,
    pub port: String,
}

pub fn url_parts(url: &str) -> UrlParts {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (auth, hostpart) = rest.split_once('@').unwrap_or(("root", rest));
    let (user, pass) = auth.split_once(':').unwrap_or((auth, ""));
    let hostport = hostpart.split('/').next().unwrap_or("127.0.0.1");
    let (host, port) = hostport.split_once(':').unwrap_or((
        hostport,
        if url.starts_with("mysql") {
            "3306"
        } else {
            "5432"
        },
    ));
    UrlParts {
        user: user.into(),
        pass: pass.into(),
        host: host.into(),
        port: port.into(),
    }
}

/// The mysql client on the test MariaDB over TCP, as the test URL's user; more arguments follow.
pub fn mysql_client() -> std::process::Command {
    mysql_tool("mysql")
}

/// A MariaDB client program (`mysql`, `mysqldump`) on the test MariaDB over TCP, as the test URL's
/// user; more arguments follow.
pub fn mysql_tool(program: &str) -> std::process::Command {
    let u = url_parts(&mysql_url());
    let mut cmd = std::process::Command::new(program);
    cmd.args([
        "--protocol=TCP",
        "-h",
        &u.host,
        "-P",
        &u.port,
        "-u",
        &u.user,
    ])
    .env("MYSQL_PWD", &u.pass);
    cmd
}

/// psql on the test PostgreSQL in database `db`, quiet, stopping at the first error.
pub fn psql_client(db: &str) -> std::process::Command {
    let u = url_parts(&pg_url());
    let mut cmd = std::process::Command::new("psql");
    cmd.args([
        "-h",
        &u.host,
        "-p",
        &u.port,
        "-U",
        &u.user,
        "-d",
        db,
        "-v",
        "ON_ERROR_STOP=1",
        "-q",
    ])
    .env("PGPASSWORD", &u.pass);
    cmd
}

/// Runs SQL with the mysql client on the test MariaDB; its tab-separated output.
pub fn mysql(db: Option<&str>, sql: &str) -> String {
    let mut cmd = mysql_client();
    cmd.args(["-N", "-B", "-e", sql]);
    if let Some(d) = db {
        cmd.arg(d);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run the mysql client ({e}): {HOW_TO_START}"));
    assert!(
        out.status.success(),
        "mysql: {}\n{sql}\n({HOW_TO_START})",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs SQL with psql on the test PostgreSQL, in database `db`; its unaligned output.
pub fn psql(db: &str, sql: &str) -> String {
    let out = psql_client(db)
        .args(["-A", "-t", "-c", sql])
        .output()
        .unwrap_or_else(|e| panic!("cannot run psql ({e}): {HOW_TO_START}"));
    assert!(
        out.status.success(),
        "psql: {}\n{sql}\n({HOW_TO_START})",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Drops and creates the PostgreSQL database `db` (sessions still on it are ended).
pub fn fresh_pg_database(db: &str) {
    psql(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
    );
    psql("postgres", &format!("CREATE DATABASE {db}"));
}

/// Runs `cutover verify --format json -q` from the MariaDB database `db` to the PostgreSQL one of
/// the same name; returns its JSON and exit code.
pub fn verify_json(db: &str, extra: &[&str]) -> (serde_json::Value, Option<i32>) {
    verify_json_between(&with_db(&mysql_url(), db), &with_db(&pg_url(), db), extra)
}

/// Runs `cutover verify --format json -q` from `source` to `target`; returns its JSON and exit code.
pub fn verify_json_between(
    source: &str,
    target: &str,
    extra: &[&str],
) -> (serde_json::Value, Option<i32>) {
    let mut args = vec![
        "verify", "--source", source, "--target", target, "--format", "json", "-q",
    ];
    args.extend_from_slice(extra);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cutover"))
        .args(&args)
        .output()
        .expect("run cutover");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot connect"), "{err}\n({HOW_TO_START})");
    (
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {err}")),
        out.status.code(),
    )
}

/// A verify table entry's (missing_in_target, extra_in_target, different).
pub fn diff_counts(t: &serde_json::Value) -> (u64, u64, u64) {
    (
        t["missing_in_target"].as_u64().unwrap(),
        t["extra_in_target"].as_u64().unwrap(),
        t["different"].as_u64().unwrap(),
    )
}

/// One table's entry in a verify report.
pub fn table_report<'a>(j: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    j["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == name)
        .unwrap_or_else(|| panic!("no {name} in {j:#}"))
}

/// Headless Chromium, offline, a fresh profile: the DOM after the page's script ran.
pub fn chromium(args: &[&str], profile: &Path) -> std::process::Output {
    let bin = ["chromium", "chromium-browser"].into_iter().find(|b| {
        std::process::Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let bin = bin.expect(
        "chromium is not installed: run scripts/setup-servers.sh (it installs Debian's chromium)",
    );
    std::process::Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("run chromium")
}

/// Checks a `cutover report --html` page offline in headless Chromium: no external URL in the file,
/// the page's script ran to its end (sortable, filterable tables), the criteria table, at least
/// `min_charts` inline SVG charts; keeps a screenshot at `shot` for a person to look at. Returns the
/// rendered DOM.
pub fn html_in_chromium(html: &Path, shot: Option<(&Path, usize)>) -> String {
    let page = std::fs::read_to_string(html).unwrap();
    // SVG namespaces are names, not fetched; nothing else may name a URL.
    assert!(
        !page
            .replace("http://www.w3.org/2000/svg", "")
            .contains("http://"),
        "no external URL"
    );
    assert!(!page.contains("https://"), "no external URL");
    let url = format!("file://{}", html.display());
    let profile = tempfile::tempdir().unwrap();
    let o = chromium(
        &["--virtual-time-budget=3000", "--dump-dom", &url],
        profile.path(),
    );
    let dom = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script did not run to its end:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(dom.contains("class=\"filter\""), "tables got their filters");
    assert!(dom.contains("id=\"criteria\""));
    if let Some((shot, min_charts)) = shot {
        let charts = dom.matches("<svg").count();
        assert!(
            charts >= min_charts,
            "{charts} charts, expected at least {min_charts}"
        );
        let _ = std::fs::remove_file(shot);
        let profile = tempfile::tempdir().unwrap();
        let o = chromium(
            &[
                "--window-size=1280,2400",
                &format!("--screenshot={}", shot.display()),
                &url,
            ],
            profile.path(),
        );
        assert!(
            shot.exists(),
            "no screenshot: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    dom
}

/// The criterion `id` of a go/no-go report's JSON; a report without it fails the test.
pub fn criterion<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["criteria"]
        .as_array()
        .expect("the report has criteria")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in the report: {report:#}"))
}
