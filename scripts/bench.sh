#!/usr/bin/env bash
# Load benchmarks of licensed (docs/benchmarks.md). For each scenario, RUNS times: a
# fresh server on a fresh SQLite file in a temp dir (rate limits off, admin listener
# off), licenses seeded by licensed-bench through the admin operations, one timed run;
# then the median and spread (min, max) per scenario. Runs alternate between scenarios.
#
#   scripts/bench.sh [-n RUNS] [-d DURATION] [-w WARMUP] [-c CONNECTIONS] [-t THREADS]
#                    [--server-threads N] [--no-build] [--out DIR] [--verify-every N]
#                    [--activations N]... [--store-dir DIR] SCENARIO...
#
# SCENARIO: status heartbeat activate-repeat activate-new activate-hot mix (licensed-bench
# scenarios against licensed), and the ceilings:
#   nginx          licensed-bench's status requests (signed, random keys) against nginx
#                  answering `return 200` (Debian's nginx, own config, loopback port)
#   wrk-nginx      wrk against the same nginx
#   wrk-licensed   wrk against licensed: wrk cannot sign, so every request is refused at
#                  check 4 (401 missing_header): licensed's HTTP layer without the work
# Defaults: 5 runs of 10 s after a 1 s warm-up, 64 connections, 1 client thread.
# --activations N (repeatable): instead of a fresh store, run on a store already holding N
#   machines (10 a license, activated through the activate operation by licensed-bench
#   --seed-activations), seeded once into --store-dir (default build/bench-stores) and
#   kept there between runs; each run's own licenses are added among them. With several
#   sizes, each run goes through all sizes in turn, so the machine's noise hits each alike.
# Every run records the server's resident memory (VmRSS at start and end, peak VmHWM, and
# VmRSS once a second).
# --verify-every N (default 64): licensed-bench verifies every Nth answer's signature
#   against the server's published keys (plain or batched, the SDK's verifier; not in the
#   ceiling runs); the counts go in each run's JSON and the summary, and an answer that
#   does not verify is reported and makes bench.sh exit 1 once every run is done.
# Every run's JSON goes to OUT/runs.jsonl; the summary to stdout and OUT/summary.txt.
# The machine is shared, so each run also records the CPU the server and the client
# used, how many cores everything else on the machine took meanwhile ("others"), and
# how many the hypervisor gave to other virtual machines ("stolen").
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

runs=5 duration=10s warmup=1s connections=64 threads=1 server_threads="" build=1 out=""
verify_every=64
store_dir="$repo/build/bench-stores"
scenarios=() sizes=()
while (($#)); do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -d) duration="$2"; shift 2 ;;
    -w) warmup="$2"; shift 2 ;;
    -c) connections="$2"; shift 2 ;;
    -t) threads="$2"; shift 2 ;;
    --server-threads) server_threads="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --out) out="$2"; shift 2 ;;
    --activations) sizes+=("$2"); shift 2 ;;
    --store-dir) store_dir="$2"; shift 2 ;;
    --verify-every) verify_every="$2"; shift 2 ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
    *) scenarios+=("$1"); shift ;;
  esac
