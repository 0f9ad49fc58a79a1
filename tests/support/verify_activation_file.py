#!/usr/bin/env python3
"""An activation-file verifier written from the protocol document alone
(docs/protocol.md §21.3), with python3-cryptography rather than the OpenSSL code the
server and the SDK share: the black-box suite (tests/blackbox/offline_activation_test.cpp)
runs it on files the real server issued.

Given the public-keys document and an armoured LICENSE ACTIVATION file, it checks the
armour, finds the published key the file's kid and alg name, verifies the signature over
"v1-activation-file\\n" + the decoded payload (Ed25519, or ES256 r || s over SHA-256), and
prints the payload JSON on stdout. With --kind lease it checks a borrowed seat's LICENSE
LEASE file instead (docs/protocol.md §27: the same envelope, signed over
"v1-lease-file\\n" + the payload; tests/blackbox/seats_test.cpp).

Exit status: 0 verified; 1 refused (the reason on stderr); 2 usage error.
"""

import argparse
import base64
import binascii
import json
import re
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

KINDS = {"activation": ("LICENSE ACTIVATION", b"v1-activation-file\n"),
         "lease": ("LICENSE LEASE", b"v1-lease-file\n")}
LABEL, PREFIX = KINDS["activation"]


class Refused(Exception):
    pass


def dearmour(text):
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 3 or lines[0] != f"-----BEGIN {LABEL}-----" or lines[-1] != f"-----END {LABEL}-----":
        raise Refused(f"not an armoured {LABEL}")
    body = lines[1:-1]
    if any(len(line) > 64 for line in body) or any(len(line) != 64 for line in body[:-1]):
        raise Refused("armour lines are not wrapped at 64 columns")
    try:
        return base64.b64decode("".join(body), validate=True)
    except binascii.Error as e:
        raise Refused(f"bad base64: {e}")


def verify(keys, file_text):
    outer = json.loads(dearmour(file_text))
    if outer.get("v") != 1:
        raise Refused("v is not 1")
    payload = base64.b64decode(outer["payload"], validate=True)
    signature = base64.b64decode(outer["signature"], validate=True)
    if set(outer) != {"v", "kid", "signature", "payload"}:
        raise Refused(f"the envelope's members are {sorted(outer)}, not v, kid, signature, payload")
    # The kid names the key, and the key its algorithm (docs/protocol.md §21.3: no alg member).
    key = next((k for k in keys if k["kid"] == outer["kid"]), None)
    if key is None:
        raise Refused("no published key has that kid")
    raw = base64.b64decode(key["publicKey"])
    message = PREFIX + payload
    try:
        if key["alg"] == "Ed25519":
            ed25519.Ed25519PublicKey.from_public_bytes(raw).verify(signature, message)
        elif key["alg"] == "ES256":
            if len(signature) != 64:
                raise Refused("an ES256 signature is 64 bytes")
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                       int.from_bytes(signature[32:], "big"))
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
            public.verify(der, message, ec.ECDSA(hashes.SHA256()))
        else:
            raise Refused("unknown alg")
    except InvalidSignature:
        raise Refused("the signature does not verify")
    return payload


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", required=True, help="the public-keys document")
    parser.add_argument("--file", required=True, help="the armoured activation file")
    parser.add_argument("--kind", choices=sorted(KINDS), default="activation")
    args = parser.parse_args()
    global LABEL, PREFIX
    LABEL, PREFIX = KINDS[args.kind]
    with open(args.keys) as f:
        keys = json.load(f)["keys"]
    with open(args.file) as f:
        text = f.read()
    try:
        payload = verify(keys, text)
    except (Refused, KeyError, ValueError) as e:
        print(f"refused: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(payload.decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
