#!/usr/bin/env bash
# A private MariaDB server for weft's tests, as build/postgres.sh is for PostgreSQL: Debian's
# server binaries, mariadb-install-db into a folder of its own, 127.0.0.1 on a free port plus a
# Unix socket in that folder, durability relaxed for speed (this data is thrown away), stopped by
# its PID with nothing left behind.
#
#   build/mariadb.sh start DIR      start a server whose files live in DIR (created, must not exist);
#                                   prints "port=N pid=P url=jdbc:mysql://..." on one line
#   build/mariadb.sh stop DIR       stop it and delete DIR
#   build/mariadb.sh run CMD ARGS   start one in a temporary folder, run CMD with WEFT_MYSQL_URL,
#                                   WEFT_MYSQL_PORT and WEFT_MYSQL_DIR set, stop it however CMD ends
#
# When the server binaries are missing it installs Debian's `mariadb-server`
# (build/debian-package.sh: apt-get as root, no service started by the package) and says so in
# one line, or stops with one line saying how to install them. The package's own service (port
# 3306) is disabled right after that install, so that it does not start with the machine either.
# As root, the server runs as the `mysql` user in a folder that user owns (mariadbd refuses root).
# The database is `weft`, the user `weft` with password `weft` (from 127.0.0.1 only).
set -euo pipefail

say() { echo "mariadb.sh: $*" >&2; }
. "$(dirname "${BASH_SOURCE[0]}")/debian-package.sh"

have_binaries() { have_command mariadb-install-db && [ -x /usr/sbin/mariadbd ] && have_command mariadb-admin; }

ensure_binaries() {
  have_binaries && return 0
  ensure_debian_package mariadb-server "MariaDB's server binaries (mariadb-install-db, mariadbd) are missing" have_binaries \
    >/dev/null || exit 3
  # Debian enables the package's own server on 3306; weft's tests never use it: leave it off.
  if command -v systemctl >/dev/null 2>&1 && systemctl disable --now mariadb.service >/dev/null 2>&1; then
    say "disabled the mariadb-server package's own service (weft starts private servers instead)"
  elif command -v update-rc.d >/dev/null 2>&1 && [ -e /etc/init.d/mariadb ]; then
    update-rc.d mariadb disable >/dev/null 2>&1 || true
  fi
}

# Runs a MariaDB tool as the user that owns the data: `mysql` when we are root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u mysql -- "$@"; else "$@"; fi
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local dir=$1
  ensure_binaries
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then say "$dir is not empty; give start a new folder"; exit 2; fi
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    id mysql >/dev/null 2>&1 || { say "no 'mysql' user to run the server as (root cannot); reinstall: apt-get install --reinstall mariadb-server"; exit 3; }
    chown mysql "$dir"
    chmod 700 "$dir"
  fi
  as_owner mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1 \
    || { say "mariadb-install-db failed: $(tail -n 3 "$dir/install.log" | tr '\n' ' ')"; exit 4; }
  local try port pid
  for try in 1 2 3 4 5 6 7 8; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    if port_taken "$port"; then continue; fi
    # Started in the background by its own binary (no mysqld_safe: nothing restarts it), so the
    # PID in the pid file is the server's and stopping it by that PID ends it.
    as_owner /usr/sbin/mariadbd --no-defaults --datadir="$dir/data" --socket="$dir/mysqld.sock" \
        --pid-file="$dir/mysqld.pid" --port="$port" --bind-address=127.0.0.1 --log-error="$dir/server.log" \
        --skip-log-bin --innodb-buffer-pool-size=32M --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=0 \
        --performance-schema=OFF --max-connections=200 </dev/null >/dev/null 2>&1 &
    local waited
    for waited in $(seq 1 300); do
      if mariadb-admin --no-defaults -S "$dir/mysqld.sock" -u root ping >/dev/null 2>&1; then break; fi
      if ! kill -0 $! 2>/dev/null; then break; fi
      sleep 0.1
    done
    if [ -f "$dir/mysqld.pid" ] && mariadb-admin --no-defaults -S "$dir/mysqld.sock" -u root ping >/dev/null 2>&1; then
      pid=$(head -n 1 "$dir/mysqld.pid")
      mariadb --no-defaults -S "$dir/mysqld.sock" -u root -e "CREATE DATABASE weft; CREATE USER 'weft'@'127.0.0.1' IDENTIFIED BY 'weft'; GRANT ALL ON weft.* TO 'weft'@'127.0.0.1';" \
        || { say "could not create the weft database and user"; stop "$dir"; exit 4; }
      echo "$port" > "$dir/port"
      echo "port=$port pid=$pid url=jdbc:mysql://127.0.0.1:$port/weft?user=weft&password=weft"
      return 0
    fi
    # Not up (most likely the port was taken meanwhile): end what started, try another port.
    if [ -f "$dir/mysqld.pid" ]; then kill "$(head -n 1 "$dir/mysqld.pid")" 2>/dev/null || true; fi
    wait $! 2>/dev/null || true
  done
  say "the server did not start on a free port (log: $dir/server.log): $(tail -n 3 "$dir/server.log" 2>/dev/null | tr '\n' ' ')"
  exit 4
}

stop() {
  local dir=$1 pid
  [ -d "$dir" ] || return 0
  if [ -f "$dir/mysqld.pid" ]; then
    pid=$(head -n 1 "$dir/mysqld.pid")
    if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; fi
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -rf "$dir"
}

RUN_DIR=
run() {
  local line status=0
  RUN_DIR=$(mktemp -d /tmp/weft-my.XXXXXX)
  trap 'stop "$RUN_DIR"' EXIT
  trap 'exit 130' INT TERM
  rmdir "$RUN_DIR"
  line=$(start "$RUN_DIR")
  export WEFT_MYSQL_DIR=$RUN_DIR
  WEFT_MYSQL_PORT=$(sed -n 's/^port=\([0-9]*\) .*/\1/p' <<<"$line"); export WEFT_MYSQL_PORT
  WEFT_MYSQL_URL=$(sed -n 's/.* url=\(.*\)$/\1/p' <<<"$line"); export WEFT_MYSQL_URL
  say "MariaDB $(/usr/sbin/mariadbd --version | sed -n 's/.*Ver \([^ ]*\).*/\1/p') on 127.0.0.1:$WEFT_MYSQL_PORT (pid $(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' <<<"$line"))"
  "$@" || status=$?
  return "$status"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || { say "usage: $0 start DIR"; exit 2; }; start "$2" ;;
  stop)  [ $# -eq 2 ] || { say "usage: $0 stop DIR"; exit 2; }; stop "$2" ;;
  run)   shift; [ $# -ge 1 ] || { say "usage: $0 run CMD [ARGS...]"; exit 2; }; run "$@" ;;
  *) say "usage: $0 start DIR | stop DIR | run CMD [ARGS...]"; exit 2 ;;
esac
