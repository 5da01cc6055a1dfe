#!/usr/bin/env bash
# Benchmark of `cutover digest` against pt-query-digest (Debian's percona-toolkit), measured in one run
# on the same multi-hundred-MB sysbench logs captured from the local MariaDB.
#
#   scripts/bench-digest.sh            # prints a Markdown table for BENCHMARKS.md
#
# Captures bench-data/{slow,general}-ps.log first if they are missing (60 s of sysbench, 8 threads).
# cutover runs 5 times (median reported); pt-query-digest once per log (it takes minutes).
# Peak memory is checked on a ~2 GB slow log made of copies of the capture.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=bench-data
mkdir -p "$DATA"
if [ ! -s "$DATA/slow-ps.log" ] || [ ! -s "$DATA/general-ps.log" ]; then
  bash scripts/capture-sysbench.sh --out "$DATA" --time 60 --threads 8 --keep all --no-gzip --only ps
fi
command -v pt-query-digest >/dev/null || apt-get install -y -qq percona-toolkit >/dev/null
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time >/dev/null
cargo build --release --locked -q
BIN=target/release/cutover

# seconds and peak RSS (KiB) of a command, its output discarded
measure() { /usr/bin/time -f "%e %M" "$@" >/dev/null 2>/tmp/cutover-bench.time || true; tail -1 /tmp/cutover-bench.time; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

row() { # label log pt-type
  local label=$1 log=$2 type=$3 mb runs=() pt
  mb=$(awk -v b="$(stat -c %s "$log")" 'BEGIN {printf "%.0f", b/1e6}')
  for _ in 1 2 3 4 5; do runs+=("$(measure "$BIN" digest "$log")"); done
  local cut_s cut_kb
  cut_s=$(printf '%s\n' "${runs[@]}" | awk '{print $1}' | median)
  cut_kb=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | sort -n | tail -1)
  pt=$(measure pt-query-digest --type "$type" "$log")
  local pt_s=${pt% *} pt_kb=${pt#* }
  awk -v l="$label" -v mb="$mb" -v cs="$cut_s" -v ck="$cut_kb" -v ps="$pt_s" -v pk="$pt_kb" 'BEGIN {
    printf "| %s | %s MB | %.2f s (%.0f MB/s) | %.1f s (%.1f MB/s) | **%.0fx** | %.0f MiB | %.0f MiB |\n",
      l, mb, cs, mb/cs, ps, mb/ps, ps/cs, ck/1024, pk/1024 }'
}

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(pt-query-digest --version 2>/dev/null | head -1); cutover $($BIN --version | awk '{print $2}')"
echo
echo "| log | size | cutover digest (median of 5) | pt-query-digest | speed-up | cutover peak RSS | pt peak RSS |"
echo "|---|---|---|---|---|---|---|"
row "sysbench slow log (MariaDB)" "$DATA/slow-ps.log" slowlog
row "sysbench general log (MariaDB)" "$DATA/general-ps.log" genlog

# Memory does not grow with the log: a ~2 GB slow log of copies of the capture.
BIG="$DATA/slow-2g.log"
if [ ! -s "$BIG" ]; then
  : >"$BIG"
  while [ "$(stat -c %s "$BIG")" -lt 2000000000 ]; do cat "$DATA/slow-ps.log" >>"$BIG"; done
fi
big=$(measure "$BIN" digest "$BIG")
awk -v b="$(stat -c %s "$BIG")" -v r="$big" 'BEGIN { split(r, x, " ");
  printf "\n2 GB check: %.2f GB slow log digested in %.1f s (%.0f MB/s), peak RSS %.0f MiB\n", b/1e9, x[1], b/1e6/x[1], x[2]/1024 }'
