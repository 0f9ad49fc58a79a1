#!/usr/bin/env bash
# CTest smoke test (label bench): licensed-bench runs for about a second against a real
# server on a fresh SQLite store and must report successful requests, no refusal it did
# not expect and no transport error, and every sampled answer's signature (every 4th
# answer, plain or in a tree) must verify against the server's published keys. Nothing
# about speed is asserted.
# Usage: smoke_test.sh LICENSED_BINARY LICENSED_BENCH_BINARY
set -euo pipefail
licensed="$1"
bench="$2"
dir="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

secret="smoke-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
"$licensed" serve --create --listen 127.0.0.1:0 --store "sqlite:$dir/licensed.db" \
  --signing-key "bench=$secret" --rate-limit-key off --rate-limit-ip off \
  --admin-listen off >"$dir/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 200); do
  port="$(sed -nE 's/.*listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$dir/server.log" | head -n1)"
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server.log"; echo "server exited"; exit 1; }
  sleep 0.05
done
[ -n "$port" ] || { cat "$dir/server.log"; echo "server never became ready"; exit 1; }

# mix touches every scenario's request kinds: activate (new and repeat), heartbeat, status.
LICENSED_BENCH_SECRET="$secret" "$bench" --port "$port" --store "sqlite:$dir/licensed.db" \
  --scenario mix --connections 8 --duration 1s --verify-every 4 --json --quiet >"$dir/report.json"
cat "$dir/report.json"
python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
problems = []
if r["ok"] <= 0: problems.append("no successful request")
if r["transportErrors"] != 0: problems.append(f"transport errors: {r['transport']}")
if r["unexpectedErrors"] != 0: problems.append(f"unexpected refusals: {r['errors']}")
sig = r["signatures"]
if sig["every"] != 4 or sig["checked"] <= 0: problems.append(f"no answer's signature was checked: {sig}")
if sig["failed"] != 0 or sig["verified"] != sig["checked"]:
    problems.append(f"sampled answers whose signature does not verify: {sig}")
if problems:
    sys.exit("bench smoke test failed: " + "; ".join(problems))
print(f"bench smoke test passed: {r['ok']} successful requests, no transport errors, "
      f"{sig['verified']} sampled signatures verified ({sig['verifiedInTrees']} in trees)")
PY
