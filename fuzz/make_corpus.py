#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

The seeds are committed; this script says how each one was made and remakes them all
(it empties each corpus directory first, so only what is listed here is kept, plus the
files named regression-* that hold inputs which once found a bug).

Request-path seeds are signed with the fixture of fuzz/fixture_world.h: its keys, its
clock (1795000000) and its licenses. Change both together.
"""
import hashlib
import hmac
import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent / "corpus"

NOW = 1_795_000_000
KEY_ID, SECRET = "fuzz-key", "fuzz-secret"
BOUND_KEY_ID, BOUND_SECRET = "bound-key", "bound-secret"
LICENSES = [
    "11111111-1111-4111-8111-111111111111",  # 0 ACTIVE max 2, machine-0001
    "22222222-2222-4222-9222-222222222222",  # 1 ACTIVE max 0
    "33333333-3333-4333-a333-333333333333",  # 2 SUSPENDED, machine-0002
    "44444444-4444-4444-b444-444444444444",  # 3 expired, machine-0003
    "55555555-5555-4555-8555-555555555555",  # 4 deleted
    "66666666-6666-4666-9666-666666666666",  # 5 max 1, ttl 60 s, a stale machine
    "77777777-7777-4777-a777-777777777777",  # 6 product "other", machine-0006
    "88888888-8888-4888-b888-888888888888",  # 7 unknown
]


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    (ROOT / target / name).write_bytes(data)


def body(license_index, machine_id=None, machine_name=None, **extra):
    obj = {"licenseKey": LICENSES[license_index]}
    if machine_id is not None:
        obj["machineId"] = machine_id
    if machine_name is not None:
        obj["machineName"] = machine_name
    obj.update(extra)
    return json.dumps(obj, separators=(",", ":"))


# ---- request_path: raw requests --------------------------------------------------------

_nonce_counter = [0]


def fresh_nonce():
    _nonce_counter[0] += 1
    return "seed-nonce-%010d" % _nonce_counter[0]


def request(endpoint, body_text="", *, key_id=KEY_ID, secret=SECRET, ts=None, nonce=None,
            method="POST", target=None, content_type="application/json", extra=(),
            version="HTTP/1.1", omit=(), replace=None, chunked=False, signed_path=None,
            content_length=None):
    """One request as bytes, signed as a correct client signs it unless told otherwise."""
    path = "/api/v1/license/" + endpoint
    target = target or path
    ts = str(NOW if ts is None else ts)
    nonce = nonce or fresh_nonce()
    body_bytes = body_text.encode() if isinstance(body_text, str) else body_text
    canonical = "\n".join(["v1", method, signed_path or path, key_id, ts, nonce,
                           hashlib.sha256(body_bytes).hexdigest()])
    signature = "v1=" + hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    headers = [("Host", "licensed.test")]
    if content_type is not None:
        headers.append(("Content-Type", content_type))
    headers += [("X-License-Key-Id", key_id), ("X-License-Timestamp", ts),
                ("X-License-Nonce", nonce), ("X-License-Signature", signature)]
    headers = [(k, (replace or {}).get(k, v)) for k, v in headers if k not in omit]
    headers += list(extra)
    if chunked:
        headers.append(("Transfer-Encoding", "chunked"))
        half = len(body_bytes) // 2
        payload = b""
        for chunk in (body_bytes[:half], body_bytes[half:]):
            if chunk:
                payload += b"%x\r\n" % len(chunk) + chunk + b"\r\n"
        payload += b"0\r\n\r\n"
    else:
        length = len(body_bytes) if content_length is None else content_length
        headers.append(("Content-Length", str(length)))
        payload = body_bytes
    head = "%s %s %s\r\n" % (method, target, version)
    head += "".join("%s: %s\r\n" % (k, v) for k, v in headers)
    return head.encode() + b"\r\n" + payload


def raw(name, *requests, tight=False):
    write("request_path", name, (b"R" if tight else b"P") + b"".join(requests))


def request_path_seeds():
    # Every operation and outcome of sections 5 to 7 and 14.
    raw("activate-new-machine", request("activate", body(0, "machine-new-1", "Studio Mac")))
    raw("activate-known-machine-refresh", request("activate", body(0, "machine-0001", "Renamed")))
    raw("activate-cap-reached-1705", request("activate", body(1, "machine-new-2")))
    raw("activate-suspended-1704", request("activate", body(2, "machine-new-3")))
    raw("activate-expired-1704", request("activate", body(3, "machine-new-4")))
    raw("activate-deleted-1703", request("activate", body(4, "machine-new-5")))
    raw("activate-unknown-1703", request("activate", body(7, "machine-new-6")))
    raw("activate-reclaims-stale", request("activate", body(5, "machine-new-7", None)))
    raw("activate-bound-key-own-product",
        request("activate", body(6, "machine-new-8"), key_id=BOUND_KEY_ID, secret=BOUND_SECRET))
    raw("activate-bound-key-other-product-1703",
        request("activate", body(0, "machine-new-9"), key_id=BOUND_KEY_ID, secret=BOUND_SECRET))
    raw("activate-clear-name", request("activate", body(0, "machine-0001", "")))
    raw("activate-uppercase-key",
        request("activate", '{"licenseKey":"%s","machineId":"machine-0001"}' % LICENSES[0].upper()))
    raw("heartbeat-ok", request("heartbeat", body(0, "machine-0001")))
    raw("heartbeat-not-activated-1707", request("heartbeat", body(0, "machine-none")))
    raw("heartbeat-suspended-1704", request("heartbeat", body(2, "machine-0002")))
    raw("heartbeat-stale-machine", request("heartbeat", body(5, "stale-machine-1")))
    raw("status-with-machine", request("status", body(0, "machine-0001")))
    raw("status-without-machine", request("status", body(0)))
    raw("status-suspended", request("status", body(2, "machine-0002")))
    raw("status-expired", request("status", body(3)))
    raw("deactivate-ok", request("deactivate", body(0, "machine-0001")))
    raw("deactivate-suspended-ok", request("deactivate", body(2, "machine-0002")))
    raw("deactivate-not-activated-1707", request("deactivate", body(0, "machine-none")))

    # Pipelining and connection handling.
    raw("pipelined-lifecycle",
        request("activate", body(0, "machine-pipe-1", "Pipe")),
        request("heartbeat", body(0, "machine-pipe-1")),
        request("status", body(0, "machine-pipe-1")),
        request("deactivate", body(0, "machine-pipe-1")),
        request("heartbeat", body(0, "machine-pipe-1")))
    raw("pipelined-fill-cap",
        request("activate", body(0, "machine-cap-1")),
        request("activate", body(0, "machine-cap-2")),
        request("deactivate", body(0, "machine-0001")),
        request("activate", body(0, "machine-cap-2")))
    replay = request("status", body(0))
    raw("pipelined-replay-nonce-reused", replay, replay)
    raw("pipelined-after-close",
        request("status", body(0), extra=[("Connection", "close")]), request("status", body(0)))
    raw("http10", request("status", body(0), version="HTTP/1.0"))
    raw("http10-keep-alive",
        request("status", body(0), version="HTTP/1.0", extra=[("Connection", "keep-alive")]),
        request("status", body(0), version="HTTP/1.0"))
    raw("proxy-prefix-and-query", request("status", body(0), target="/edge/api/v1/license/status?x=1"))
    raw("chunked-body", request("activate", body(0, "machine-chunk-1"), chunked=True))
    raw("forwarded-for", request("status", body(0), extra=[("X-Forwarded-For", "203.0.113.9")]))
    raw("timestamp-ahead-durable-nonce", request("activate", body(0, "machine-ahead-1"), ts=NOW + 5))
    raw("timestamp-ahead-bad-body", request("activate", "{}", ts=NOW + 5))
    raw("incomplete-header", request("status", body(0))[:40])
    raw("incomplete-body", request("status", body(0))[:-5])

    # Check 1 and 2, and the HTTP-level refusals.
    raw("404-unknown-path", request("activate", body(0, "machine-0001"), target="/api/v1/license/nope"))
    raw("404-outside-api", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    raw("405-get", request("status", body(0), method="GET"))
    raw("405-get-no-body-keep-alive",
        b"GET /api/v1/license/status HTTP/1.1\r\nHost: x\r\n\r\n", request("status", body(0)))
    raw("413-declared", request("activate", body(0, "m" * 20), content_length=16385))
    raw("413-chunked", request("activate", '{"licenseKey":"' + "a" * 17000 + '"}', chunked=True))
    raw("431-header", request("status", body(0), extra=[("X-Filler", "f" * 9000)]))
    raw("400-garbage", b"GARBAGE\r\n\r\n")
    raw("400-bad-version", b"POST /api/v1/license/status HTTP/9.9\r\nHost: x\r\n\r\n")
    raw("400-bad-content-length",
        b"POST /api/v1/license/status HTTP/1.1\r\nContent-Length: -1\r\n\r\n")
    raw("400-tls-hello", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")

    # docs/protocol.md §3.5: each signing refusal, in the contract's order.
    for header in ("X-License-Key-Id", "X-License-Timestamp", "X-License-Nonce",
                   "X-License-Signature"):
        raw("401-missing-" + header.lower(), request("status", body(0), omit=(header,)))
    raw("401-malformed-key-id", request("status", body(0), replace={"X-License-Key-Id": "bad/key"}))
    raw("401-malformed-timestamp-leading-zero",
        request("status", body(0), replace={"X-License-Timestamp": "0%d" % NOW}))
    raw("401-malformed-nonce-short", request("status", body(0), nonce="short-nonce"))
    raw("401-malformed-signature",
        request("status", body(0), replace={"X-License-Signature": "v1=abc"}))
    raw("401-unknown-key", request("status", body(0), key_id="nobody", secret="x"))
    raw("401-stale-past", request("status", body(0), ts=NOW - 301))
    raw("401-stale-future", request("status", body(0), ts=NOW + 301))
    raw("401-stale-before-start", request("status", body(0), ts=NOW - 101))
    raw("401-stale-timestamp-beyond-int64", request("status", body(0), ts="1" + "0" * 25))
    raw("401-window-edge-ahead-ok", request("status", body(0), ts=NOW + 300))
    raw("401-signature-mismatch", request("status", body(0), secret="wrong-secret"))
    raw("401-signature-over-other-path", request("status", body(0), signed_path="/api/v1/license/activate"))

    # docs/protocol.md §4: body refusals behind a valid signature.
    raw("400-content-type-text", request("status", body(0), content_type="text/plain"))
    raw("400-content-type-missing", request("status", body(0), content_type=None))
    raw("400-content-type-latin1", request("status", body(0), content_type="application/json; charset=latin1"))
    raw("ok-content-type-charset", request("status", body(0), content_type="application/json; charset=UTF-8"))
    raw("400-empty-body", request("status", ""))
    raw("400-not-json", request("status", "{licenseKey:1}"))
    raw("400-duplicate", request("status", '{"licenseKey":"%s","licenseKey":"%s"}' % (LICENSES[0], LICENSES[1])))
    raw("400-lone-surrogate", request("activate", body(0, "machine-\\ud800-x").replace("\\\\", "\\")))
    raw("400-wrong-type", request("activate", '{"licenseKey":"%s","machineId":12345678}' % LICENSES[0]))
    raw("400-missing-machine-id", request("heartbeat", body(0)))
    raw("400-machine-id-short", request("activate", body(0, "1234567")))
    raw("400-machine-name-long", request("activate", body(0, "machine-0001", "n" * 101)))
    raw("400-control-char", request("activate", body(0, "machine\u0085-0001")))

    # RFC 9110 9.3.2: an answer to HEAD has a header and no body, pipelined or not.
    raw("405-head-then-status",
        b"HEAD /api/v1/license/status HTTP/1.1\r\nHost: x\r\n\r\n", request("status", body(0)))

    # docs/protocol.md §11: both buckets (tight limits: ip 4/1h, key 2/1h).
    raw("429-key", *[request("status", body(0)) for _ in range(3)], tight=True)
    raw("429-ip", *[request("status", body(i)) for i in range(5)], tight=True)


# ---- request_path: structured inputs (see request_path_fuzzer.cpp) -------------------------

def structured(name, *, endpoint=0, proxied=False, key=0, wrong_path=False, get=False,
               twice=False, offset=0, content_type=0, http10=False, chunked=False, close=False,
               raw_body=False, license=0, upper=False, name_mode=0, omit_id=False,
               extra=b"", payload=b"", tight=False):
    a = endpoint | proxied << 2 | key << 3 | wrong_path << 5 | get << 6 | twice << 7
    b = offset | content_type << 3 | http10 << 5 | chunked << 6 | close << 7
    c = raw_body << 7 | license | upper << 3 | name_mode << 4 | omit_id << 6
    data = bytes([ord("S" if tight else "Q"), a, b, c, len(extra)]) + extra + payload
    write("request_path", "structured-" + name, data)


def request_path_structured_seeds():
    structured("activate", endpoint=0, license=0, name_mode=1, payload=b"machine-s-0001\nStudio")
    structured("activate-refresh", endpoint=0, license=0, payload=b"machine-0001")
    structured("activate-cap", endpoint=0, license=1, payload=b"machine-s-0002")
    structured("activate-reclaim", endpoint=0, license=5, payload=b"machine-s-0003")
    structured("activate-null-name", endpoint=0, license=0, name_mode=2, payload=b"machine-0001")
    structured("activate-clear-name", endpoint=0, license=0, name_mode=3, payload=b"machine-0001")
    structured("heartbeat", endpoint=1, license=0, payload=b"machine-0001")
    structured("heartbeat-upper-key", endpoint=1, license=0, upper=True, payload=b"machine-0001")
    structured("status-no-machine", endpoint=2, license=2, omit_id=True)
    structured("status-expired", endpoint=2, license=3, payload=b"machine-0003")
    structured("deactivate", endpoint=3, license=2, payload=b"machine-0002")
    structured("deactivate-other-product", endpoint=3, license=6, payload=b"machine-0006")
    structured("bound-key", endpoint=0, key=2, license=6, payload=b"machine-s-0004")
    structured("wrong-secret", endpoint=2, key=3, license=0, omit_id=True)
    structured("wrong-path", endpoint=2, wrong_path=True, license=0, omit_id=True)
    structured("get-405", endpoint=2, get=True, license=0, omit_id=True)
    structured("replay", endpoint=2, twice=True, license=0, omit_id=True)
    structured("replay-closed", endpoint=2, twice=True, close=True, license=0, omit_id=True)
    structured("http10-chunked", endpoint=0, http10=True, chunked=True, license=0,
               payload=b"machine-s-0005")
    structured("proxied", endpoint=1, proxied=True, license=0, payload=b"machine-0001")
    structured("ahead", endpoint=0, offset=4, license=0, payload=b"machine-s-0006")
    structured("before-start", endpoint=2, offset=5, license=0, omit_id=True)
    structured("stale", endpoint=2, offset=7, license=0, omit_id=True)
    structured("text-plain", endpoint=2, content_type=2, license=0, omit_id=True)
    structured("no-content-type", endpoint=2, content_type=3, license=0, omit_id=True)
    structured("raw-body", endpoint=2, raw_body=True,
               payload=('{"licenseKey":"%s","machineId":null,"x":[1,{"y":2}]}' % LICENSES[0]).encode())
    structured("raw-body-duplicate", endpoint=2, raw_body=True,
               payload=('{"licenseKey":"%s","a":{"b":1,"\\u0062":2}}' % LICENSES[0]).encode())
    structured("extra-headers", endpoint=2, license=0, omit_id=True,
               extra=b"X-Forwarded-For: 203.0.113.1\r\nAccept: */*\r\n")
    structured("extra-duplicate-nonce", endpoint=2, license=0, omit_id=True,
               extra=b"X-License-Nonce: another-nonce-000001\r\n")
    structured("multibyte-machine", endpoint=0, license=0, name_mode=1,
               payload="машина-studio-01\n名前".encode())
    structured("tight-limits-replay", endpoint=2, twice=True, license=0, omit_id=True, tight=True)


# ---- request_body ------------------------------------------------------------------------

def request_body_seeds():
    key = LICENSES[0]

    def b(name, endpoint, text, content_type=None):
        data = text.encode() if isinstance(text, str) else text
        # Endpoint 8 is trial: byte 0 '8' ('<' with a Content-Type line).
        first = chr(ord("0") + endpoint + (4 if content_type is not None else 0)).encode()
        if content_type is None:
            write("request_body", name, first + data)
        else:
            write("request_body", name, first + content_type.encode() + b"\n" + data)

    # Trial bodies (docs/protocol.md §20): product, machineId, machineName?, email?.
    b("trial-full", 8, '{"product":"reverb","machineId":"machine-0001","machineName":"Studio",'
                       '"email":"Ann@Example.com"}')
    b("trial-minimal", 8, '{"product":"reverb","machineId":"machine-0001"}')
    b("trial-null-email", 8, '{"product":"reverb","machineId":"machine-0001","email":null}')
    b("trial-bad-email", 8, '{"product":"reverb","machineId":"machine-0001","email":"no-at"}')
    b("trial-bad-product", 8, '{"product":"Reverb Pro","machineId":"machine-0001"}')
    b("trial-no-machine", 8, '{"product":"reverb"}')
    b("trial-license-key-ignored", 8, '{"product":"reverb","machineId":"machine-0001",'
                                      '"licenseKey":"%s"}' % key)
    b("trial-duplicate-email", 8, '{"product":"reverb","machineId":"machine-0001",'
                                  '"email":"a@b.c","email":"d@e.f"}')
    b("trial-content-type", 8, '{"product":"reverb","machineId":"machine-0001"}',
      content_type="application/json; charset=utf-8")

    b("activate-full", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":"Studio PC"}' % key)
    b("activate-no-name", 0, '{"licenseKey":"%s","machineId":"machine-0001"}' % key)
    b("activate-null-name", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":null}' % key)
    b("activate-empty-name", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":""}' % key)
    b("heartbeat", 1, '{"licenseKey":"%s","machineId":"machine-0001"}' % key)
    b("status-no-machine", 2, '{"licenseKey":"%s"}' % key)
    b("status-null-machine", 2, '{"licenseKey":"%s","machineId":null}' % key)
    b("deactivate", 3, '{"licenseKey":"%s","machineId":"machine-0001"}' % key)
    b("heartbeat-name-ignored", 1, '{"licenseKey":"%s","machineId":"machine-0001","machineName":5}' % key)
    b("unknown-members", 0, '{"x":[1,2,{"y":null}],"licenseKey":"%s","machineId":"machine-0001","z":true}' % key)
    b("whitespace", 2, ' \t\r\n{ "licenseKey" : "%s" } \n' % key)
    # licenseKey rules.
    b("key-uppercase", 2, '{"licenseKey":"%s"}' % key.upper())
    b("key-variant-b", 2, '{"licenseKey":"44444444-4444-4444-B444-444444444444"}')
    b("key-version-1", 2, '{"licenseKey":"11111111-1111-1111-8111-111111111111"}')
    b("key-variant-c", 2, '{"licenseKey":"11111111-1111-4111-c111-111111111111"}')
    b("key-no-dashes", 2, '{"licenseKey":"11111111111141118111111111111111"}')
    b("key-braces", 2, '{"licenseKey":"{11111111-1111-4111-8111-111111111111}"}')
    b("key-number", 2, '{"licenseKey":1}')
    b("key-missing", 2, '{"machineId":"machine-0001"}')
    b("key-null", 2, '{"licenseKey":null}')
    b("key-escaped", 2, '{"licenseKey":"\\u0031111111-1111-4111-8111-111111111111"}')
    # machineId and machineName rules (code points, not bytes; control characters).
    b("machine-id-8", 1, '{"licenseKey":"%s","machineId":"12345678"}' % key)
    b("machine-id-7", 1, '{"licenseKey":"%s","machineId":"1234567"}' % key)
    b("machine-id-128", 1, '{"licenseKey":"%s","machineId":"%s"}' % (key, "i" * 128))
    b("machine-id-129", 1, '{"licenseKey":"%s","machineId":"%s"}' % (key, "i" * 129))
    b("machine-id-128-emoji", 1, '{"licenseKey":"%s","machineId":"%s"}' % (key, "\U0001F3B9" * 128))
    b("machine-id-8-cyrillic", 1, '{"licenseKey":"%s","machineId":"%s"}' % (key, "машина01"))
    b("machine-id-surrogate-pair", 1, '{"licenseKey":"%s","machineId":"machine-\\ud83c\\udfb9"}' % key)
    b("machine-id-nul-escape", 1, '{"licenseKey":"%s","machineId":"machine\\u0000001"}' % key)
    b("machine-id-del", 1, '{"licenseKey":"%s","machineId":"machine\x7f0001"}' % key)
    b("machine-id-c1", 1, '{"licenseKey":"%s","machineId":"machine\u00850001"}' % key)
    b("machine-id-a0-ok", 1, '{"licenseKey":"%s","machineId":"machine\u00a00001"}' % key)
    b("machine-id-tab", 1, '{"licenseKey":"%s","machineId":"machine\\t0001"}' % key)
    b("machine-id-array", 1, '{"licenseKey":"%s","machineId":["machine-0001"]}' % key)
    b("machine-id-object", 1, '{"licenseKey":"%s","machineId":{"a":1}}' % key)
    b("machine-id-bool", 1, '{"licenseKey":"%s","machineId":true}' % key)
    b("machine-id-float", 1, '{"licenseKey":"%s","machineId":1.5e300}' % key)
    b("machine-name-100", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":"%s"}' % (key, "\u00e9" * 100))
    b("machine-name-101", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":"%s"}' % (key, "n" * 101))
    b("machine-name-control", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":"a\\u001fb"}' % key)
    b("machine-name-number", 0, '{"licenseKey":"%s","machineId":"machine-0001","machineName":7}' % key)
    # Whole-body rules: JSON, UTF-8, duplicates, one object.
    b("empty", 2, "")
    b("only-whitespace", 2, "  \n")
    b("top-level-array", 2, '[{"licenseKey":"%s"}]' % key)
    b("top-level-string", 2, '"x"')
    b("trailing-data", 2, '{"licenseKey":"%s"} {}' % key)
    b("trailing-comma", 2, '{"licenseKey":"%s",}' % key)
    b("comment", 2, '{"licenseKey":"%s"/* c */}' % key)
    b("truncated", 2, '{"licenseKey":"%s"' % key)
    b("duplicate-top", 2, '{"licenseKey":"%s","licenseKey":"%s"}' % (key, LICENSES[1]))
    b("duplicate-escaped", 2, '{"licenseKey":"%s","\\u006cicenseKey":"%s"}' % (key, key))
    b("duplicate-nested", 2, '{"licenseKey":"%s","a":{"b":1,"b":2}}' % key)
    b("duplicate-in-array", 2, '{"licenseKey":"%s","a":[{"b":1},{"b":1,"b":1}]}' % key)
    b("lone-high-surrogate", 1, '{"licenseKey":"%s","machineId":"machine-\\ud800x"}' % key)
    b("lone-low-surrogate", 1, '{"licenseKey":"%s","machineId":"machine-\\udc00x"}' % key)
    b("invalid-utf8", 1, b'{"licenseKey":"' + key.encode() + b'","machineId":"machine-\xff\xfe01"}')
    b("overlong-utf8", 1, b'{"licenseKey":"' + key.encode() + b'","machineId":"machine-\xc0\xaf01"}')
    b("encoded-surrogate", 1, b'{"licenseKey":"' + key.encode() + b'","machineId":"machine-\xed\xa0\x80x"}')
    b("utf8-in-key-name", 2, b'{"licenseKey":"' + key.encode() + b'","\xc3\xa9":1}')
    b("bom", 2, b"\xef\xbb\xbf" + ('{"licenseKey":"%s"}' % key).encode())
    b("deep-32", 2, '{"licenseKey":"%s","a":%s1%s}' % (key, "[" * 30, "]" * 30))
    b("deep-33", 2, '{"licenseKey":"%s","a":%s1%s}' % (key, "[" * 32, "]" * 32))
    b("big-numbers", 2, '{"licenseKey":"%s","n":[-0,1e999,18446744073709551616,-9223372036854775809]}' % key)
    b("escapes", 0, '{"licenseKey":"%s","machineId":"m\\"\\\\\\/\\b\\f\\n\\r\\tachine","machineName":"\\u00e9\\u4e2d"}' % key)
    # Content-Type (check_body).
    ok = '{"licenseKey":"%s"}' % key
    b("ct-json", 2, ok, "application/json")
    b("ct-charset", 2, ok, "application/json; charset=utf-8")
    b("ct-upper", 2, ok, "APPLICATION/JSON; CHARSET=UTF-8")
    b("ct-quoted-charset", 2, ok, 'application/json;charset="utf-8"')
    b("ct-other-param", 2, ok, "application/json; v=1; ;")
    b("ct-latin1", 2, ok, "application/json; charset=latin1")
    b("ct-text", 2, ok, "text/plain")
    b("ct-json-suffix", 2, ok, "application/vnd.api+json")
    b("ct-bad-param", 2, ok, "application/json; charset")
    b("ct-unterminated-quote", 2, ok, 'application/json; charset="utf-8')
    b("ct-empty", 2, ok, "")


# ---- signing_headers ---------------------------------------------------------------------

def signing_headers_seeds():
    sig = "v1=" + "0123456789abcdef" * 4

    def s(name, key_id=KEY_ID, ts=str(NOW), nonce="0123456789abcdef0123456789abcdef", signature=sig):
        write("signing_headers", name, "\n".join([key_id, ts, nonce, signature]))

    s("valid")
    s("valid-uppercase-hex", signature=sig.upper().replace("V1=", "v1="))
    s("valid-key-id-charset", key_id="Plugin_2026.key-1")
    s("valid-key-id-64", key_id="k" * 64)
    s("valid-nonce-16", nonce="abcdefghijklmnop")
    s("valid-nonce-128", nonce="n" * 128)
    s("valid-timestamp-0", ts="0")
    for i, header in enumerate(["key-id", "timestamp", "nonce", "signature"]):
        parts = [KEY_ID, str(NOW), "0123456789abcdef0123456789abcdef", sig]
        parts[i] = "!"
        write("signing_headers", "missing-" + header, "\n".join(parts))
    write("signing_headers", "missing-all-but-key-id", KEY_ID)
    s("key-id-empty", key_id="")
    s("key-id-65", key_id="k" * 65)
    s("key-id-slash", key_id="bad/key")
    s("key-id-space", key_id="bad key")
    s("timestamp-leading-zero", ts="0" + str(NOW))
    s("timestamp-plus", ts="+" + str(NOW))
    s("timestamp-minus", ts="-" + str(NOW))
    s("timestamp-exponent", ts="1e9")
    s("timestamp-fraction", ts=str(NOW) + ".0")
    s("timestamp-18-digits", ts="9" * 18)
    s("timestamp-beyond-int64", ts="9223372036854775808")
    s("timestamp-empty", ts="")
    s("nonce-15", nonce="n" * 15)
    s("nonce-129", nonce="n" * 129)
    s("nonce-dot", nonce="abcdefgh.ijklmnop")
    s("signature-v2", signature="v2=" + sig[3:])
    s("signature-upper-prefix", signature="V1=" + sig[3:])
    s("signature-63", signature=sig[:-1])
    s("signature-65", signature=sig + "0")
    s("signature-not-hex", signature=sig[:-1] + "g")


def main():
    for target in ("request_path", "request_body", "signing_headers"):
        d = ROOT / target
        d.mkdir(parents=True, exist_ok=True)
        for f in d.iterdir():
            if not f.name.startswith("regression-"):
                f.unlink()
    request_path_seeds()
    request_path_structured_seeds()
    request_body_seeds()
    signing_headers_seeds()
    for target in ("request_path", "request_body", "signing_headers"):
        files = list((ROOT / target).iterdir())
        print("%s: %d seeds, %d bytes" % (target, len(files), sum(f.stat().st_size for f in files)))


if __name__ == "__main__":
    main()
