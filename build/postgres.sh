#!/usr/bin/env bash
# A private PostgreSQL server for weft's tests and lab: Debian's server binaries, initdb into a
# folder of its own, 127.0.0.1 on a free port plus a Unix socket in that folder, durability
# relaxed for speed (this data is thrown away), stopped by its PID with nothing left behind.
#
#   build/postgres.sh start DIR      start a server whose files live in DIR (created, must not exist);
#                                    prints "port=N pid=P url=jdbc:postgresql://..." on one line
#   build/postgres.sh stop DIR       stop it and delete DIR
#   build/postgres.sh run CMD ARGS   start one in a temporary folder, run CMD with WEFT_PG_URL,
#                                    WEFT_PG_PORT and WEFT_PG_DIR set, stop it however CMD ends
#
# When the server binaries are missing it installs Debian's `postgresql` (build/debian-package.sh:
# apt-get as root, no cluster of the package's own started) and says so in one line, or stops with
# one line saying how to install them. initdb refuses to run as
# root: as root, the server runs as the `postgres` user in a folder that user owns.
set -euo pipefail

say() { echo "postgres.sh: $*" >&2; }
. "$(dirname "${BASH_SOURCE[0]}")/debian-package.sh"

pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  return 1
}

ensure_binaries() {
  ensure_debian_package postgresql "PostgreSQL's server binaries are missing under /usr/lib/postgresql/*/bin" pg_bin \
    >/dev/null || exit 3
}

# Runs a PostgreSQL tool as the user that owns the data: `postgres` when we are root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local dir=$1 bin
  ensure_binaries
  bin=$(pg_bin)
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then say "$dir is not empty; give start a new folder"; exit 2; fi
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { say "no 'postgres' user to run the server as (root cannot); reinstall: apt-get install --reinstall postgresql-common"; exit 3; }
    chown postgres "$dir"
    chmod 700 "$dir"
    # The user must be able to reach DIR; temporary folders under /tmp are.
  fi
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U weft --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { say "initdb failed: $(tail -n 3 "$dir/initdb.log" | tr '\n' ' ')"; exit 4; }
  local try port pid
  for try in 1 2 3 4 5 6 7 8; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    if port_taken "$port"; then continue; fi
    if as_owner "$bin/pg_ctl" -w -t 30 -D "$dir/data" -l "$dir/server.log" \
         -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB" \
         start >/dev/null 2>&1; then
      pid=$(head -n 1 "$dir/data/postmaster.pid")
      echo "$port" > "$dir/port"
      echo "port=$port pid=$pid url=jdbc:postgresql://127.0.0.1:$port/postgres?user=weft"
      return 0
    fi
  done
  say "the server did not start on a free port (log: $dir/server.log): $(tail -n 3 "$dir/server.log" 2>/dev/null | tr '\n' ' ')"
  exit 4
}

stop() {
  local dir=$1 bin pid
  [ -d "$dir" ] || return 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    pid=$(head -n 1 "$dir/data/postmaster.pid")
    bin=$(pg_bin || true)
    if [ -n "$bin" ]; then as_owner "$bin/pg_ctl" -w -t 20 -D "$dir/data" -m fast stop >/dev/null 2>&1 || true; fi
    # pg_ctl ends it by this PID too; make sure, then wait for it to be gone.
    if kill -0 "$pid" 2>/dev/null; then kill -QUIT "$pid" 2>/dev/null || true; fi
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$dir"
}

RUN_DIR=
run() {
  local line status=0
  RUN_DIR=$(mktemp -d /tmp/weft-pg.XXXXXX)
  trap 'stop "$RUN_DIR"' EXIT
  trap 'exit 130' INT TERM
  line=$(start "$RUN_DIR")
  export WEFT_PG_DIR=$RUN_DIR
  WEFT_PG_PORT=$(sed -n 's/^port=\([0-9]*\) .*/\1/p' <<<"$line"); export WEFT_PG_PORT
  WEFT_PG_URL=$(sed -n 's/.* url=\(.*\)$/\1/p' <<<"$line"); export WEFT_PG_URL
  say "PostgreSQL $(basename "$(dirname "$(pg_bin)")") on 127.0.0.1:$WEFT_PG_PORT (pid $(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' <<<"$line"))"
  "$@" || status=$?
  return "$status"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || { say "usage: $0 start DIR"; exit 2; }; start "$2" ;;
  stop)  [ $# -eq 2 ] || { say "usage: $0 stop DIR"; exit 2; }; stop "$2" ;;
  run)   shift; [ $# -ge 1 ] || { say "usage: $0 run CMD [ARGS...]"; exit 2; }; run "$@" ;;
  *) say "usage: $0 start DIR | stop DIR | run CMD [ARGS...]"; exit 2 ;;
esac
