#!/usr/bin/env bash
# Restarts the licensed instances of a deployment one at a time without losing a request
# (docs/deploy.md, "Rolling restart"): an instance is restarted only while every other
# one answers /readyz 200, and the next waits until the restarted one answers /readyz 200
# again, then for --settle seconds so the load balancer sends it traffic again.
#
# Usage: scripts/rolling-restart.sh [--timeout SECONDS] [--settle SECONDS] \
#          READYZ_URL RESTART_COMMAND [READYZ_URL RESTART_COMMAND]...
#
#   READYZ_URL       the instance's /readyz on its --admin-listen address,
#                    e.g. http://10.0.0.11:9464/readyz
#   RESTART_COMMAND  run with bash -c; it must stop the instance with SIGTERM (which
#                    drains it) and start it again, e.g. 'systemctl restart licensed'
#                    or 'ssh app1 systemctl restart licensed'
#   --timeout        how long a restarted instance may take to be ready (default 60)
#   --settle         seconds to wait after it is ready, at least the balancer's
#                    fail_timeout (nginx: 10 s by default), so the balancer uses it
#                    again before the next instance goes (default 10)
#
# Exit status: 0 every instance restarted and ready; 1 one did not become ready, or
# another was not ready before a restart (nothing more is restarted then); 2 usage.
set -euo pipefail

timeout=60
settle=10
usage() {
  sed -n '7,17p' "$0" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout="${2:?}"; shift 2 ;;
    --settle) settle="${2:?}"; shift 2 ;;
    --help|-h) usage ;;
    --*) echo "rolling-restart: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || usage
command -v curl >/dev/null || { echo "rolling-restart: needs curl" >&2; exit 2; }

urls=()
commands=()
while [ $# -gt 0 ]; do
  urls+=("$1")
  commands+=("$2")
  shift 2
done

ready() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" || true)" = 200 ]
}

log() { echo "rolling-restart: $*" >&2; }

for i in "${!urls[@]}"; do
  # Never take an instance away while another is not serving: the deployment would be
  # left with fewer than it can lose.
  for j in "${!urls[@]}"; do
    if [ "$j" != "$i" ] && ! ready "${urls[$j]}"; then
      log "${urls[$j]} is not ready: not restarting ${urls[$i]}"
      exit 1
    fi
  done
  log "restarting ${urls[$i]}"
  bash -c "${commands[$i]}"
  deadline=$((SECONDS + timeout))
  until ready "${urls[$i]}"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "${urls[$i]} not ready after ${timeout}s: stopping here, the others are untouched"
      exit 1
    fi
    sleep 0.2
  done
  log "${urls[$i]} ready"
  # The last one needs no settling: nothing is restarted after it.
  if [ "$i" -lt $((${#urls[@]} - 1)) ]; then sleep "$settle"; fi
done
log "all ${#urls[@]} instance(s) restarted and ready"
