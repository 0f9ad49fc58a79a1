#!/usr/bin/env bash
# package.CmakeInstallPutsTheServerItsManPageConfigAndUnitInPlace: `cmake --install
# --component server` into a scratch prefix lays out the binary (which runs), the man
# page, the example config (which `serve --check-config` accepts once a key is added), the
# systemd unit and the configuration reference.
set -euo pipefail
build="$1"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage" cmake --install "$build" --component server --prefix /usr >/dev/null
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in usr/bin/licensed usr/share/man/man8/licensed.8 usr/lib/systemd/system/licensed.service \
         usr/share/doc/licensed/configuration.md etc/licensed/licensed.toml; do
  [ -e "$stage/$f" ] || fail "$f not installed"
done
config="$stage/etc/licensed/licensed.toml"
"$stage/usr/bin/licensed" serve --help >/dev/null || fail "the installed binary does not run"
man -l "$stage/usr/share/man/man8/licensed.8" >/dev/null 2>&1 || groff -man -Tutf8 \
  "$stage/usr/share/man/man8/licensed.8" >/dev/null 2>&1 || echo "(no man or groff to render the page)"
cp "$config" "$stage/check.toml"
printf '\n[[signing_keys]]\nid = "k1"\nsecret = "s1"\n' >>"$stage/check.toml"
"$stage/usr/bin/licensed" serve --check-config --config "$stage/check.toml" \
  || fail "the example config with a key added is refused"
echo "ok: cmake --install lays out the server"
