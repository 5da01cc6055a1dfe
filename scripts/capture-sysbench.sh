#!/usr/bin/env bash
# Captures real general and slow query logs from the local MariaDB while sysbench oltp_read_write runs,
# once with server-side prepared statements (--db-ps-mode=auto) and once without (disable).
#
#   scripts/capture-sysbench.sh                      # refresh corpora/sysbench/ (trimmed, gzip)
#   scripts/capture-sysbench.sh --out bench-data --time 60 --keep all --no-gzip --only ps
#                                                    # a big uncompressed capture for benchmarks
#
# Options:
#   --out DIR        where the logs go (default corpora/sysbench)
#   --time S         seconds of sysbench per run (default 5)
#   --threads N      sysbench threads = concurrent sessions (default 4)
#   --rate TPS       sysbench's --rate: transactions arrive at this mean rate and the sessions idle
#                    between them, as a production server's clients do (default 0: as fast as it can)
#   --tables N, --table-size N   sysbench data set (default 4 x 10000)
#   --keep N|all     keep the first N records of each log (default 3000)
#   --no-gzip        write plain .log files
#   --only ps|text   capture only one of the two runs
#   --snapshot DB    before each run, copy the sysbench tables into database DB (DB_ps / DB_text when
#                    both runs are made), kept after the script ends: the data the capture starts
#                    from, for replaying the capture against identical copies
#
# The server must run on this machine (it writes the log files). Its logging settings are saved before
# and restored after. The sysbench tables live in database cutover_sbtest, which is dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=corpora/sysbench; TIME=5; THREADS=4; TABLES=4; TABLE_SIZE=10000; KEEP=3000; GZIP=yes; ONLY=""; RATE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --time) TIME=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --tables) TABLES=$2; shift 2 ;;
    --table-size) TABLE_SIZE=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --no-gzip) GZIP=no; shift ;;
    --only) ONLY=$2; shift 2 ;;
    --snapshot) SNAPSHOT=$2; shift 2 ;;
    *) echo "capture-sysbench: unknown option $1" >&2; exit 2 ;;
  esac
done

MYSQL_URL="${CUTOVER_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
read -r M_USER M_PASS M_HOST M_PORT < <(python3 - "$MYSQL_URL" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
print(u.username or "root", u.password or "-", u.hostname or "127.0.0.1", u.port or 3306)
PY
)
[ "$M_PASS" = "-" ] && M_PASS=""
command -v sysbench >/dev/null || { echo "capture-sysbench: installing sysbench" >&2; apt-get install -y -qq sysbench >/dev/null; }

sql() { MYSQL_PWD="$M_PASS" mysql --protocol=TCP -h "$M_HOST" -P "$M_PORT" -u "$M_USER" -N -B -e "$1"; }
SB=(--db-driver=mysql --mysql-host="$M_HOST" --mysql-port="$M_PORT" --mysql-user="$M_USER" --mysql-password="$M_PASS"
    --mysql-db=cutover_sbtest --tables="$TABLES" --table-size="$TABLE_SIZE")

# Save the server's logging settings and restore them whatever happens.
read -r OLD_GENERAL OLD_GENERAL_FILE OLD_SLOW OLD_SLOW_FILE OLD_LQT OLD_ADMIN < <(sql \
  "SELECT @@global.general_log, @@global.general_log_file, @@global.slow_query_log, @@global.slow_query_log_file, @@global.long_query_time, @@global.log_slow_admin_statements")
restore() {
  sql "SET GLOBAL general_log=0, slow_query_log=0;
       SET GLOBAL general_log_file='$OLD_GENERAL_FILE', slow_query_log_file='$OLD_SLOW_FILE',
                  long_query_time=$OLD_LQT, log_slow_admin_statements=$OLD_ADMIN;
       SET GLOBAL general_log=$OLD_GENERAL, slow_query_log=$OLD_SLOW;
       DROP DATABASE IF EXISTS cutover_sbtest" || true
  rm -rf "$WORK"
}
WORK=$(mktemp -d /tmp/cutover-capture.XXXXXX)
chmod 1777 "$WORK"
trap restore EXIT

# The script's own database: one left by an interrupted run would make prepare fail on its tables.
sql "DROP DATABASE IF EXISTS cutover_sbtest; CREATE DATABASE cutover_sbtest"
sysbench oltp_read_write "${SB[@]}" prepare >"$WORK/prepare.txt" || { echo "capture-sysbench: sysbench prepare failed:" >&2; cat "$WORK/prepare.txt" >&2; exit 1; }

mkdir -p "$OUT"
SERVER=$(sql "SELECT VERSION()")

