#!/usr/bin/env bash
# package.ThePrometheusAlertRulesPassPromtool: deploy/prometheus-alerts.yml is valid for
# Prometheus (promtool check rules), and the Grafana dashboard is JSON whose queries name
# only metrics the server exposes (docs/metrics in server_metrics.cpp and main.cpp).
set -euo pipefail
src="$1"
command -v promtool >/dev/null || { echo "SKIP: no promtool (scripts/install-deps.sh installs prometheus)"; exit 77; }
promtool check rules "$src/deploy/prometheus-alerts.yml"
python3 - "$src/deploy/grafana-dashboard.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["panels"], "no panels"
for p in d["panels"]:
    for t in p.get("targets", []):
        assert "licensed_" in t["expr"] or "process_" in t["expr"] or "up{" in t["expr"], t["expr"]
print("ok: dashboard with", len(d["panels"]), "panels")
PY