done
((${#scenarios[@]})) || { echo "bench.sh: name at least one scenario (see --help)" >&2; exit 2; }

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/licensed-ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo}" CCACHE_NOHASHDIR=true
if ((build)); then
  scripts/install-deps.sh nginx wrk
  cmake --preset release >/dev/null
  cmake --build build/release --target licensed licensed-bench -j"$(nproc)"
fi
# LICENSED_BENCH_SERVER: another server binary to measure (an A/B of a patched build).
licensed="${LICENSED_BENCH_SERVER:-$repo/build/release/licensed}"
bench="$repo/build/release/bench/licensed-bench"
out="${out:-$repo/build/bench-results/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
: >"$out/runs.jsonl"

tmp="$(mktemp -d)"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
trap 'stop_server; rm -rf "$tmp"' EXIT

# Time the machine spent in processes, in clock ticks (user, nice, system). Interrupt
# and softirq time are left out: the kernel charges them to no process, and most of it is
# the loopback traffic of the run itself.
machine_ticks() { awk '/^cpu /{print $2+$3+$4}' /proc/stat; }
# Time the hypervisor gave our virtual CPUs to someone else (steal), in clock ticks: the
# noise no process list and no load average shows.
steal_ticks() { awk '/^cpu /{print $9}' /proc/stat; }
# CPU ticks of a process and its children (nginx's workers), threads included.
process_ticks() {
  local total=0 pid
  for pid in "$1" $(pgrep -P "$1" || true); do
    [ -r "/proc/$pid/stat" ] && total=$((total + $(awk '{print $14+$15}' "/proc/$pid/stat")))
  done
  echo "$total"
}
# user+system seconds that /usr/bin/time wrote for the client.
client_seconds() { awk '{print $1+$2}' "$1"; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The store of `--activations N`, seeded the first time it is asked for; the seeding's
# report (time, rate) is kept beside it.
seeded_store() {
  local n="$1" db="$store_dir/activations-$1.db"
  if [ ! -f "$db.seeded.json" ]; then
    mkdir -p "$store_dir"
    rm -f "$db" "$db-wal" "$db-shm"
    echo "bench.sh: seeding $n activations into $db (once; kept for later runs)" >&2
    "$bench" --store "sqlite:$db" --seed-activations "$n" --json >"$db.seeding.json"
    mv "$db.seeding.json" "$db.seeded.json"
  fi
  echo "$db"
}

# Starts licensed on $store_path; sets server_pid and port.
start_licensed() {
  local args=(serve --create --listen 127.0.0.1:0 --store "sqlite:$store_path"
              --signing-key "bench=$secret" --rate-limit-key off --rate-limit-ip off
              --admin-listen off)
  [ -n "$server_threads" ] && args+=(--threads "$server_threads")
  "$licensed" "${args[@]}" >"$run_dir/server.log" 2>&1 &
  server_pid=$!
  port=""
  for _ in $(seq 1 200); do
    port="$(sed -nE 's/.*listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$run_dir/server.log" | head -n1)"
    [ -n "$port" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$run_dir/server.log" >&2
  echo "bench.sh: licensed did not start" >&2
  exit 1
}

# nginx answering 200 to everything, from its own config in $run_dir, in the
# foreground of a background job (daemon off), as many workers as cores.
start_nginx() {
  command -v nginx >/dev/null || { echo "bench.sh: nginx is not installed (apt-get install nginx)" >&2; exit 1; }
  port="$(free_port)"
  mkdir -p "$run_dir/nginx-tmp"
  cat >"$run_dir/nginx.conf" <<CONF
daemon off;
user root;
worker_processes $(nproc);
pid $run_dir/nginx.pid;
error_log $run_dir/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 60s;
  client_body_temp_path $run_dir/nginx-tmp;
  proxy_temp_path $run_dir/nginx-tmp;
  fastcgi_temp_path $run_dir/nginx-tmp;
  uwsgi_temp_path $run_dir/nginx-tmp;
  scgi_temp_path $run_dir/nginx-tmp;
  server {
    listen 127.0.0.1:$port;
    location / { default_type application/json; return 200 '{"ok":true}'; }
  }
}
CONF
  nginx -p "$run_dir" -c "$run_dir/nginx.conf" -e "$run_dir/nginx-error.log" &
  server_pid=$!
  for _ in $(seq 1 100); do
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null; then
      return 0
    fi
    sleep 0.05
  done
  cat "$run_dir/nginx-error.log" >&2
  echo "bench.sh: nginx did not start" >&2
  exit 1
}

# The server's resident memory, once a second until it exits, as "SECONDS VmRSS VmHWM"
# lines (KiB) into $1; the shell's own `read`, so sampling forks nothing.
sample_memory() {
  local pid="$1" file="$2" start key value rss hwm
  start="$(date +%s)"
  while [ -r "/proc/$pid/status" ]; do
    rss="" hwm=""
    while read -r key value _; do
      case "$key" in VmRSS:) rss="$value" ;; VmHWM:) hwm="$value" ;; esac
    done <"/proc/$pid/status" 2>/dev/null || break
    [ -n "$rss" ] && echo "$(($(date +%s) - start)) $rss $hwm" >>"$file"
    sleep 1
  done
}

# wrk's summary as the same JSON shape licensed-bench prints (no p99.9: wrk has none).
run_wrk() {
  local path="$1"
  command -v wrk >/dev/null || { echo "bench.sh: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
  local secs="${duration%s}"
  /usr/bin/time -o "$run_dir/client-time" -f "%U %S" \
    wrk -t"$threads" -c"$connections" -d"$secs"s --latency -s "$tmp/post.lua" \
    "http://127.0.0.1:$port$path" >"$run_dir/wrk.txt"
  python3 - "$run_dir/wrk.txt" "$scenario" "$connections" "$threads" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
def ms(v, unit):
    return float(v) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]
lat = {}
for pct, v, unit in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", text, re.M):
    lat["p" + pct] = ms(v, unit)
m = re.search(r"(\d+) requests in ([\d.]+)(s|m)", text)
answered = int(m.group(1)); secs = float(m.group(2)) * (60 if m.group(3) == "m" else 1)
non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errs = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
transport = sum(map(int, errs.groups())) if errs else 0
print(json.dumps({"scenario": sys.argv[2], "connections": int(sys.argv[3]), "threads": int(sys.argv[4]),
                  "answered": answered, "measuredSeconds": secs,
                  "ok": answered - (int(non2xx.group(1)) if non2xx else 0),
                  "throughput": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
                  "latencyMs": lat, "transportErrors": transport, "unexpectedErrors": 0}))
PY
}

