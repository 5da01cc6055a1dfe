#!/usr/bin/env bash
# Benchmark of `cutover verify` against reladiff (PyPI), measured in one run on a sysbench-shaped table
# held identically by the local MariaDB and PostgreSQL.
#
#   scripts/bench-verify.sh [--rows N]        # default 1,000,000; prints Markdown for BENCHMARKS.md
#
# reladiff is installed into bench-data/venv (never committed). The command run is the one issue 5
# names: reladiff mysql://… sbtest1 postgresql://… sbtest1 -k id -c k -c c -c pad.
# Peak memory is also measured on a table of a quarter of the rows, to show it does not grow.
# Both tools run with their defaults (one session per server) and with four sessions per server.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=1000000
while [ $# -gt 0 ]; do case $1 in --rows) ROWS=$2; shift 2 ;; *) echo "unknown option $1" >&2; exit 2 ;; esac; done
DB=cutover_vbench
mkdir -p bench-data
[ -x bench-data/venv/bin/reladiff ] || { python3 -m venv bench-data/venv && bench-data/venv/bin/pip install -q "reladiff[mysql,postgresql]"; }
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time >/dev/null
cargo build --release --locked -q
BIN=target/release/cutover

load() { # rows
  mysql -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB; USE $DB;
    CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k));
    INSERT INTO sbtest1 SELECT seq, (seq*7919) % 100003, CONCAT(MD5(seq), '-', MD5(seq+1), '-', MD5(seq+2)), MD5(seq+3) FROM seq_1_to_$1;"
  psql -h 127.0.0.1 -U postgres -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
  psql -h 127.0.0.1 -U postgres -q -d $DB -c "CREATE TABLE sbtest1 (id SERIAL PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '');
    INSERT INTO sbtest1 SELECT g, (g::bigint * 7919) % 100003, md5(g::text) || '-' || md5((g+1)::text) || '-' || md5((g+2)::text), md5((g+3)::text) FROM generate_series(1, $1) g;
    CREATE INDEX k_1 ON sbtest1(k); SELECT setval('sbtest1_id_seq', $1);" -c "VACUUM ANALYZE sbtest1" >/dev/null
}
measure() { /usr/bin/time -f "%e %M" "$@" >/tmp/cutover-bench.out 2>/tmp/cutover-bench.time || true; tail -1 /tmp/cutover-bench.time; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
S="mysql://root@127.0.0.1:3306/$DB"; T="postgres://postgres@127.0.0.1:5432/$DB"
cutover() { # extra options
  local m
  m=$(measure "$BIN" verify --source "$S" --target "$T" --tables sbtest1 -q "$@")
  grep -q 'total differences: 0' /tmp/cutover-bench.out || { echo "cutover verify found differences:" >&2; cat /tmp/cutover-bench.out >&2; exit 1; }
  echo "$m"
}
reladiff() { # extra options
  measure bench-data/venv/bin/reladiff "$S" sbtest1 "postgresql://postgres@127.0.0.1:5432/$DB" sbtest1 -k id -c k -c c -c pad "$@"
}
# Each tool runs REPS times, interleaved (this VM's speed drifts by tens of percent within minutes);
# the table shows medians. One session per server is both tools' default; 4 is cutover --threads 4
# against reladiff -j 4.
REPS=3
run_all() { # rows
  local c1=() c4=() r1=() r4=() m1=() mr=() i t m o
  for i in $(seq $REPS); do
    o=$(cutover) || exit 1; read -r t m <<<"$o"; c1+=("$t"); m1+=("$m")
    o=$(reladiff); read -r t m <<<"$o"; r1+=("$t"); mr+=("$m")
    o=$(cutover --threads 4) || exit 1; read -r t m <<<"$o"; c4+=("$t")
    o=$(reladiff -j 4); read -r t m <<<"$o"; r4+=("$t")
  done
  echo "$1 $(median "${c1[@]}") $(median "${r1[@]}") $(median "${c4[@]}") $(median "${r4[@]}") $(median "${m1[@]}") $(median "${mr[@]}")"
  echo "$1 rows, every run (s): cutover ${c1[*]} | reladiff ${r1[*]} | cutover --threads 4 ${c4[*]} | reladiff -j 4 ${r4[*]}" >&2
}
load $((ROWS / 4)); small=$(run_all $((ROWS / 4)))
load "$ROWS"; big=$(run_all "$ROWS")
echo "Machine: $(nproc) cores; $(mysql -h127.0.0.1 -uroot -N -e 'SELECT VERSION()'); $(psql -h 127.0.0.1 -U postgres -At -d postgres -c 'SHOW server_version'); reladiff $(bench-data/venv/bin/reladiff --version); cutover $($BIN --version | awk '{print $2}'); medians of $REPS interleaved runs"
echo
echo "| rows | cutover verify | reladiff | speed-up | cutover --threads 4 | reladiff -j 4 | speed-up | cutover peak RSS | reladiff peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
for line in "$small" "$big"; do
  read -r n c1 r1 c4 r4 cm rm <<<"$line"
  awk -v n="$n" -v c1="$c1" -v r1="$r1" -v c4="$c4" -v r4="$r4" -v cm="$cm" -v rm="$rm" 'BEGIN { printf "| %d | %.2f s | %.2f s | **%.1fx** | %.2f s | %.2f s | **%.1fx** | %.0f MiB | %.0f MiB |\n", n, c1, r1, r1/c1, c4, r4, r4/c4, cm/1024, rm/1024 }'
done
mysql -h127.0.0.1 -uroot -e "DROP DATABASE $DB"
psql -h 127.0.0.1 -U postgres -q -d postgres -c "DROP DATABASE $DB WITH (FORCE)"
