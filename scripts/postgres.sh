#!/usr/bin/env bash
# A throwaway PostgreSQL 15 for the tests, on loopback, from a temporary directory.
#   scripts/postgres.sh start DIR    initdb + start on 127.0.0.1:<free port>; prints the
#                                    URL and writes it to DIR/url
#   scripts/postgres.sh restart DIR  pg_ctl restart (same port, same data)
#   scripts/postgres.sh stop DIR     stop it and remove its data
# DIR is the caller's (a build directory); the data lives in a directory of its own under
# /tmp owned by the user the server runs as: `postgres` when run as root (initdb refuses
# root), else the caller. Installs Debian's PostgreSQL 15 when it is missing.
set -euo pipefail
cmd="${1:-}"; dir="${2:-}"
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|restart|stop DIR" >&2; exit 2
fi
bin=/usr/lib/postgresql/15/bin
if [[ ! -x "$bin/pg_ctl" ]]; then
  "$(dirname "$0")/install-deps.sh" >&2
fi
# From / : the caller's directory may be out of the postgres user's reach, and initdb
# refuses to run where it cannot stat its working directory.
as_server() {
  if [[ "$(id -u)" -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}
mkdir -p "$dir"
data_file="$dir/pgdata"

case "$cmd" in
  start)
    # A server an interrupted run left behind (no stop) goes first.
    if [[ -f "$data_file" ]]; then "$0" stop "$dir"; fi
    data="$(mktemp -d /tmp/licensed-pg.XXXXXX)"
    [[ "$(id -u)" -eq 0 ]] && chown postgres:postgres "$data"
    echo "$data" >"$data_file"
    # trust on loopback only: a test server with no password, reachable from this host.
    as_server "$bin/initdb" -D "$data/data" -U postgres --auth=trust --encoding=UTF8 \
      --locale=C >"$data/initdb.log" 2>&1 || { cat "$data/initdb.log" >&2; exit 1; }
    for attempt in 1 2 3; do
      port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
      # Durability is not what these tests measure: no fsync keeps CREATE DATABASE quick.
      cat >>"$data/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$data'
max_connections = 400
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
      if as_server "$bin/pg_ctl" -D "$data/data" -l "$data/server.log" -w -t 60 start >/dev/null; then
        url="postgresql://postgres@127.0.0.1:$port/postgres"
        echo "$url" >"$dir/url"
        echo "$url"
        exit 0
      fi
      # The port was taken between the probe and the start: try another.
      sed -i '/^listen_addresses = /,$d' "$data/data/postgresql.conf"
    done
    cat "$data/server.log" >&2
    exit 1
    ;;
  restart)
    data="$(cat "$data_file")"
    as_server "$bin/pg_ctl" -D "$data/data" -l "$data/server.log" -w -t 60 -m fast restart >/dev/null
    ;;
  stop)
    [[ -f "$data_file" ]] || exit 0
    data="$(cat "$data_file")"
    if [[ -d "$data/data" ]]; then
      as_server "$bin/pg_ctl" -D "$data/data" -w -t 60 -m fast stop >/dev/null 2>&1 || true
    fi
    rm -rf "$data"
    rm -f "$data_file" "$dir/url"
    ;;
  *)
    echo "usage: $0 start|restart|stop DIR" >&2; exit 2
    ;;
esac
