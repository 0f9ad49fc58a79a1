#!/usr/bin/env python3
"""Writes fuzz/corpus/activation_file/: activation files (docs/protocol.md §21.3) signed
with the fuzz target's fixed Ed25519 key (fuzz/activation_file_fuzzer.cpp), with Python's
`cryptography`, an implementation independent of ours; and fuzz/corpus/lease_file/: lease
files (docs/protocol.md §27) signed with the same key (fuzz/lease_file_fuzzer.cpp). Run from
the repository root."""
import base64
import json
import pathlib

from cryptography.hazmat.primitives import serialization

PEM = b"""-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIHoOLl0IcmIUkf4fzOU6LztV8GyjXVlHDdRXwzMn8c4Z
-----END PRIVATE KEY-----
"""


def armour(label, data):
    body = base64.b64encode(data).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----", ""])


def kid_of(raw):
    import hashlib
    return "ed25519-" + hashlib.sha256(raw).hexdigest()[:16]


def main():
    key = serialization.load_pem_private_key(PEM, password=None)
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    out = pathlib.Path("fuzz/corpus/activation_file")
    out.mkdir(parents=True, exist_ok=True)
    payloads = {
        "valid": {"id": "0123456789abcdef0123456789abcdef",
                  "licenseKey": "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                  "product": {"slug": "reverb", "name": "Reverb Pro"},
                  "machine": {"id": "a" * 64, "name": None}, "status": "ACTIVE",
                  "entitlements": [{"code": "pro", "expiresAt": None, "active": True},
                                   {"code": "voices", "expiresAt": "2027-01-01T00:00:00.000Z",
                                    "active": True, "value": 64}],
                  "max": 3, "licenseExpiresAt": None,
                  "issuedAt": "2026-09-21T14:13:20.000Z", "expiresAt": "2026-12-20T14:13:20.000Z",
                  "requestTimestamp": "2026-09-21T14:12:20.000Z", "requestNonce": "nonce-0123456789abcdef"},
        "no_entitlements": {"id": "ff" * 16, "licenseKey": "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                            "product": {"slug": "delay"}, "machine": {"id": "m" * 8},
                            "status": "ACTIVE", "entitlements": [],
                            "issuedAt": "2026-01-01T00:00:00Z", "expiresAt": "2026-04-01T00:00:00Z",
                            "requestTimestamp": "2025-12-31T23:59:00Z", "requestNonce": "n" * 16},
    }
    for name, payload in payloads.items():
        data = json.dumps(payload, separators=(",", ":")).encode()
        signature = key.sign(b"v1-activation-file\n" + data)
        envelope = {"v": 1, "kid": kid_of(raw),
                    "signature": base64.b64encode(signature).decode(),
                    "payload": base64.b64encode(data).decode()}
        text = armour("LICENSE ACTIVATION", json.dumps(envelope).encode())
        (out / f"{name}.lic").write_text(text)
    (out / "request.txt").write_text(armour("LICENSE ACTIVATION REQUEST", b'{"v":1}'))
    write_lease_corpus(key, raw)


def write_lease_corpus(key, raw):
    out = pathlib.Path("fuzz/corpus/lease_file")
    out.mkdir(parents=True, exist_ok=True)
    payloads = {
        "borrowed": {"id": "0123456789abcdef0123456789abcdef",
                     "licenseKey": "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                     "product": {"slug": "reverb", "name": "Reverb Pro"},
                     "machine": {"id": "tour-laptop-01", "name": None},
                     "sessionId": "tour-laptop-01",
                     "entitlements": [{"code": "pro", "expiresAt": None, "active": True}],
                     "issuedAt": "2026-09-21T14:13:20.000Z", "expiresAt": "2026-09-24T14:13:20.000Z"},
        "session": {"id": "ee" * 16, "licenseKey": "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
                    "product": {"slug": "delay"}, "machine": {"id": "m" * 8},
                    "sessionId": "p0123456789abcdef", "entitlements": [],
                    "issuedAt": "2026-01-01T00:00:00Z", "expiresAt": "2026-01-08T00:00:00Z"},
    }
    for name, payload in payloads.items():
        data = json.dumps(payload, separators=(",", ":")).encode()
        signature = key.sign(b"v1-lease-file\n" + data)
        envelope = {"v": 1, "kid": kid_of(raw),
                    "signature": base64.b64encode(signature).decode(),
                    "payload": base64.b64encode(data).decode()}
        (out / f"{name}.lic").write_text(armour("LICENSE LEASE", json.dumps(envelope).encode()))
    # An activation file's signature under the lease label: the prefixes tell them apart.
    (out / "activation_relabelled.lic").write_text(
        pathlib.Path("fuzz/corpus/activation_file/valid.lic").read_text()
        .replace("LICENSE ACTIVATION", "LICENSE LEASE"))


if __name__ == "__main__":
    main()
