#!/usr/bin/env bash
# The DLLs a Windows program or DLL imports, checked against the ones every Windows has:
# what the SDK may need beside itself (KERNEL32, ADVAPI32, bcrypt, WINHTTP, the C runtime
# as msvcrt or the ucrt's api-ms-win-crt-* sets, ws2_32, USER32). Anything else (a
# libstdc++-6.dll, libwinpthread-1.dll, libcurl, OpenSSL) would have to ship beside the
# plugin, which the Windows SDK promises it never needs. Prints each file's size and its
# imports (the numbers of the Windows SDK's report) and exits 1 on a DLL not allowed.
#   scripts/check-windows-imports.sh FILE...
set -euo pipefail
objdump=$(command -v x86_64-w64-mingw32-objdump || command -v objdump) ||
  { echo "check-windows-imports.sh: no objdump" >&2; exit 1; }
allowed='^(kernel32|advapi32|bcrypt|winhttp|msvcrt|ucrtbase|api-ms-win-crt-[a-z0-9-]+|ws2_32|user32)\.dll$'
status=0
for file in "$@"; do
  imports=$("$objdump" -p "$file" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr -d '\r')
  [ -n "$imports" ] || { echo "$file: no import table read" >&2; status=1; continue; }
  echo "$(basename "$file"): $(stat -c %s "$file") bytes, imports: $(echo "$imports" | paste -sd ' ')"
  while read -r dll; do
    if ! echo "$dll" | tr 'A-Z' 'a-z' | grep -Eq "$allowed"; then
      echo "$(basename "$file") imports $dll, which is not part of Windows itself" >&2
      status=1
    fi
  done <<<"$imports"
done
exit $status
