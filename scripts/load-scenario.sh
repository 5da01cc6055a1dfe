#!/bin/sh
# Loads the data of the shipped go/no-go scenario (replays/check-sysbench.toml): the four sysbench
# tables the capture in corpora/sysbench reads, with the same rows on MariaDB and on PostgreSQL, into
# database DB (default cutover_report_sbtest) on both servers. Drops and recreates DB: it holds only
# this scenario's data.
#
#   scripts/load-scenario.sh [DB]
#
# Servers: MYSQL_HOST/MYSQL_PORT/MYSQL_USER (127.0.0.1, 3306, root) and PGHOST/PGPORT/PGUSER
# (127.0.0.1, 5432, postgres), as scripts/setup-servers.sh leaves them.
set -eu
db="${1:-cutover_report_sbtest}"
case "$db" in
  *[!A-Za-z0-9_]*) echo "load-scenario: database name $db: letters, digits and _ only" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")/.." && pwd)"
mh="${MYSQL_HOST:-127.0.0.1}"; mp="${MYSQL_PORT:-3306}"; mu="${MYSQL_USER:-root}"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
my() { mysql --protocol=tcp -h "$mh" -P "$mp" -u "$mu" "$@"; }
if ! my -e 'SELECT 1' >/dev/null 2>&1; then
  echo "load-scenario: cannot reach MariaDB at $mh:$mp as $mu; start it with scripts/setup-servers.sh" >&2; exit 2
fi
if ! psql -d postgres -Atc 'SELECT 1' >/dev/null 2>&1; then
  echo "load-scenario: cannot reach PostgreSQL at $PGHOST:$PGPORT as $PGUSER; start it with scripts/setup-servers.sh" >&2; exit 2
fi
my -e "DROP DATABASE IF EXISTS \`$db\`; CREATE DATABASE \`$db\`"
my "$db" < "$here/corpora/scenario/sbtest.mysql.sql"
psql -q -v ON_ERROR_STOP=1 -v client_min_messages=warning -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" -c "CREATE DATABASE \"$db\"" >/dev/null
psql -q -v ON_ERROR_STOP=1 -d "$db" -f "$here/corpora/scenario/sbtest.postgres.sql" >/dev/null
echo "load-scenario: $db loaded on MariaDB ($mh:$mp) and PostgreSQL ($PGHOST:$PGPORT): sbtest1..4, 10,000 rows each"
