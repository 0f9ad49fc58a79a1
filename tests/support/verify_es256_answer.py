#!/usr/bin/env python3
"""An ES256 answer verifier written from the protocol document alone
(docs/protocol.md §13.1 and §13.4), with python3-cryptography rather than the OpenSSL
code the server and the SDK share: a black-box test (tests/blackbox/es256_signature_test.cpp)
runs it on live answers.

Given the public-keys document, an answer's X-License-Response-Signature, the request
signature it should be bound to, its status and its body, it rebuilds the v2-response
string and checks the signature with the published ES256 key the header names.

Exit status: 0 verified; 1 refused (the reason on stderr); 2 usage error.
"""

import argparse
import base64
import binascii
import hashlib
import json
import re
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

HEADER = re.compile(r"^kid=([A-Za-z0-9._-]{1,64}), *t=(0|[1-9][0-9]*), *es256=([A-Za-z0-9+/=]+)$")


class Refused(Exception):
    pass


def b64(text):
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error as e:
        raise Refused(f"not base64: {text!r}") from e
    if base64.b64encode(raw).decode() != text:
        raise Refused(f"not canonical base64: {text!r}")
    return raw


def published_key(keys_document, kid):
    for key in keys_document.get("keys", []):
        if key.get("kid") == kid:
            if key.get("alg") != "ES256":
                raise Refused(f"key {kid} is {key.get('alg')}, not ES256")
            point = b64(key["publicKey"])
            if len(point) != 65 or point[0] != 0x04:
                raise Refused("the published key is not a 65-byte uncompressed point")
            return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    raise Refused(f"no published key {kid}")


def signing_string(request_signature, status, t, body):
    return "\n".join([
        "v2-response",
        request_signature,
        str(status),
        t,
        hashlib.sha256(body).hexdigest(),
    ]).encode()


def verify(keys_document, header, request_signature, status, body):
    match = HEADER.match(header)
    if not match:
        raise Refused(f"not a plain ES256 signature header: {header!r}")
    kid, t, signature = match.groups()
    raw = b64(signature)
    if len(raw) != 64:
        raise Refused("the signature is not 64 bytes of r || s")
    r = int.from_bytes(raw[:32], "big")
    s = int.from_bytes(raw[32:], "big")
    key = published_key(keys_document, kid)
    try:
        key.verify(encode_dss_signature(r, s),
                   signing_string(request_signature, status, t, body),
                   ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as e:
        raise Refused("the signature does not verify") from e


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", required=True, help="the public-keys document (a JSON file)")
    parser.add_argument("--header", required=True, help="X-License-Response-Signature's value")
    parser.add_argument("--request-signature", required=True,
                        help="64 lowercase hex digits the answer should be bound to, or -")
    parser.add_argument("--status", required=True, type=int)
    parser.add_argument("--body", required=True, help="a file holding the exact body bytes")
    args = parser.parse_args()
    with open(args.keys, encoding="utf-8") as f:
        keys_document = json.load(f)
    with open(args.body, "rb") as f:
        body = f.read()
    try:
        verify(keys_document, args.header, args.request_signature, args.status, body)
    except Refused as e:
        print(f"refused: {e}", file=sys.stderr)
        return 1
    print("verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
