//! Passwords never appear in output, reports or errors, whatever form the connection string takes;
//! and passwords reach the servers from MYSQL_PWD / PGPASSWORD and --password-file as the clients'
//! do (hardening issue, item 11). Against the real MariaDB and PostgreSQL.

mod common;

use common::*;
use std::process::{Command, Output};

const SECRET: &str = "Tops3cretPw";

fn cutover(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cutover"));
    c.args(args)
        .env_remove("MYSQL_PWD")
        .env_remove("PGPASSWORD");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run cutover")
}

fn all_output(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn script() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("one.sql");
    std::fs::write(&p, "SELECT 1;\n").expect("write script");
    (dir, p)
}

/// `audit --live URL` on a one-statement script, in every format: the endpoint is printed in each.
fn live_audit_outputs(url: &str, env: &[(&str, &str)]) -> Vec<Output> {
    let (_d, sql) = script();
    ["text", "json", "markdown"]
        .iter()
        .map(|f| {
            cutover(
                &[
                    "audit",
                    "--target",
                    "postgres",
                    "--live",
                    url,
                    "--format",
                    f,
                    sql.to_str().unwrap(),
                ],
                env,
            )
        })
        .collect()
}

#[test]
fn a_password_url_parameter_is_masked_in_every_format() {
    // PostgreSQL with trust auth takes any password, so the run succeeds and prints the endpoint.
    let url = format!("{}?password={SECRET}&connect_timeout=5", pg_url());
    for o in live_audit_outputs(&url, &[]) {
        let all = all_output(&o);
        assert!(
            o.status.code() != Some(2),
            "the live audit did not run ({HOW_TO_START}):\n{all}"
        );
        assert!(!all.contains(SECRET), "password printed:\n{all}");
        assert!(all.contains("password=***"), "endpoint not shown:\n{all}");
    }
}

#[test]
fn malformed_and_key_value_strings_are_masked_in_errors() {
    for url in [
        format!("mysql//root:{SECRET}@127.0.0.1:3306/test"),
        format!("host=127.0.0.1 port=5432 user=postgres password={SECRET} dbname=test"),
        format!("host=127.0.0.1 password = '{SECRET} with blanks'"),
        format!("postgres://postgres@127.0.0.1:5432/test?sslpassword={SECRET}&sslmode=bogus"),
        format!("mysql://root:{SECRET}@127.0.0.1:3306/test?bogus_option=1"),
    ] {
        for o in live_audit_outputs(&url, &[]) {
            let all = all_output(&o);
            assert!(!o.status.success(), "{url} was accepted:\n{all}");
            assert!(!all.contains(SECRET), "password printed for {url}:\n{all}");
            assert!(
                all.contains("***"),
                "no masked form shown for {url}:\n{all}"
            );
        }
    }
}

/// A MariaDB user with a password, for the password-source tests.
fn mariadb_user_with_password() -> String {
    let user = "cutover_pw_test";
    mysql(
        None,
        &format!(
            "CREATE USER IF NOT EXISTS '{user}'@'%' IDENTIFIED BY '{SECRET}'; \
             ALTER USER '{user}'@'%' IDENTIFIED BY '{SECRET}'; \
             GRANT SELECT ON test.* TO '{user}'@'%'"
        ),
    );
    let u = url_parts(&mysql_url());
    format!("mysql://{user}@{}:{}/test", u.host, u.port)
}

#[test]
fn passwords_come_from_mysql_pwd_and_a_password_file() {
    let url = mariadb_user_with_password();
    let ok = |o: &Output| {
        let all = all_output(o);
        assert!(!all.contains(SECRET), "password printed:\n{all}");
        o.status.code() != Some(2) && all.contains("server_version")
    };
    let json = |env: &[(&str, &str)], extra: &[&str]| {
        let (_d, sql) = script();
        let mut args: Vec<&str> = extra.to_vec();
        args.extend([
            "audit",
            "--target",
            "postgres",
            "--live",
            &url,
            "--format",
            "json",
            sql.to_str().unwrap(),
        ]);
        cutover(&args, env)
    };
    // Without a password the server refuses, and says so without a panic.
    let refused = json(&[], &[]);
    assert!(!ok(&refused), "connected without a password");
    assert!(
        all_output(&refused).contains("Access denied"),
        "{}",
        all_output(&refused)
    );
    // MYSQL_PWD, as the mysql client takes it.
    let from_env = json(&[("MYSQL_PWD", SECRET)], &[]);
    assert!(
        ok(&from_env),
        "MYSQL_PWD not used:\n{}",
        all_output(&from_env)
    );
    // A password file: one line, then .pgpass lines.
    let dir = tempfile::tempdir().expect("temp dir");
    let one = dir.path().join("one");
    std::fs::write(&one, format!("{SECRET}\n")).expect("write");
    let o = json(&[], &["--password-file", one.to_str().unwrap()]);
    assert!(
        ok(&o),
        "one-line password file not used:\n{}",
        all_output(&o)
    );
    let pgpass = dir.path().join("pgpass");
    let u = url_parts(&mysql_url());
    std::fs::write(
        &pgpass,
        format!(
            "otherhost:*:*:*:wrong\n{}:{}:test:cutover_pw_test:{SECRET}\n",
            u.host, u.port
        ),
    )
    .expect("write");
    let o = json(&[], &["--password-file", pgpass.to_str().unwrap()]);
    assert!(ok(&o), ".pgpass lines not used:\n{}", all_output(&o));
    // The file wins over the variable; a wrong one is refused without echoing either.
    let o = json(
        &[("MYSQL_PWD", "wrong-from-env")],
        &["--password-file", one.to_str().unwrap()],
    );
    assert!(
        ok(&o),
        "file did not win over MYSQL_PWD:\n{}",
        all_output(&o)
    );
    let o = json(&[("MYSQL_PWD", "wrong-from-env")], &[]);
    assert!(!ok(&o) && !all_output(&o).contains("wrong-from-env"));
    // A `?password=` parameter on a mysql:// URL is taken (and never printed).
    let with_param = format!("{url}?password={SECRET}");
    let (_d, sql) = script();
    let o = cutover(
        &[
            "audit",
            "--target",
            "postgres",
            "--live",
            &with_param,
            "--format",
            "json",
            sql.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok(&o), "?password= not used:\n{}", all_output(&o));
    // A missing file is a clear error.
    let o = json(&[], &["--password-file", "/nonexistent/pw"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(all_output(&o).contains("/nonexistent/pw"));
}
