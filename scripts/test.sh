#!/usr/bin/env bash
# The whole test suite: makes sure MariaDB and PostgreSQL are installed and running (installing and
# starting them when missing), then runs cargo test. Extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-servers.sh
exec cargo test --locked "$@"
