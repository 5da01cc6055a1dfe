#!/usr/bin/env bash
# Benchmark of `cutover replay` on the TPC-C-like capture shipped in corpora/tpcc (made by
# scripts/capture-tpcc.sh from sysbench-tpcc on the local MariaDB), measured in one run:
#
#   scripts/bench-tpcc.sh        # prints Markdown for BENCHMARKS.md
#
# 1. A/A: the capture's starting data (start.sql.gz) restored twice on MariaDB; the default
#    `--mode all` replay at --max-speed from the general log and from the slow log: mismatches,
#    whether the copies end identical (CHECKSUM TABLE), the transaction classes with their counts,
#    TPS and tpm per side (the New-Order class's tpm is the tpmC analogue), order waits; the same
#    with --break-lock-cycles beside the default.
# 2. A/B: the same starting data translated for PostgreSQL by `cutover audit --emit-sql` (checked
#    equal with `cutover verify`), the general log replayed MariaDB → PostgreSQL with `--rewrite`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
BIN=target/release/cutover
M=mysql://root@127.0.0.1:3306
P=postgres://postgres@127.0.0.1:5432
DATA=bench-data/tpcc
mkdir -p "$DATA"
zcat corpora/tpcc/start.sql.gz >"$DATA/start.sql"
restore() { mysql -uroot -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"; mysql -uroot "$1" <"$DATA/start.sql"; }
checksum() { mysql -uroot -N -e "CHECKSUM TABLE $(mysql -uroot -N -e "SELECT GROUP_CONCAT(CONCAT('$1.', table_name) ORDER BY table_name) FROM information_schema.tables WHERE table_schema='$1'")" | awk '{print $2}'; }
cat >"$DATA/row.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
label, copies = sys.argv[2], sys.argv[3]
s, t = j["sides"]["source"], j["sides"]["target"]
print(f"| {label} | {s['statements']:,} | {s['qps']:,.0f} / {t['qps']:,.0f} | {s['tps']:,.1f} / {t['tps']:,.1f} "
      f"| {s['latency_ms']['avg']:.2f} / {t['latency_ms']['avg']:.2f} | {s['latency_ms']['p95']:.2f} / {t['latency_ms']['p95']:.2f} "
      f"| {j['mismatches']} ({j.get('concurrent_races', 0)} races) | {s.get('errors', 0)} / {t.get('errors', 0)} "
      f"| {s.get('order_lock_cycles')} / {s.get('order_wait_timeouts')} ; {t.get('order_lock_cycles')} / {t.get('order_wait_timeouts')} | {copies} |")
PY
cat >"$DATA/classes.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"Transaction classes ({sys.argv[2]}):")
print()
print("| class | count | source TPS | source tpm | target tpm | source p95 ms | target p95 ms | rollbacks (s/t) | ratio (interval) |")
print("|---|---|---|---|---|---|---|---|---|")
for c in sorted(j["transactions"], key=lambda c: -c["count"]):
    s, t = c["source"], c.get("target") or {}
    lt = c.get("latency_test") or {}
    ci = lt.get("ratio_ci") or [None, None]
    ratio = "" if lt.get("ratio") is None else f"{lt['ratio']:.2f} ({ci[0]:.2f}–{ci[1]:.2f})" if ci[0] is not None else f"{lt['ratio']:.2f}"
    print(f"| {c['name']} | {c['count']} | {s['tps']:.1f} | {s['tpm']:,.0f} | {t.get('tpm', 0):,.0f} | {s['latency_ms']['p95']:.2f} "
          f"| {t.get('latency_ms', {}).get('p95', 0):.2f} | {s['rollbacks']} / {t.get('rollbacks', 0)} | {ratio} |")
PY
rows=()
for log in general slow; do
  for opt in "" --break-lock-cycles; do
    restore cutover_bench_tpcc_a
    restore cutover_bench_tpcc_b
    out="$DATA/aa-$log${opt:+-break}.json"
    "$BIN" replay "corpora/tpcc/$log.log.gz" --source "$M/cutover_bench_tpcc_a" --target "$M/cutover_bench_tpcc_b" \
      --mode all --allow-writes --max-speed $opt --format json -q -o "$out" || true
    if [ "$(checksum cutover_bench_tpcc_a)" = "$(checksum cutover_bench_tpcc_b)" ]; then same=identical; else same="**differ**"; fi
    rows+=("$(python3 "$DATA/row.py" "$out" "A/A MariaDB, $log log${opt:+, $opt}" "$same")")
  done
done
# A/B: the starting data translated for PostgreSQL by the audit itself.
"$BIN" audit --target postgres --emit-sql "$DATA/start.pg.sql" "$DATA/start.sql" -q -o "$DATA/start-audit.txt" || true
psql -U postgres -h 127.0.0.1 -q -c "DROP DATABASE IF EXISTS cutover_bench_tpcc_pg" -c "CREATE DATABASE cutover_bench_tpcc_pg"
psql -U postgres -h 127.0.0.1 -q -d cutover_bench_tpcc_pg -v ON_ERROR_STOP=1 -f "$DATA/start.pg.sql" >/dev/null 2>"$DATA/load.txt"
# Statistics for the planner, as a DBA gathers them after a bulk load: without them PostgreSQL
# plans the freshly loaded tables blind until autovacuum gets to them, and the replay measured that
# (2026-12-07: 274-301 target QPS, 43-45 two-second waits, against 10,036 QPS and none after ANALYZE).
psql -U postgres -h 127.0.0.1 -q -d cutover_bench_tpcc_pg -c "ANALYZE"
restore cutover_bench_tpcc_a
verify=$("$BIN" verify --source "$M/cutover_bench_tpcc_a" --target "$P/cutover_bench_tpcc_pg" -q | grep 'total differences' || true)
"$BIN" audit --target postgres corpora/tpcc/general.log.gz --format json -q -o "$DATA/audit-general.json" || true
"$BIN" replay corpora/tpcc/general.log.gz --source "$M/cutover_bench_tpcc_a" --target "$P/cutover_bench_tpcc_pg" \
  --mode all --allow-writes --max-speed --rewrite --format json -q -o "$DATA/ab-general.json" || true
rows+=("$(python3 "$DATA/row.py" "$DATA/ab-general.json" "A/B MariaDB → PostgreSQL 15, general log, --rewrite" "n/a")")
mysql -uroot -e "DROP DATABASE cutover_bench_tpcc_a; DROP DATABASE cutover_bench_tpcc_b"
psql -U postgres -h 127.0.0.1 -q -c "DROP DATABASE cutover_bench_tpcc_pg"
echo "Machine: $(nproc) cores; $(mysql -uroot -N -e 'SELECT VERSION()'); $(psql -U postgres -h 127.0.0.1 -tAc 'SHOW server_version'); cutover $($BIN --version | awk '{print $2}')"
echo
echo "Starting data for PostgreSQL: \`cutover audit --emit-sql\` of start.sql, loaded with ON_ERROR_STOP; verify: $verify."
echo
echo "| run | statements | QPS (source / target) | TPS | avg ms | p95 ms | mismatches | errors | lock cycles broken / 2 s timeouts (source ; target) | copies after |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
python3 "$DATA/classes.py" "$DATA/aa-general.json" "A/A, general log"
echo
python3 "$DATA/classes.py" "$DATA/ab-general.json" "A/B MariaDB → PostgreSQL"
echo
python3 - "$DATA/ab-general.json" "$DATA/audit-general.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"A/B mismatch groups: {len(j['mismatch_groups'])}; target-only errors: {len(j.get('target_errors', []))}")
for g in j["mismatch_groups"][:10]:
    ex = (g.get("examples") or [{}])[0]
    print(f"- {g['category']} x{g['count']} #{g['id']}: {ex.get('reason', '')[:160]}")
for e in j.get("target_errors", [])[:10]:
    print(f"- target error {e.get('code')} x{e.get('count')}: {str(e.get('message'))[:160]}")
PY
