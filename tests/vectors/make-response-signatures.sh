#!/usr/bin/env bash
# Regenerates response-signatures.json (spec section 13) with the openssl command line
# alone, independently of the server's code: the signing string is assembled with printf,
# hashed with sha256sum and signed with `openssl pkeyutl -sign -rawin` (Ed25519 is
# deterministic, so the same inputs always give the same signature). Needs openssl >= 3,
# coreutils and jq. Usage: tests/vectors/make-response-signatures.sh > tests/vectors/response-signatures.json
set -euo pipefail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A fixed test key (made once with `openssl genpkey -algorithm ed25519`); never a real one.
cat > "$work/key.pem" <<'PEM'
-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEILrEcv0M0D13sxu/Y7VADwSj2kuphskZzo7ziuVk0Qa0
-----END PRIVATE KEY-----
PEM

# The raw public key is the last 32 bytes of its DER SubjectPublicKeyInfo.
openssl pkey -in "$work/key.pem" -pubout -outform DER | tail -c 32 > "$work/pub.raw"
public_key=$(base64 -w0 < "$work/pub.raw")
kid="ed25519-$(sha256sum < "$work/pub.raw" | cut -c1-16)"

cases=()
# name, nonce ("" = the request had none), status, Date, body file
add_case() {
  local name=$1 nonce=$2 status=$3 date=$4 body_file=$5
  local body_sha nonce_field signing signature
  body_sha=$(sha256sum < "$body_file" | cut -d' ' -f1)
  nonce_field=${nonce:--}
  printf 'v1-response\n%s\n%s\n%s\n%s' "$nonce_field" "$status" "$date" "$body_sha" \
    > "$work/$name.msg"
  signature=$(openssl pkeyutl -sign -inkey "$work/key.pem" -rawin -in "$work/$name.msg" |
              base64 -w0)
  cases+=("$(jq -n --arg name "$name" --arg nonce "$nonce" --argjson status "$status" \
    --arg date "$date" --rawfile body "$body_file" --arg bodySha256 "$body_sha" \
    --rawfile signingString "$work/$name.msg" --arg signature "$signature" --arg kid "$kid" \
    '{name: $name, nonce: (if $nonce == "" then null else $nonce end), status: $status,
      date: $date, body: $body, bodySha256: $bodySha256, signingString: $signingString,
      signature: $signature, header: ("kid=" + $kid + ", ed25519=" + $signature)}')")
}

printf '%s' '{"ok":true,"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c","machine":{"id":"build-agent-07","name":"Studio PC"}}' \
  > "$work/activate.json"
add_case activate-ok 0123456789abcdef0123456789abcdef 200 'Sun, 22 Nov 2026 09:30:00 GMT' \
  "$work/activate.json"

printf '%s' '{"ok":false,"error":"NOT_FOUND","message":"no such endpoint","requestId":"req_0123456789abcdef01234567"}' \
  > "$work/not-found.json"
add_case no-nonce-404 "" 404 'Mon, 23 Nov 2026 00:00:01 GMT' "$work/not-found.json"

: > "$work/empty"
add_case empty-body q8Jm0vX2c1Tn4YwZs6Lb3A 413 'Tue, 01 Dec 2026 23:59:59 GMT' "$work/empty"

printf '%s' '{"ok":false,"error":"LICENSE_API_BAD_SIGNATURE","code":1700,"message":"nonce already used","reason":"nonce_reused","requestId":"req_aa"}' \
  > "$work/bad-signature.json"
add_case nonce-reused nonce_with-dash_and_underscore 401 'Wed, 02 Dec 2026 12:00:00 GMT' \
  "$work/bad-signature.json"

printf '%s' '{"ok":true,"machine":{"name":"Studio PC \u00e9","nameUtf8":"Pièce ☃"}}' \
  > "$work/utf8.json"
add_case utf8-body ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 200 \
  'Thu, 03 Dec 2026 08:00:00 GMT' "$work/utf8.json"

jq -n --rawfile privateKeyPem "$work/key.pem" --arg publicKey "$public_key" --arg kid "$kid" \
  --slurpfile cases <(printf '%s\n' "${cases[@]}") \
  '{scheme: "v1-response",
    note: ("Ed25519 over the UTF-8 signing string of spec section 13; signature and publicKey are "
           + "standard padded base64; kid is \"ed25519-\" + the first 16 hex digits of the SHA-256 "
           + "of the raw public key. Made by make-response-signatures.sh with the openssl CLI."),
    privateKeyPem: $privateKeyPem, publicKey: $publicKey, kid: $kid, cases: $cases}'
