#!/usr/bin/env bash
# A throwaway Redis on loopback for trying several licensed instances by hand (the
# tests start their own from C++, tests/support/redis_server.h).
#   scripts/redis.sh start DIR   starts redis-server on a free 127.0.0.1 port, files in
#                                DIR, no persistence; prints its URL (also in DIR/redis.url)
#   scripts/redis.sh stop DIR    stops it
set -euo pipefail
cmd="${1:-}"; dir="${2:-}"
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
case "$cmd" in
  start)
    command -v redis-server >/dev/null || "$(dirname "$0")/install-deps.sh"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [[ -f "$dir/redis.pid" ]] && kill -0 "$(cat "$dir/redis.pid")" 2>/dev/null; then
      echo "redis already runs from $dir: $(cat "$dir/redis.url")" >&2
      exit 1
    fi
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
    for _ in $(seq 100); do
      [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] && break
      sleep 0.1
    done
    [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] || {
      echo "redis did not start; see $dir/redis.log" >&2
      exit 1
    }
    echo "redis://127.0.0.1:$port" | tee "$dir/redis.url"
    ;;
  stop)
    pidfile="$dir/redis.pid"
    [[ -f "$pidfile" ]] || { echo "no redis.pid in $dir" >&2; exit 1; }
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    rm -f "$pidfile"
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