# Keeps the header and the first N records of a log (records never cut in half), of the sessions
# sysbench opened on cutover_sbtest only: other clients of the server (a machine shared with other
# work) are left out, so the capture holds exactly the workload.
trim() { # type in out
  python3 - "$1" "$2" "$3" "$KEEP" <<'PY'
import re, sys
kind, src, dst, keep = sys.argv[1:5]
keep = None if keep == "all" else int(keep)
gen_record = re.compile(rb"^(\t\t|\d{6} [ \d:]{8}|\d{4}-\d\d-\d\dT\S+)\s*(\d+) (\w+)")
gen_time = re.compile(rb"^(\d{6} [ \d:]{8}|\d{4}-\d\d-\d\dT\S+)")
n = 0
with open(src, "rb") as f, open(dst, "wb") as out:
    if kind == "general":
        ours, keeping, pending_time = set(), True, None
        for line in f:
            m = gen_record.match(line)
            if m:
                sid, cmd = m.group(2), m.group(3)
                if cmd == b"Connect" and b" on cutover_sbtest" in line:
                    ours.add(sid)
                keeping = sid in ours
                t = gen_time.match(line)
                if not keeping:
                    if t:
                        pending_time = t.group(1)
                    continue
                n += 1
                if keep is not None and n > keep:
                    break
                if pending_time is not None and not t:
                    # The dropped record carried the time for the lines after it.
                    line = pending_time + b"\t" + line[2:] if line.startswith(b"\t\t") else line
                pending_time = None
                out.write(line)
            elif keeping:
                out.write(line)
    else:
        # An entry starts at "# Time:" or at "# User@Host:" not preceded by its "# Time:".
        header, entry, time_line, prev = True, [], None, b""
        def flush():
            global n, time_line
            if not entry:
                return True
            text = b"".join(entry)
            if re.search(rb"Schema: cutover_sbtest\b", text) is None:
                # Dropped: its "# Time:" line still dates the entries after it.
                if entry[0].startswith(b"# Time:"):
                    time_line = entry[0]
                return True
            n += 1
            if keep is not None and n > keep:
                return False
            if time_line is not None and not entry[0].startswith(b"# Time:"):
                out.write(time_line)
            time_line = None
            out.write(text)
            return True
        for line in f:
            starts = line.startswith(b"# Time:") or (line.startswith(b"# User@Host:") and not prev.startswith(b"# Time:"))
            if starts:
                header = False
                if not flush():
                    entry = []
                    break
                entry = [line]
            elif header:
                out.write(line)
            else:
                entry.append(line)
            prev = line
        else:
            flush()
print(min(n, keep) if keep is not None else n)
PY
}

# Copies the sysbench tables, as they are now, into database $1.
snapshot() {
  sql "DROP DATABASE IF EXISTS \`$1\`; CREATE DATABASE \`$1\`"
  for t in $(sql "SELECT table_name FROM information_schema.tables WHERE table_schema='cutover_sbtest'"); do
    sql "CREATE TABLE \`$1\`.$t LIKE cutover_sbtest.$t; INSERT INTO \`$1\`.$t SELECT * FROM cutover_sbtest.$t"
  done
}

run() { # label ps-mode
  local label=$1 mode=$2
  if [ -n "${SNAPSHOT:-}" ]; then
    if [ -n "$ONLY" ]; then snapshot "$SNAPSHOT"; else snapshot "${SNAPSHOT}_$label"; fi
  fi
  local gen="$WORK/general-$label.log" slow="$WORK/slow-$label.log"
  : >"$gen"; : >"$slow"; chmod 666 "$gen" "$slow"
  sql "SET GLOBAL general_log_file='$gen', slow_query_log_file='$slow', long_query_time=0, log_slow_admin_statements=ON;
       SET GLOBAL general_log=1, slow_query_log=1"
  sysbench oltp_read_write "${SB[@]}" --threads="$THREADS" --time="$TIME" --rate="$RATE" --db-ps-mode="$mode" --report-interval=0 run >"$WORK/sysbench-$label.txt"
  sql "SET GLOBAL general_log=0, slow_query_log=0"
  local qps; qps=$(grep -E '^\s+queries:' "$WORK/sysbench-$label.txt" | sed -E 's/.*\((.*) per sec.*/\1/')
  for kind in general slow; do
    local src="$WORK/$kind-$label.log" dst="$OUT/$kind-$label.log"
    local kept; kept=$(trim "$kind" "$src" "$dst")
    if [ "$GZIP" = yes ]; then gzip -9nf "$dst"; dst="$dst.gz"; fi
    echo "capture-sysbench: $dst: $kept records of $(wc -c <"$src") bytes captured ($SERVER, $THREADS threads, ${TIME}s, db-ps-mode=$mode, $qps qps)" >&2
  done
}

[ "$ONLY" = text ] || run ps auto
[ "$ONLY" = ps ] || run text disable
