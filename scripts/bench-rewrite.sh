#!/usr/bin/env bash
# Rewrite accuracy, cutover vs sqlglot, in one run (BENCHMARKS.md, "Rewrites that run").
#
# For every statement of corpora/compat: the statements are taken as cutover's audit splits them
# (`cutover audit --format json`), sqlglot transpiles each from MySQL to PostgreSQL, and
# tests/rewrite_accuracy.rs runs the original on MariaDB against cutover's rewrite and sqlglot's on
# PostgreSQL (same schema and data, writes rolled back) and prints both scores.
#
# sqlglot lives in a venv outside the repository (benchmark only): SQLGLOT_VENV, default
# /work/venv-sqlglot (created with `python3 -m venv` and `pip install sqlglot` when missing).
#
# BENCH_PROFILE=debug uses the debug build (a shared machine with no room for a release build); the
# figures are the same, only slower to get.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${SQLGLOT_VENV:-/work/venv-sqlglot}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q sqlglot
fi
bash scripts/setup-servers.sh >/dev/null
if [ "${BENCH_PROFILE:-release}" = debug ]; then
    BUILD=(--locked) BIN=./target/debug/cutover
else
    BUILD=(--release --locked) BIN=./target/release/cutover
fi
cargo build "${BUILD[@]}" -q
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for f in corpora/compat/statements/*.sql; do
    name=$(basename "$f" .sql)
    # Exit 1 means "the audit found failing statements": expected here.
    "$BIN" audit --target postgres --schema corpora/compat/schema.mysql.sql \
        --format json "$f" -o "$OUT/$name.json" || [ $? -eq 1 ]
done
"$VENV/bin/python" - "$OUT" > "$OUT/peer.tsv" <<'PY'
import json, os, sys
import sqlglot
out = sys.argv[1]
def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
for name in sorted(os.listdir(out)):
    if not name.endswith(".json"):
        continue
    doc = json.load(open(os.path.join(out, name)))
    for st in doc["statements"]:
        try:
            parts = sqlglot.transpile(st["sql"], read="mysql", write="postgres")
            # One statement in, one out; anything else is no usable translation.
            sql = parts[0] if len(parts) == 1 else ""
        except Exception:
            sql = ""
        print(f"{name[:-5]}\t{st['ordinal']}\t{esc(sql)}")
PY
echo "sqlglot $("$VENV/bin/python" -c 'import sqlglot; print(sqlglot.__version__)'): $(grep -c . "$OUT/peer.tsv") statements transpiled" >&2
CUTOVER_PEER_REWRITES="$OUT/peer.tsv" CUTOVER_REWRITE_RESULTS="${CUTOVER_REWRITE_RESULTS:-$OUT/results.tsv}" \
    cargo test "${BUILD[@]}" --test rewrite_accuracy -- --nocapture 2>&1 |
    grep -E '^(cutover|sqlglot|  [a-z_]+):|test result|panicked'
