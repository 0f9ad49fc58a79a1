#!/usr/bin/env bash
# Regenerates response-signatures.json (docs/protocol.md §13) with the openssl command line
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
# name, request signature ("" = bound to "-"), status, t, body file
add_case() {
  local name=$1 request_signature=$2 status=$3 t=$4 body_file=$5
  local body_sha bound signing signature
  body_sha=$(sha256sum < "$body_file" | cut -d' ' -f1)
  bound=${request_signature:--}
  printf 'v2-response\n%s\n%s\n%s\n%s' "$bound" "$status" "$t" "$body_sha" \
    > "$work/$name.msg"
  signature=$(openssl pkeyutl -sign -inkey "$work/key.pem" -rawin -in "$work/$name.msg" |
              base64 -w0)
  cases+=("$(jq -n --arg name "$name" --arg requestSignature "$request_signature" \
    --argjson status "$status" --arg t "$t" --rawfile body "$body_file" \
    --arg bodySha256 "$body_sha" --rawfile signingString "$work/$name.msg" \
    --arg signature "$signature" --arg kid "$kid" \
    '{name: $name,
      requestSignature: (if $requestSignature == "" then null else $requestSignature end),
      status: $status, t: ($t | tonumber), body: $body, bodySha256: $bodySha256,
      signingString: $signingString, signature: $signature,
      header: ("kid=" + $kid + ", t=" + $t + ", ed25519=" + $signature)}')")
}

printf '%s' '{"ok":true,"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c","machine":{"id":"build-agent-07","name":"Studio PC"}}' \
  > "$work/activate.json"
add_case activate-ok 91d1b1334b6fcee0304de7ce4076625c7efe532bb1e441b279835ee07cff83ca 200 1795339800 \
  "$work/activate.json"

printf '%s' '{"ok":false,"error":"NOT_FOUND","message":"no such endpoint","requestId":"req_0123456789abcdef01234567"}' \
  > "$work/not-found.json"
add_case unbound-404 "" 404 1795392001 "$work/not-found.json"

: > "$work/empty"
add_case empty-body "" 413 1796169599 "$work/empty"

printf '%s' '{"ok":false,"error":"STALE_TIMESTAMP","code":1701,"message":"timestamp outside the window","serverTime":1796212800,"requestId":"req_aa"}' \
  > "$work/bad-signature.json"
add_case stale-timestamp 00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff 401 1796212800 \
  "$work/bad-signature.json"

printf '%s' '{"ok":true,"machine":{"name":"Studio PC \u00e9","nameUtf8":"Pièce ☃"}}' \
  > "$work/utf8.json"
add_case utf8-body abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789 200 \
  1796284800 "$work/utf8.json"

jq -n --rawfile privateKeyPem "$work/key.pem" --arg publicKey "$public_key" --arg kid "$kid" \
  --slurpfile cases <(printf '%s\n' "${cases[@]}") \
  '{scheme: "v2-response",
    note: ("Ed25519 over the UTF-8 signing string of docs/protocol.md §13.1; signature and publicKey are "
           + "standard padded base64; requestSignature null means the answer is bound to \"-\"; kid is \"ed25519-\" + the first 16 hex digits of the SHA-256 "
           + "of the raw public key. Made by make-response-signatures.sh with the openssl CLI."),
    privateKeyPem: $privateKeyPem, publicKey: $publicKey, kid: $kid, cases: $cases}'
