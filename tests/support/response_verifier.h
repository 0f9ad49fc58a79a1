// The client side of signed responses (docs/protocol.md §13, v2-response), written from the
// contract alone with OpenSSL, not with the server's code: the signing string, the plain
// header form, and Ed25519 and ES256 (§13.4) verification against a published public key.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "support/http_client.h"

namespace bb {

inline constexpr std::string_view kResponseSignature = "X-License-Response-Signature";

// Standard base64 with padding; Base64Decode is nullopt unless `text` is exactly that.
std::string Base64Encode(std::string_view bytes);
std::optional<std::string> Base64Decode(std::string_view text);

// "v2-response\n<request signature or ->\n<status>\n<t>\n<lowercase hex SHA-256 of body>".
std::string ResponseSigningString(std::optional<std::string_view> request_signature, int status,
                                  std::string_view t, std::string_view body);
// The 64 lowercase hex digits of a request's X-License-Signature ("v1=<hex>"): what an
// answer to it is bound to.
std::string BoundTo(const HttpRequest& request);
// "<alg>-" + the first 16 hex digits of SHA-256(raw public key): the kid rule the
// server documents, for a base64 public key ("ed25519" or "es256").
std::string KidOf(std::string_view public_key_base64, std::string_view alg = "ed25519");

// Success when `r` carries "kid=<kid>, t=<t>, ed25519=<base64>" whose signature, by the
// raw Ed25519 key `public_key_base64`, covers `request_signature` (nullopt: "-"), r's
// status, t and its body bytes; and, when `kid` is given, names it.
::testing::AssertionResult SignedFor(const HttpResponse& r, std::string_view public_key_base64,
                                     std::optional<std::string_view> request_signature,
                                     std::optional<std::string_view> kid = std::nullopt);

// The same for "kid=<kid>, t=<t>, es256=<base64 of r || s>": an ECDSA P-256 signature
// with SHA-256 by the key whose 65-byte uncompressed point is `public_key_base64`.
::testing::AssertionResult Es256SignedFor(const HttpResponse& r, std::string_view public_key_base64,
                                          std::optional<std::string_view> request_signature,
                                          std::optional<std::string_view> kid = std::nullopt);

}  // namespace bb
