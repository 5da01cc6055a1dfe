#!/usr/bin/env bash
# Captures real general and slow query logs from the local MariaDB while the TPC-C-like workload of
# ../shared/peer-workloads/sysbench-tpcc (Percona-Lab, Apache-2.0) runs, together with a dump of the
# data the capture starts from, so that the capture can be replayed (A/A, --mode all) against two
# identical copies of that data.
#
#   scripts/capture-tpcc.sh                          # refresh corpora/tpcc/ (trimmed, gzip)
#   scripts/capture-tpcc.sh --out bench-data/tpcc --time 10 --keep all --no-gzip --snapshot cutover_sched_tpcc_snap
#                                                    # a whole capture for benchmarks
#
# Options:
#   --db NAME        database the workload runs in (default cutover_sched_tpcc; dropped at the end)
#   --out DIR        where the logs and the dump go (default corpora/tpcc)
#   --time S         seconds of the run (default 10)
#   --threads N      sysbench threads = concurrent sessions (default 4)
#   --scale N        warehouses (default 1; tpcc.lua's --scale)
#   --keep N|all     keep the first N records of each log (default 12000), whole records
#   --no-gzip        write plain files
#   --snapshot DB    also copy the starting data into database DB (kept after the script ends)
#   --full-data      keep tpcc.lua's random filler text (by default the long filler columns are
#                    replaced with short text after prepare, so the dump of the starting data stays small)
#
# Writes DIR/general.log[.gz], DIR/slow.log[.gz] (only the workload's sessions: records of other
# connections that ran while the global logs were on are left out) and DIR/start.sql[.gz] (mysqldump of
# the starting data: restore it into two databases and replay the capture against them).
#
# The server must run on this machine (it writes the log files). Its logging settings are saved before
# and restored after. The global logs are switched on only while the run lasts, under
# flock /tmp/cutover-global.lock (set CUTOVER_GLOBAL_LOCK_HELD=1 when the caller already holds it).
set -euo pipefail
cd "$(dirname "$0")/.."

DB=cutover_sched_tpcc; OUT=corpora/tpcc; TIME=10; THREADS=4; SCALE=1; KEEP=12000; GZIP=yes; SNAPSHOT=""; COMPACT=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DB=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --time) TIME=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --scale) SCALE=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --no-gzip) GZIP=no; shift ;;
    --snapshot) SNAPSHOT=$2; shift 2 ;;
    --full-data) COMPACT=no; shift ;;
    *) echo "capture-tpcc: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$DB" in *[!A-Za-z0-9_]*|"") echo "capture-tpcc: --db must be a plain name (letters, digits, _)" >&2; exit 2 ;; esac

TPCC_DIR=${CUTOVER_TPCC_DIR:-../shared/peer-workloads/sysbench-tpcc}
[ -f "$TPCC_DIR/tpcc.lua" ] || { echo "capture-tpcc: $TPCC_DIR/tpcc.lua not found (set CUTOVER_TPCC_DIR)" >&2; exit 2; }
TPCC_DIR=$(cd "$TPCC_DIR" && pwd)

MYSQL_URL="${CUTOVER_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
read -r M_USER M_PASS M_HOST M_PORT < <(python3 - "$MYSQL_URL" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
print(u.username or "root", u.password or "-", u.hostname or "127.0.0.1", u.port or 3306)
PY
)
[ "$M_PASS" = "-" ] && M_PASS=""
command -v sysbench >/dev/null || { echo "capture-tpcc: installing sysbench" >&2; apt-get install -y -qq sysbench >/dev/null; }

sql() { MYSQL_PWD="$M_PASS" mysql --protocol=TCP -h "$M_HOST" -P "$M_PORT" -u "$M_USER" -N -B -e "$1"; }
TP=(--db-driver=mysql --mysql-host="$M_HOST" --mysql-port="$M_PORT" --mysql-user="$M_USER" --mysql-password="$M_PASS"
    --mysql-db="$DB" --tables=1 --scale="$SCALE")

WORK=$(mktemp -d /tmp/cutover-capture-tpcc.XXXXXX)
chmod 1777 "$WORK"
LOGS_ON=no
read -r OLD_GENERAL OLD_GENERAL_FILE OLD_SLOW OLD_SLOW_FILE OLD_LQT OLD_ADMIN < <(sql \
  "SELECT @@global.general_log, @@global.general_log_file, @@global.slow_query_log, @@global.slow_query_log_file, @@global.long_query_time, @@global.log_slow_admin_statements")
