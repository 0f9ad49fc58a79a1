// The client side of signed responses (spec section 13), written from the contract
// alone with OpenSSL, not with the server's code: the signing string, the strict header
// form, and Ed25519 verification against a published public key.
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

// "v1-response\n<nonce or ->\n<status>\n<date>\n<lowercase hex SHA-256 of body>".
std::string ResponseSigningString(std::optional<std::string_view> nonce, int status,
                                  std::string_view date, std::string_view body);
// "ed25519-" + the first 16 hex digits of SHA-256(raw public key): the kid rule the
// server documents, for a base64 public key.
std::string KidOf(std::string_view public_key_base64);

// Success when `r` carries "kid=<kid>, ed25519=<base64>" whose signature, by the raw
// Ed25519 key `public_key_base64`, covers `nonce` (nullopt: "-"), r's status, its Date
// header exactly as received and its body bytes; and, when `kid` is given, names it.
::testing::AssertionResult SignedFor(const HttpResponse& r, std::string_view public_key_base64,
                                     std::optional<std::string_view> nonce,
                                     std::optional<std::string_view> kid = std::nullopt);

}  // namespace bb
