#!/usr/bin/env bash
# Re-labels the compat corpus (corpora/compat/statements/*.sql) by running every statement on the
# MariaDB and PostgreSQL servers (CUTOVER_TEST_MYSQL_URL / CUTOVER_TEST_PG_URL) and writes
# corpora/compat/labels.tsv. The test suite re-runs the labelling and fails if a label changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-servers.sh
CUTOVER_WRITE_LABELS=1 cargo test --release --locked --test compat_labels -- --nocapture
cut -f4 corpora/compat/labels.tsv | tail -n +2 | sort | uniq -c
