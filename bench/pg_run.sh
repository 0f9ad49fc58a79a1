#!/usr/bin/env bash
# One licensed-bench run against `licensed` on a fresh database of a running PostgreSQL,
# for the PostgreSQL section of docs/benchmarks.md; prints one JSON line: the generator's
# report plus the CPU seconds licensed, PostgreSQL (postmaster and its backends) and the
# generator used, the cores everything else kept busy ("others") and those stolen.
#
#   bench/pg_run.sh PG_DIR LICENSED LABEL RUN [serve args...]
#
# PG_DIR: a directory `scripts/postgres.sh start PG_DIR` made (its url and pgdata files).
# SCENARIO (environment): licensed-bench's scenario, activate-new by default.
# Durability is the server's business: scripts/postgres.sh turns fsync and
# synchronous_commit off for the tests; a measurement turns them on first (see
# docs/benchmarks.md).
set -euo pipefail
pg_dir="$1" licensed="$2" label="$3" run="$4"; shift 4
repo="$(cd "$(dirname "$0")/.." && pwd)"
bench="$repo/build/release/bench/licensed-bench"
psql=/usr/lib/postgresql/15/bin/psql
url="$(cat "$pg_dir/url")"
# A database name is an identifier: anything else in the label becomes "_".
db="bench_$(printf '%s_%s' "$label" "$run" | tr -c 'A-Za-z0-9_' _)_$$"
store="${url%/postgres}/$db"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$psql" "$url" -qc "CREATE DATABASE $db"
secret="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
"$licensed" serve --create --listen 127.0.0.1:0 --store "$store" --signing-key "bench=$secret" \
  --rate-limit-key off --rate-limit-ip off --admin-listen off "$@" >"$dir/server.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 200); do
  port="$(sed -nE 's/.*listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$dir/server.log" | head -n1)"
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { cat "$dir/server.log" >&2; exit 1; }
postmaster="$(head -n1 "$(cat "$pg_dir/pgdata")/data/postmaster.pid")"
# Clock ticks: the postmaster with its reaped children (backends that ended), plus the
# live backends; licensed with its threads; the machine (user, nice, system); steal.
pg_ticks() {
  local t c
  t=$(awk '{print $14+$15+$16+$17}' "/proc/$postmaster/stat")
  for c in $(pgrep -P "$postmaster"); do
    [ -r "/proc/$c/stat" ] && t=$((t + $(awk '{print $14+$15}' "/proc/$c/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
licensed_ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; }
machine_ticks() { awk '/^cpu /{print $2+$3+$4}' /proc/stat; }
steal_ticks() { awk '/^cpu /{print $9}' /proc/stat; }
load="$(cut -d' ' -f1 /proc/loadavg)"
l0=$(licensed_ticks) p0=$(pg_ticks) m0=$(machine_ticks) s0=$(steal_ticks) t0=$(date +%s.%N)
report="$(LICENSED_BENCH_SECRET="$secret" /usr/bin/time -o "$dir/client-time" -f "%U %S" \
  "$bench" --port "$port" --store "$store" -s "${SCENARIO:-activate-new}" -c 64 -d 10s \
  --warmup 1s --json -q)"
t1=$(date +%s.%N) l1=$(licensed_ticks) p1=$(pg_ticks) m1=$(machine_ticks) s1=$(steal_ticks)
kill -TERM "$pid"
wait "$pid" || true
"$psql" "$url" -qc "DROP DATABASE $db" || true
python3 - "$report" "$label" "$run" "$load" $((l1 - l0)) $((p1 - p0)) $((m1 - m0)) $((s1 - s0)) \
  "$t0" "$t1" "$(awk '{print $1+$2}' "$dir/client-time")" "$*" "$(getconf CLK_TCK)" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); a = sys.argv
tick = 1.0 / float(a[13])
wall = float(a[10]) - float(a[9])
lic, pg, busy, steal = (int(x) * tick for x in a[5:9])
client = float(a[11])
requests = r["answered"] + r.get("warmupAnswered", 0)
r.update(label=a[2], run=int(a[3]), store="postgresql", serverArgs=a[12], loadBefore=float(a[4]),
         serverCpuSeconds=lic, postgresCpuSeconds=pg, clientCpuSeconds=client,
         otherCores=max(0.0, (busy - lic - pg - client) / wall), stolenCores=steal / wall,
         serverCpuUsPerRequest=lic / requests * 1e6, postgresCpuUsPerRequest=pg / requests * 1e6,
         clientCpuUsPerRequest=client / requests * 1e6)
print(json.dumps(r))
PY
