#!/usr/bin/env bash
# Counts what one activate passes through in the server: the project's functions that
# ran for it and the source files they are in, from the request's arrival to its answer
# (callgrind, instrumentation on only around the request). A measure of how long the
# request path is, for the architecture notes; not a speed number.
# Usage: bench/path/request_path.sh <build dir> [--list]
# Needs valgrind; takes half a minute (the server runs under callgrind).
set -euo pipefail
build="$(cd "${1:?usage: request_path.sh <build dir> [--list]}" && pwd)"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
bin="$build/licensed"
store="sqlite:$work/path.db"
"$bin" init --store "$store" >/dev/null
"$bin" admin --store "$store" product create --slug p --name P >/dev/null
key="$("$bin" admin --store "$store" license create --product p --max 3 --json |
  sed -E 's/.*"licenseKey":"([^"]+)".*/\1/')"
port=$((20000 + RANDOM % 20000))
LICENSED_SIGNING_KEYS="k=0123456789abcdef0123456789abcdef" valgrind --tool=callgrind \
  --instr-atstart=no --callgrind-out-file="$work/cg.out" \
  "$bin" serve --listen "127.0.0.1:$port" --store "$store" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do
  curl -fs "http://127.0.0.1:$port/api/v1/license/public-keys" >/dev/null 2>&1 && break
  sleep 0.2
done
run_activate() {
  LICENSE_SECRET=0123456789abcdef0123456789abcdef "$build/client/licensectl" \
    --url "http://127.0.0.1:$port" --key-id k --license-key "$key" --machine-id "machine-$1" \
    --timeout 60s activate >/dev/null
}
run_activate warm  # first-use costs (key load, statement preparation) are not the path
callgrind_control -i on "$server" >/dev/null
run_activate measured
callgrind_control -i off "$server" >/dev/null
callgrind_control -d "$server" >/dev/null
sleep 1
dump="$(ls -t "$work"/cg.out* | head -1)"
# Lines are "<cost> (<share>) <file>:<function> [<object>]"; the project's files are
# those under a src/ directory (paths are relative to the build when ccache compiled).
callgrind_annotate --inclusive=no --auto=no --threshold=100 "$dump" 2>/dev/null |
  python3 -c '
import re, sys
line = re.compile(r"^\s*[0-9,]+ \(\s*[0-9.]+%\)\s+\S*?/src/([^:]+):(.*) \[[^]]*\]$")
for text in sys.stdin:
    m = line.match(text.rstrip("\n"))
    if m:
        print(m.group(1) + "  " + m.group(2))
' | sort -u > "$work/functions"
functions=$(grep -c . "$work/functions" || true)
files=$(cut -d' ' -f1 "$work/functions" | sort -u | grep -c . || true)
echo "one activate: $functions functions of src/ in $files files"
if [[ "${2:-}" == --list ]]; then
  cat "$work/functions"
fi