cat >"$tmp/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"licenseKey":"6f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f","machineId":"bench-machine-0001"}'
wrk.headers["Content-Type"] = "application/json"
LUA

echo "bench.sh: $(nproc) cores, $runs runs of $duration (+$warmup warm-up), $connections connections, $threads client thread(s); load average $(cut -d' ' -f1-3 /proc/loadavg); results in $out" >&2
((${#sizes[@]})) || sizes=(fresh)
for size in "${sizes[@]}"; do
  [ "$size" = fresh ] || seeded_store "$size" >/dev/null
done
# Runs alternate: run 1 of every scenario, then run 2 of every scenario, and so on, so a
# change in the machine's noise hits every scenario alike (issue 26: "alternating runs").
for run in $(seq 1 "$runs"); do
  for scenario in "${scenarios[@]}"; do
   for size in "${sizes[@]}"; do
    run_dir="$tmp/$scenario-$run-$size"
    mkdir -p "$run_dir"
    if [ "$size" = fresh ]; then store_path="$run_dir/licensed.db"; else store_path="$(seeded_store "$size")"; fi
    secret="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    bench_time=(/usr/bin/time -o "$run_dir/client-time" -f "%U %S")
    case "$scenario" in
      nginx|wrk-nginx) start_nginx ;;
      *) start_licensed ;;
    esac
    sample_memory "$server_pid" "$run_dir/memory" &
    sampler_pid=$!
    server_before="$(process_ticks "$server_pid")" machine_before="$(machine_ticks)"
    steal_before="$(steal_ticks)"
    started="$(date +%s.%N)"
    case "$scenario" in
      nginx)
        # nginx signs nothing: no answer to verify.
        report="$(LICENSED_BENCH_SECRET="$secret" "${bench_time[@]}" "$bench" --port "$port" \
                  --scenario status -c "$connections" -t "$threads" -d "$duration" \
                  --warmup "$warmup" --verify-every 0 --json -q 2>/dev/null)" ;;
      wrk-nginx|wrk-licensed)
        report="$(run_wrk /api/v1/license/status)" ;;
      *)
        # Exit 4: sampled answers did not verify; the report is still there, and counted.
        bench_rc=0
        report="$(LICENSED_BENCH_SECRET="$secret" "${bench_time[@]}" "$bench" --port "$port" \
                  --store "sqlite:$store_path" --scenario "$scenario" \
                  -c "$connections" -t "$threads" -d "$duration" --warmup "$warmup" \
                  --verify-every "$verify_every" --json -q)" || bench_rc=$?
        if [ "$bench_rc" -ne 0 ] && [ "$bench_rc" -ne 4 ]; then
          echo "bench.sh: licensed-bench failed (exit $bench_rc)" >&2
          exit 1
        fi ;;
    esac
    ended="$(date +%s.%N)"
    server_ticks=$(( $(process_ticks "$server_pid") - server_before ))
    machine_ticks_used=$(( $(machine_ticks) - machine_before ))
    stolen=$(( $(steal_ticks) - steal_before ))
    memory_end="$(awk '/^VmRSS:/{r=$2} /^VmHWM:/{h=$2} END{print r+0, h+0}' "/proc/$server_pid/status" 2>/dev/null || echo "0 0")"
    stop_server
    wait "$sampler_pid" 2>/dev/null || true
    load_after="$(cut -d' ' -f1 /proc/loadavg)"
    python3 - "$report" "$run" "$scenario" "$load" "$load_after" "$server_ticks" \
      "$(client_seconds "$run_dir/client-time")" "$machine_ticks_used" "$started" "$ended" \
      "$(getconf CLK_TCK)" "$stolen" "$size" "$run_dir/memory" "$memory_end" >>"$out/runs.jsonl" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
tick = 1.0 / float(sys.argv[11])
server = int(sys.argv[6]) * tick
client = float(sys.argv[7])
busy = int(sys.argv[8]) * tick
wall = float(sys.argv[10]) - float(sys.argv[9])
requests = r["answered"] + r.get("warmupAnswered", 0)
r.update(run=int(sys.argv[2]), scenario=sys.argv[3], loadBefore=float(sys.argv[4]),
         loadAfter=float(sys.argv[5]), serverCpuSeconds=server, clientCpuSeconds=client,
         # Cores the rest of the machine kept busy during the run: the noise of this run.
         otherCores=max(0.0, (busy - server - client) / wall),
         # Cores the hypervisor gave to other machines meanwhile.
         stolenCores=int(sys.argv[12]) * tick / wall,
         serverCpuUsPerRequest=server / requests * 1e6 if requests else None,
         clientCpuUsPerRequest=client / requests * 1e6 if requests else None)
