#!/usr/bin/env bash
# package.TheDebianPackageInstallsAVerifiedServiceAndRemovesCleanly: the package built by
# scripts/package.sh, installed with dpkg -i on this machine, makes the `licensed` system
# user, /etc/licensed/licensed.toml (0640 root:licensed), /var/lib/licensed (0700
# licensed), and a unit that `systemd-analyze verify` accepts with the hardening the issue
# asks for; dpkg -r removes the binary and unit. Whatever happens, the machine is left as
# it was found: the test refuses to run (77) where licensed is already installed, a
# licensed user exists or its directories do, and purges and deletes all it made.
set -euo pipefail
build="$(cd "$1" && pwd)"
source_dir="$(cd "$(dirname "$0")/../.." && pwd)"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
command -v dpkg >/dev/null && command -v cpack >/dev/null || skip "no dpkg or cpack"
command -v systemd-analyze >/dev/null || skip "no systemd-analyze (scripts/install-deps.sh installs systemd)"
dpkg-query -W -f='${Status}' licensed 2>/dev/null | grep -q installed && skip "licensed is installed here"
getent passwd licensed >/dev/null && skip "a licensed user exists here"
for d in /etc/licensed /var/lib/licensed; do [ -e "$d" ] && skip "$d exists here"; done

cleanup() {
  dpkg --purge licensed >/dev/null 2>&1 || true
  getent passwd licensed >/dev/null && userdel licensed >/dev/null 2>&1 || true
  getent group licensed >/dev/null && groupdel licensed >/dev/null 2>&1 || true
  rm -rf /etc/licensed /var/lib/licensed
}
trap cleanup EXIT

deb="$("$source_dir/scripts/package.sh" "$build" 2>/dev/null)"
[ -f "$deb" ] || fail "scripts/package.sh made no package"
info="$(dpkg-deb --info "$deb")"
contents="$(dpkg-deb --contents "$deb")"
grep -q 'Package: licensed' <<<"$info" || fail "not the licensed package"
grep -q './usr/bin/licensed$' <<<"$contents" || fail "no binary in the package"
grep -q './etc/licensed/licensed.toml$' <<<"$contents" || fail "no /etc/licensed/licensed.toml"
dpkg -i "$deb" >/dev/null || fail "dpkg -i failed"

getent passwd licensed | grep -q ':/var/lib/licensed:' || fail "no licensed system user"
[ "$(id -u licensed)" -lt 1000 ] || fail "licensed is not a system user"
[ "$(stat -c '%a %U' /var/lib/licensed)" = "700 licensed" ] || fail "/var/lib/licensed is $(stat -c '%a %U' /var/lib/licensed)"
[ "$(stat -c '%a %U %G' /etc/licensed/licensed.toml)" = "640 root licensed" ] \
  || fail "licensed.toml is $(stat -c '%a %U %G' /etc/licensed/licensed.toml)"
grep -q '^# listen = ' /etc/licensed/licensed.toml || fail "the config is not the commented example"
unit=/lib/systemd/system/licensed.service
[ -f "$unit" ] || unit=/usr/lib/systemd/system/licensed.service
[ -f "$unit" ] || fail "no systemd unit installed"
for line in 'User=licensed' 'ProtectSystem=strict' 'NoNewPrivileges=yes' 'StateDirectory=licensed' \
            'Restart=on-failure' 'LimitNOFILE=11000' 'ExecReload=/bin/kill -HUP $MAINPID'; do
  grep -qxF "$line" "$unit" || fail "the unit lacks $line"
done
verify="$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$unit" 2>&1)" || fail "systemd-analyze verify: $verify"
grep -i 'licensed' <<<"$verify" && fail "systemd-analyze verify warns about the unit: $verify"
/usr/bin/licensed serve --help >/dev/null || fail "the installed binary does not run"
# As the service user, with its config, it checks and serves (a key given by the test).
cat >/tmp/licensed-package-test.keys <<KEYS
k1=package-test-secret
KEYS
chown licensed /tmp/licensed-package-test.keys
out="$(cd /var/lib/licensed && runuser -u licensed -- /usr/bin/licensed serve --config /etc/licensed/licensed.toml \
  --signing-key-file /tmp/licensed-package-test.keys --check-config 2>&1)" || fail "check-config as licensed: $out"
# The first start's step (the unit's comment): init as the service user makes the default
# store in the state directory, mode 0600, and a second init refuses it. (A store an
# earlier run of this test left there goes first: purging keeps the store on purpose.)
rm -f /var/lib/licensed/licensed.db /var/lib/licensed/licensed.db-wal /var/lib/licensed/licensed.db-shm
(cd /var/lib/licensed && runuser -u licensed -- /usr/bin/licensed init >/dev/null 2>&1) ||
  fail "licensed init as the service user failed"
[ "$(stat -c '%a %U' /var/lib/licensed/licensed.db)" = "600 licensed" ] ||
  fail "the store init made is not 0600 and the service user's"
if (cd /var/lib/licensed && runuser -u licensed -- /usr/bin/licensed init >/dev/null 2>&1); then
  fail "a second init did not refuse the existing store"
fi
rm -f /tmp/licensed-package-test.keys

dpkg -r licensed >/dev/null || fail "dpkg -r failed"
[ ! -e /usr/bin/licensed ] || fail "dpkg -r left the binary"
[ ! -e "$unit" ] || fail "dpkg -r left the unit"
[ -e /etc/licensed/licensed.toml ] || fail "dpkg -r removed the conffile (only purge should)"
dpkg --purge licensed >/dev/null || fail "dpkg --purge failed"
[ ! -e /etc/licensed/licensed.toml ] || fail "purge left the config"
[ -e /var/lib/licensed/licensed.db ] || fail "purge removed the store (it holds every license)"
rm -f /var/lib/licensed/licensed.db /var/lib/licensed/licensed.db-wal /var/lib/licensed/licensed.db-shm
echo "ok: installed, verified and removed $deb"
