#!/usr/bin/env bash
# Makes sure the MariaDB and PostgreSQL servers the tests use are installed, running and reachable at
# CUTOVER_TEST_MYSQL_URL / CUTOVER_TEST_PG_URL (defaults below).
#
# - A server that is missing is installed with apt-get (Debian) and started.
# - A server that is installed but stopped is started.
# - Only a server this script has just installed is configured: root over TCP with an empty password for
#   MariaDB (a fresh Debian MariaDB lets root in only over its Unix socket), trust authentication on
#   127.0.0.1 for PostgreSQL (a fresh cluster asks for peer or password authentication), and the `test`
#   databases. A server that was already set up is never changed: if the URL does not work with it, the
#   script says what to do and fails.
set -euo pipefail

MYSQL_URL="${CUTOVER_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
PG_URL="${CUTOVER_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"

say() { echo "setup-servers: $*" >&2; }
die() { say "$*"; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and no sudo: install and start MariaDB and PostgreSQL yourself"
  SUDO="sudo"
fi

apt_install() {
  say "installing $* with apt-get"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# --- URL pieces -------------------------------------------------------------------------------------
command -v python3 >/dev/null || apt_install python3 # a minimal Debian has none
command -v sysbench >/dev/null || apt_install sysbench # the replay tests capture a live sysbench run
command -v pgloader >/dev/null || apt_install pgloader # tests/pgloader.rs migrates sakila with it, as teams do
command -v chromium >/dev/null || apt_install chromium # tests/report_cli.rs renders the HTML report in headless Chromium
# mysql://user[:pass]@host:port/db
url_part() { # url field
  python3 - "$1" "$2" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
print({"user": u.username or "", "password": u.password or "", "host": u.hostname or "127.0.0.1",
       "port": str(u.port or ""), "db": u.path.lstrip("/")}[sys.argv[2]])
PY
}

# --- MariaDB ----------------------------------------------------------------------------------------
M_USER=$(url_part "$MYSQL_URL" user); M_PASS=$(url_part "$MYSQL_URL" password)
M_HOST=$(url_part "$MYSQL_URL" host); M_PORT=$(url_part "$MYSQL_URL" port); M_DB=$(url_part "$MYSQL_URL" db)
M_PORT=${M_PORT:-3306}

mysql_ok() {
  MYSQL_PWD="$M_PASS" mysql --protocol=TCP -h "$M_HOST" -P "$M_PORT" -u "$M_USER" -e "SELECT 1" "$M_DB" >/dev/null 2>&1
}

command -v mysql >/dev/null || apt_install mariadb-client
fresh_mariadb=no
if ! mysql_ok; then
  if ! command -v mariadbd >/dev/null && ! [ -x /usr/sbin/mariadbd ] && ! [ -x /usr/sbin/mysqld ]; then
    apt_install mariadb-server mariadb-client
    fresh_mariadb=yes
  fi
  if ! pgrep -x mariadbd >/dev/null && ! pgrep -x mysqld >/dev/null; then
    say "starting MariaDB"
    $SUDO mkdir -p /run/mysqld && $SUDO chown mysql:mysql /run/mysqld 2>/dev/null || true
    $SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql ||
      $SUDO service mariadb start
    for _ in $(seq 1 60); do
      $SUDO mysqladmin ping >/dev/null 2>&1 && break
      sleep 0.5
    done
  fi
  if ! mysql_ok && [ "$fresh_mariadb" = yes ] && [ "$M_HOST" = 127.0.0.1 ] && [ "$M_USER" = root ] && [ -z "$M_PASS" ]; then
    say "letting root in over TCP with an empty password (fresh server only), creating database $M_DB"
    $SUDO mysql -e "ALTER USER root@localhost IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket; CREATE DATABASE IF NOT EXISTS \`$M_DB\`; FLUSH PRIVILEGES;"
  fi
  mysql_ok || die "cannot connect to MariaDB at $MYSQL_URL. The server was already set up, so it was left alone:
  point CUTOVER_TEST_MYSQL_URL at an account that may create databases, e.g.
  sudo mysql -e \"CREATE USER cutover@'127.0.0.1' IDENTIFIED BY 'cutover'; GRANT ALL ON *.* TO cutover@'127.0.0.1'; CREATE DATABASE IF NOT EXISTS test\"
  export CUTOVER_TEST_MYSQL_URL=mysql://cutover:cutover@127.0.0.1:3306/test"
fi
say "MariaDB ok at $M_HOST:$M_PORT"

# --- PostgreSQL -------------------------------------------------------------------------------------
P_USER=$(url_part "$PG_URL" user); P_PASS=$(url_part "$PG_URL" password)
P_HOST=$(url_part "$PG_URL" host); P_PORT=$(url_part "$PG_URL" port); P_DB=$(url_part "$PG_URL" db)
P_PORT=${P_PORT:-5432}

pg_ok() {
  PGPASSWORD="$P_PASS" psql -h "$P_HOST" -p "$P_PORT" -U "$P_USER" -d "$P_DB" -c "SELECT 1" >/dev/null 2>&1
}

command -v psql >/dev/null || apt_install postgresql-client
fresh_pg=no
if ! pg_ok; then
  if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt_install postgresql postgresql-client
    fresh_pg=yes
  fi
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
  [ -n "$version" ] || die "PostgreSQL is installed but has no cluster under /etc/postgresql"
  if ! $SUDO pg_ctlcluster "$version" main status >/dev/null 2>&1; then
    say "starting PostgreSQL $version"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start
  fi
  if ! pg_ok && [ "$fresh_pg" = yes ] && [ "$P_HOST" = 127.0.0.1 ] && [ "$P_USER" = postgres ] && [ -z "$P_PASS" ]; then
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    say "trusting $P_USER on 127.0.0.1 in $hba (fresh cluster only), creating database $P_DB"
    $SUDO sed -i "1i host all $P_USER 127.0.0.1/32 trust" "$hba"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    if ! $SUDO runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname = '$P_DB'" | grep -q 1; then
      $SUDO runuser -u postgres -- psql -qc "CREATE DATABASE \"$P_DB\""
    fi
  fi
  pg_ok || die "cannot connect to PostgreSQL at $PG_URL. The server was already set up, so it was left alone:
  point CUTOVER_TEST_PG_URL at a role that may create tables in an existing database, e.g.
  export CUTOVER_TEST_PG_URL=postgres://me:secret@127.0.0.1:5432/test"
fi
say "PostgreSQL ok at $P_HOST:$P_PORT"