restore_logs() {
  [ "$LOGS_ON" = yes ] || return 0
  sql "SET GLOBAL general_log=0, slow_query_log=0;
       SET GLOBAL general_log_file='$OLD_GENERAL_FILE', slow_query_log_file='$OLD_SLOW_FILE',
                  long_query_time=$OLD_LQT, log_slow_admin_statements=$OLD_ADMIN;
       SET GLOBAL general_log=$OLD_GENERAL, slow_query_log=$OLD_SLOW" || true
  LOGS_ON=no
}
cleanup() {
  restore_logs
  sql "DROP DATABASE IF EXISTS \`$DB\`" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "capture-tpcc: preparing $SCALE warehouse(s) in $DB (tpcc.lua prepare)…" >&2
sql "DROP DATABASE IF EXISTS \`$DB\`; CREATE DATABASE \`$DB\`"
(cd "$TPCC_DIR" && sysbench ./tpcc.lua "${TP[@]}" --threads=1 prepare >"$WORK/prepare.txt")

if [ "$COMPACT" = yes ]; then
  # Row counts, keys and every column the transactions filter, join or sort on stay as prepared; only
  # the random filler text (street names, s_dist_xx, *_data) becomes short text (10% of items and
  # stock still say ORIGINAL, as TPC-C's brand check expects). This keeps the dump a few MB.
  echo "capture-tpcc: replacing the filler text with short text (--full-data keeps it)…" >&2
  sql "USE \`$DB\`;
       UPDATE stock1 SET s_dist_01=CONCAT('d01-',s_i_id%97), s_dist_02=CONCAT('d02-',s_i_id%97), s_dist_03=CONCAT('d03-',s_i_id%97),
         s_dist_04=CONCAT('d04-',s_i_id%97), s_dist_05=CONCAT('d05-',s_i_id%97), s_dist_06=CONCAT('d06-',s_i_id%97),
         s_dist_07=CONCAT('d07-',s_i_id%97), s_dist_08=CONCAT('d08-',s_i_id%97), s_dist_09=CONCAT('d09-',s_i_id%97),
         s_dist_10=CONCAT('d10-',s_i_id%97), s_data=IF(s_i_id%10=0,'stock ORIGINAL','stock');
       UPDATE item1 SET i_name=CONCAT('item',i_id), i_data=IF(i_id%10=0,'item ORIGINAL','item');
       UPDATE customer1 SET c_first=CONCAT('first',c_id), c_street_1='street 1', c_street_2='street 2', c_city='city',
         c_data=CONCAT('customer data ',c_id%10);
       UPDATE history1 SET h_data='history';
       UPDATE order_line1 SET ol_dist_info=CONCAT('dist-',ol_i_id%97);
       UPDATE warehouse1 SET w_street_1='street 1', w_street_2='street 2', w_city='city';
       UPDATE district1 SET d_street_1='street 1', d_street_2='street 2', d_city='city'"
fi

mkdir -p "$OUT"
SERVER=$(sql "SELECT VERSION()")
# The data the capture starts from: nothing runs between this dump and the run.
DUMP="$OUT/start.sql"
MYSQL_PWD="$M_PASS" mysqldump --protocol=TCP -h "$M_HOST" -P "$M_PORT" -u "$M_USER" --single-transaction \
  --skip-dump-date --skip-comments --no-create-db --extended-insert "$DB" >"$DUMP"
if [ "$GZIP" = yes ]; then gzip -9nf "$DUMP"; DUMP="$DUMP.gz"; fi
if [ -n "$SNAPSHOT" ]; then
  sql "DROP DATABASE IF EXISTS \`$SNAPSHOT\`; CREATE DATABASE \`$SNAPSHOT\`"
  if [ "$GZIP" = yes ]; then gzip -dc "$DUMP"; else cat "$DUMP"; fi |
    MYSQL_PWD="$M_PASS" mysql --protocol=TCP -h "$M_HOST" -P "$M_PORT" -u "$M_USER" "$SNAPSHOT"
fi

GEN="$WORK/general.log"; SLOW="$WORK/slow.log"
: >"$GEN"; : >"$SLOW"; chmod 666 "$GEN" "$SLOW"
if [ -z "${CUTOVER_GLOBAL_LOCK_HELD:-}" ]; then
  exec 9>/tmp/cutover-global.lock
  echo "capture-tpcc: waiting for /tmp/cutover-global.lock…" >&2
  flock 9
fi
LOGS_ON=yes
sql "SET GLOBAL general_log_file='$GEN', slow_query_log_file='$SLOW', long_query_time=0, log_slow_admin_statements=ON;
     SET GLOBAL general_log=1, slow_query_log=1"
echo "capture-tpcc: running $THREADS threads for ${TIME}s with the general and slow logs on…" >&2
(cd "$TPCC_DIR" && sysbench ./tpcc.lua "${TP[@]}" --threads="$THREADS" --time="$TIME" --report-interval=0 run >"$WORK/run.txt")
restore_logs
[ -z "${CUTOVER_GLOBAL_LOCK_HELD:-}" ] && flock -u 9
TPS=$(grep -E '^\s+transactions:' "$WORK/run.txt" | sed -E 's/.*\((.*) per sec.*/\1/')
QPS=$(grep -E '^\s+queries:' "$WORK/run.txt" | sed -E 's/.*\((.*) per sec.*/\1/')

# Keeps the header and the first N records of a log that belong to the workload's connections (the
# ones that connected to $DB; the slow log names their thread ids), records never cut in half.
filter() { # kind src dst
  python3 - "$1" "$2" "$3" "$KEEP" "$DB" "$GEN" <<'PY'
import re, sys
kind, src, dst, keep, db, general = sys.argv[1:7]
keep = None if keep == "all" else int(keep)
# Connection ids of the workload, from the general log's Connect lines ("… 12 Connect root@… on db …").
connect = re.compile(rb"^(?:\d{6} +[\d:]+\s+|\d{4}-\d\d-\d\dT\S+\s+|\t\t\s*)(\d+) Connect\t.* on (\S+)")
ours = set()
with open(general, "rb") as f:
    for line in f:
        m = connect.match(line)
        if m and m.group(2).decode(errors="replace") == db:
            ours.add(int(m.group(1)))
gen_record = re.compile(rb"^(?:\d{6} +[\d:]+\s+|\d{4}-\d\d-\d\dT\S+\s+|\t\t\s*)(\d+) ")
thread = re.compile(rb"^# Thread_id: (\d+)")
n = 0
def records(f):
    """(is_header, lines) per record."""
    head, cur, prev = [], None, b""
    for line in f:
        if kind == "general":
            starts = bool(gen_record.match(line))
        else:
            starts = line.startswith(b"# Time:") or (line.startswith(b"# User@Host:") and not prev.startswith(b"# Time:"))
        if starts:
            if cur is not None:
                yield False, cur
            cur = [line]
        elif cur is None:
            head.append(line)
        else:
            cur.append(line)
        prev = line
        if head and cur is not None and head is not None:
            yield True, head
            head = None
    if head:
        yield True, head
    if cur is not None:
        yield False, cur
last_time = None
pending = None
stamp = re.compile(rb"^(\d{6} +[\d:]+|\d{4}-\d\d-\d\dT\S+)\s")
with open(src, "rb") as f, open(dst, "wb") as out:
    for is_header, lines in records(f):
        if is_header:
            out.writelines(lines)
            continue
        if kind == "general":
            m = gen_record.match(lines[0])
            tid = int(m.group(1)) if m else None
            ts = stamp.match(lines[0])
            if ts:
                last_time = ts.group(1)
            elif tid in ours and pending is not None:
                # The record that carried this second's time was left out: give it this one.
                lines[0] = pending + b"\t" + lines[0][2:]
            if tid in ours:
                pending = None
            elif ts:
                pending = last_time
        else:
            tid = next((int(m.group(1)) for l in lines if (m := thread.match(l))), None)
            t = next((l for l in lines if l.startswith(b"# Time:")), None)
            if t is not None:
                last_time = t
        if tid not in ours:
            continue
        n += 1
        if keep is not None and n > keep:
            break
        # A slow-log record that shares its "# Time:" line with the previous one carries none: give
        # it back when that record was left out.
        if kind == "slow" and not lines[0].startswith(b"# Time:") and last_time is not None:
            out.write(last_time)
        out.writelines(lines)
print(n if keep is None else min(n, keep))
PY
}

for kind in general slow; do
  src="$WORK/$kind.log"; dst="$OUT/$kind.log"
  kept=$(filter "$kind" "$src" "$dst")
  if [ "$GZIP" = yes ]; then gzip -9nf "$dst"; dst="$dst.gz"; fi
  echo "capture-tpcc: $dst: $kept records of the workload's sessions, of $(wc -c <"$src") bytes captured ($SERVER, $THREADS threads, ${TIME}s, scale $SCALE, $TPS tps, $QPS qps)" >&2
done
echo "capture-tpcc: $DUMP: the starting data ($(wc -c <"$DUMP") bytes)" >&2
