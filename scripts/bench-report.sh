#!/bin/sh
# The shipped go/no-go scenario end to end, per stage: load (scripts/load-scenario.sh), audit, replay
# (reads, x10, with rewrites) and verify MariaDB → PostgreSQL, then the report with every output.
# Prints seconds per stage, the verdict, the exit code and the HTML's size. RUNS (default 4) runs
# in a row show whether the verdict holds. Each run also times `cutover check` on the shipped scenario
# (replays/check-sysbench.toml: the same four stages in one process), interleaved with the four
# commands (check second on odd runs, first on even ones), and prints its time beside their sum.
# CUTOVER_BIN picks the binary (default target/release/cutover).
#
#   scripts/bench-report.sh [RUNS]
set -eu
runs="${1:-4}"
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${CUTOVER_BIN:-$here/target/release/cutover}"
out="$(mktemp -d)"
S=mysql://root@127.0.0.1:3306/cutover_report_sbtest
T=postgres://postgres@127.0.0.1:5432/cutover_report_sbtest
L="$here/corpora/sysbench/general-text.log.gz"
t() { s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
echo "load $(t "$here/scripts/load-scenario.sh")s"
i=1
while [ "$i" -le "$runs" ]; do
  if [ $((i % 2)) -eq 0 ]; then c=$(t "$bin" check --scenario "$here/replays/check-sysbench.toml" --out "$out/check" -q || true); fi
  a=$(t "$bin" audit --target postgres --source $S "$L" --format json -q -o "$out/audit.json" || true)
  r=$(t "$bin" replay "$L" --source $S --target $T --profile postgres --rewrite --speed 10 --format json -q -o "$out/replay.json" || true)
  v=$(t "$bin" verify --source $S --target $T --format json -q -o "$out/verify.json" || true)
  s=$(date +%s.%N)
  set +e
  "$bin" report --audit "$out/audit.json" --replay "$out/replay.json" --verify "$out/verify.json" \
    --html "$out/report.html" --junit "$out/report.xml" --markdown "$out/report.md" --format json -q -o "$out/report.json"
  code=$?
  set -e
  p=$(echo "$(date +%s.%N) - $s" | bc)
  if [ $((i % 2)) -eq 1 ]; then c=$(t "$bin" check --scenario "$here/replays/check-sysbench.toml" --out "$out/check" -q || true); fi
  verdict=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['verdict'])" "$out/report.json")
  cverdict=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['verdict'])" "$out/check/report.json")
  sum=$(echo "$a + $r + $v + $p" | bc)
  echo "run $i: audit ${a}s replay ${r}s verify ${v}s report ${p}s verdict $verdict exit $code html $(wc -c < "$out/report.html") bytes; check ${c}s (verdict $cverdict) vs the four commands ${sum}s, ratio $(echo "scale=2; $c / $sum" | bc)"
  i=$((i + 1))
done
rm -rf "$out"
