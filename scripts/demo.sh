#!/usr/bin/env bash
# One command to try licensed: installs what is missing, builds, creates a demo product,
# license and signing key in ./demo/licensed.db, and starts the server on SQLite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build build/release --target licensed licensectl -j"$(nproc)"
bin=build/release/licensed
mkdir -p demo
store="sqlite:demo/licensed.db"
if [ ! -f demo/licensed.db ]; then
  # serve and admin never create a store by themselves (a mistyped path would become an
  # empty one): `licensed init` makes it, with its response keys.
  "$bin" init --store "$store"
fi
if [ ! -f demo/signing-key ]; then
  "$bin" admin --store "$store" product create --slug demo-plugin --name "Demo Plugin" >/dev/null
  "$bin" admin --store "$store" license create --product demo-plugin --max 3 --json \
    | sed -E 's/.*"licenseKey":"([^"]+)".*/\1/' > demo/license-key
  echo "demo=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" > demo/signing-key
  chmod 600 demo/signing-key
fi
if [ ! -f demo/admin-token ]; then
  # The admin API's bearer token is shown once and stored hashed: keep it in a file.
  (umask 077; "$bin" admin --store "$store" token create --name demo --json \
    | sed -nE 's/.*"token":"([^"]+)".*/\1/p' > demo/admin-token)
fi
listen="${LICENSED_LISTEN:-127.0.0.1:8080}"
cat <<TXT

  licensed demo
  -------------
  product       demo-plugin (max 3 machines)
  license key   $(cat demo/license-key)
  signing key   id "demo", secret "$(cut -d= -f2- demo/signing-key)"
  server        http://$listen   (Ctrl-C stops it)
  admin API     curl -H "Authorization: Bearer \$(cat demo/admin-token)" http://$listen/api/v1/admin/licenses
  API document  http://$listen/api/v1/openapi.json
  dashboard     http://$listen/dashboard (the license key signs in)
  support view  http://$listen/dashboard/support (the admin token signs in)

  See the quick starts in README.md: licensectl (build/release/client/licensectl),
  or a signed request by hand.

TXT
# The secret goes in the environment, not the arguments, which any user sees in ps.
LICENSED_SIGNING_KEYS="$(cat demo/signing-key)" exec "$bin" serve --listen "$listen" \
  --store "$store" --dashboard-url "http://$listen/dashboard"
