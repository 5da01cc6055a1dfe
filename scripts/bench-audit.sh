#!/usr/bin/env bash
# Benchmark of `cutover audit`: a whole sysbench capture audited for PostgreSQL, timed against one
# pass of pt-query-digest over the same logs (the peer tool only digests; it has no audit), plus the
# audit's accuracy on the labelled compat corpus.
#
#   scripts/bench-audit.sh            # prints Markdown for BENCHMARKS.md
#
# Captures bench-data/{slow,general}-{ps,text}.log first if they are missing (60 s of sysbench each,
# 8 threads, with and without prepared statements).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=bench-data
mkdir -p "$DATA"
for mode in ps text; do
  if [ ! -s "$DATA/slow-$mode.log" ] || [ ! -s "$DATA/general-$mode.log" ]; then
    bash scripts/capture-sysbench.sh --out "$DATA" --time 60 --threads 8 --keep all --no-gzip --only "$mode"
  fi
done
command -v pt-query-digest >/dev/null || apt-get install -y -qq percona-toolkit >/dev/null
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time >/dev/null
cargo build --release --locked -q
BIN=target/release/cutover
LOGS=("$DATA/slow-ps.log" "$DATA/slow-text.log" "$DATA/general-ps.log" "$DATA/general-text.log")

measure() { /usr/bin/time -f "%e %M" "$@" >/dev/null 2>/tmp/cutover-bench.time || true; tail -1 /tmp/cutover-bench.time; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

mb=$(du -cb "${LOGS[@]}" | tail -1 | awk '{printf "%.0f", $1/1e6}')
runs=()
for _ in 1 2 3 4 5; do runs+=("$(measure "$BIN" audit --target postgres -q "${LOGS[@]}")"); done
cut_s=$(printf '%s\n' "${runs[@]}" | awk '{print $1}' | median)
cut_kb=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | sort -n | tail -1)
stmts=$("$BIN" audit --target postgres --format json -q "${LOGS[@]}" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(len(r["statements"]), sum(s["count"] for s in r["statements"]))' || true)
pt_s=0
for log in "${LOGS[@]}"; do
  case $log in *slow*) t=slowlog ;; *) t=genlog ;; esac
  r=$(measure pt-query-digest --type "$t" "$log")
  pt_s=$(awk -v a="$pt_s" -v b="${r% *}" 'BEGIN {print a + b}')
done
echo "Machine: $(nproc) cores; $(pt-query-digest --version 2>/dev/null | head -1); cutover $($BIN --version | awk '{print $2}')"
echo
echo "| input | size | distinct statements / executions | cutover audit --target postgres (median of 5) | pt-query-digest (digest only) | ratio | cutover peak RSS |"
echo "|---|---|---|---|---|---|---|"
awk -v mb="$mb" -v cs="$cut_s" -v ck="$cut_kb" -v ps="$pt_s" -v st="$stmts" 'BEGIN {
  split(st, s, " ");
  printf "| 4 sysbench logs (slow + general, with and without prepared statements) | %s MB | %s / %s | %.2f s | %.1f s | **%.0fx** | %.0f MiB |\n", mb, s[1], s[2], cs, ps, ps/cs, ck/1024 }'
# One log of the capture, and the trimmed capture shipped in corpora/sysbench.
one=()
for _ in 1 2 3 4 5; do one+=("$(measure "$BIN" audit --target postgres -q "$DATA/general-ps.log")"); done
one_s=$(printf '%s\n' "${one[@]}" | awk '{print $1}' | median)
ship=()
for _ in 1 2 3 4 5; do ship+=("$(measure "$BIN" audit --target postgres -q corpora/sysbench/*.log.gz)"); done
ship_s=$(printf '%s\n' "${ship[@]}" | awk '{print $1}' | median)
echo
echo "One 60 s general log ($(du -b "$DATA/general-ps.log" | awk '{printf "%.0f MB", $1/1e6}')): ${one_s} s. The capture shipped in corpora/sysbench (4 logs): ${ship_s} s."
echo
echo "Accuracy on corpora/compat (tests/audit_accuracy.rs):"
cargo test --release --locked -q --test audit_accuracy -- --nocapture 2>&1 | grep -E '^audit accuracy|^label' || true
