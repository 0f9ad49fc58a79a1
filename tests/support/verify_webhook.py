#!/usr/bin/env python3
"""Verifies a webhook delivery as a receiver would (Standard Webhooks), with nothing of
licensed's code: exit 0 when every --secret given signs the delivery, 1 otherwise.

  verify_webhook.py --secret whsec_... [--secret ...] --id ID --timestamp T
                    --signature "v1,... v1,..." --body FILE
"""
import argparse
import base64
import hashlib
import hmac
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--secret", action="append", required=True)
    p.add_argument("--id", required=True)
    p.add_argument("--timestamp", required=True)
    p.add_argument("--signature", required=True)
    p.add_argument("--body", required=True)
    a = p.parse_args()
    with open(a.body, "rb") as f:
        body = f.read()
    signed = a.id.encode() + b"." + a.timestamp.encode() + b"." + body
    given = [s.split(",", 1)[1] for s in a.signature.split(" ") if s.startswith("v1,")]
    for secret in a.secret:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        if not any(hmac.compare_digest(expected, g) for g in given):
            print("no signature of secret " + secret[:10] + "...", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
