// Signed responses (spec section 13): the string the server signs with Ed25519, the
// X-License-Response-Signature header, the key id rule, and verification. Everything a
// client needs and nothing that touches a private key, so the SDK and licensectl link
// this file as it is and verify exactly what the server signs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace licensed {

inline constexpr std::string_view kResponseSignatureHeader = "X-License-Response-Signature";

using Ed25519PublicKey = std::array<uint8_t, 32>;  // raw, as in RFC 8032
using Ed25519Signature = std::array<uint8_t, 64>;

// "v1-response\n<nonce or ->\n<status>\n<Date header>\n<lowercase hex SHA-256 of body>".
// `nonce` is the request's X-License-Nonce as sent; nullopt when it had none ("-").
std::string response_signing_string(std::optional<std::string_view> nonce, unsigned status,
                                    std::string_view date, std::string_view body);

// The key id: "ed25519-" followed by the first 16 lowercase hex digits of the SHA-256 of
// the raw 32-byte public key. Derived, never configured, so the same key has the same id
// on every server and after every restart, and a client can recompute it from the key it
// pinned.
std::string response_key_id(const Ed25519PublicKey& public_key);

// "kid=<kid>, ed25519=<base64 of the 64 signature bytes>".
std::string format_response_signature(std::string_view kid, const Ed25519Signature& signature);

struct ParsedResponseSignature {
  std::string kid;
  Ed25519Signature signature{};
};
// Strict: exactly "kid=" + 1-64 of [A-Za-z0-9._-] + ", ed25519=" + canonical padded
// base64 of 64 bytes; anything else (other spacing, order, extra parameters) is nullopt.
std::optional<ParsedResponseSignature> parse_response_signature(std::string_view header_value);

// True when `header_value` is a well-formed signature by `public_key` over this answer
// to a request that carried `nonce` (nullopt: none). The kid only helps a client that
// pins several keys pick one; it is not what makes an answer genuine, so it is not
// compared here.
bool verify_response_signature(const Ed25519PublicKey& public_key, std::string_view header_value,
                               std::optional<std::string_view> nonce, unsigned status,
                               std::string_view date, std::string_view body);

// A public key as a client is given it: base64 of the raw 32 bytes (what
// /api/v1/license/public-keys publishes), or a PEM "PUBLIC KEY" (SubjectPublicKeyInfo).
std::optional<Ed25519PublicKey> parse_response_public_key(std::string_view text);

}  // namespace licensed