if sys.argv[13] != "fresh":
    r["storeActivations"] = int(sys.argv[13])
# Resident memory of the server: once a second from its start ([seconds, VmRSS KiB]), at
# the end of the run, and its peak (VmHWM).
try:
    samples = [list(map(int, l.split())) for l in open(sys.argv[14]) if l.strip()]
except FileNotFoundError:
    samples = []
end_rss, end_hwm = map(int, sys.argv[15].split())
r.update(rssStartKiB=samples[0][1] if samples else None, rssEndKiB=end_rss or None,
         hwmKiB=end_hwm or None, rssSamples=[s[:2] for s in samples])
print(json.dumps(r))
PY
    tail -n1 "$out/runs.jsonl" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); sig=r.get("signatures") or {}; print("  %s%s run %s: %.0f req/s, p99 %.2f ms, server %.1f us CPU/request, RSS %s MiB at the end (peak %s), others kept %.2f cores busy, %.2f cores stolen (load average %s)%s" % (r["scenario"], " on %d activations" % r["storeActivations"] if "storeActivations" in r else "", r["run"], r["throughput"], r["latencyMs"].get("p99", 0), r["serverCpuUsPerRequest"] or 0, round((r["rssEndKiB"] or 0) / 1024, 1), round((r["hwmKiB"] or 0) / 1024, 1), r["otherCores"], r["stolenCores"], r["loadBefore"], ", signatures %d verified (%d in trees), %d FAILED" % (sig["verified"], sig["verifiedInTrees"], sig["failed"]) if sig.get("every") else ""))' >&2
    rm -rf "$run_dir"
   done
  done
done

python3 - "$out/runs.jsonl" <<'PY' | tee "$out/summary.txt"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in runs:
    name = r["scenario"] + (f"@{r['storeActivations']}" if "storeActivations" in r else "")
    by.setdefault(name, []).append(r)
def signatures(rs):
    sig = [r["signatures"] for r in rs if (r.get("signatures") or {}).get("every")]
    if not sig: return "-"
    return f"{sum(x['verified'] for x in sig)}/{sum(x['failed'] for x in sig)}"
def cell(values, fmt):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"
print(f"{'scenario':<22} {'runs':>4}  {'req/s median (min-max)':<24} {'p50 ms':<19} {'p99 ms':<19} "
      f"{'p99.9 ms':<19} {'server us/req':<19} {'client us/req':<17} {'others cores':<17} "
      f"{'stolen cores':<17} {'peak RSS MiB':<20} {'errors':>6} {'signatures verified/failed':>27}")
for name, rs in by.items():
    lat = lambda q: [r["latencyMs"].get(q) for r in rs if r["latencyMs"].get(q) is not None]
    p999 = lat("p999")
    errors = sum(r.get("unexpectedErrors", 0) + r.get("transportErrors", 0) for r in rs)
    cpu = [r["serverCpuUsPerRequest"] for r in rs if r.get("serverCpuUsPerRequest")]
    client = [r["clientCpuUsPerRequest"] for r in rs if r.get("clientCpuUsPerRequest")]
    others = [r["otherCores"] for r in rs if "otherCores" in r]
    stolen = [r["stolenCores"] for r in rs if "stolenCores" in r]
    hwm = [r["hwmKiB"] / 1024 for r in rs if r.get("hwmKiB")]
    print(f"{name:<22} {len(rs):>4}  {cell([r['throughput'] for r in rs], '{:.0f}'):<24} "
          f"{cell(lat('p50'), '{:.2f}'):<19} {cell(lat('p99'), '{:.2f}'):<19} "
          f"{(cell(p999, '{:.2f}') if p999 else '-'):<19} {(cell(cpu, '{:.1f}') if cpu else '-'):<19} "
          f"{(cell(client, '{:.1f}') if client else '-'):<17} "
          f"{(cell(others, '{:.2f}') if others else '-'):<17} "
          f"{(cell(stolen, '{:.2f}') if stolen else '-'):<17} "
          f"{(cell(hwm, '{:.1f}') if hwm else '-'):<20} {errors:>6} {signatures(rs):>27}")
failed = {name: sum((r.get("signatures") or {}).get("failed", 0) for r in rs) for name, rs in by.items()}
if any(failed.values()):
    print("SIGNED ANSWERS THAT DO NOT VERIFY: " +
          ", ".join(f"{name}: {n}" for name, n in failed.items() if n))
    # A run whose sampled answers did not verify measured answers no client would accept.
    sys.exit(1)
PY
