// Request signing, scheme v1 (docs/protocol.md §3): the canonical string and its HMAC.
// Server and SDK share this file, so both pass the same vectors; the hashing itself is
// auth/crypto_primitives.h's (OpenSSL, or Windows CNG in the SDK for Windows).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "auth/crypto_primitives.h"
#include "core/hex.h"

namespace licensed {

Sha256Digest sha256(std::string_view data);
// The same digest; false only when the library fails, for callers that must fail closed.
bool try_sha256(std::string_view data, Sha256Digest& out);
inline std::string to_hex(const Sha256Digest& d) {
  return to_hex(d.data(), d.size());
}
std::string sha256_hex(std::string_view data);

struct CanonicalRequest {
  std::string_view method;
  std::string_view path;  // from /api/ on, without query string
  std::string_view key_id;
  std::string_view timestamp;
  std::string_view nonce;
  std::string_view body_sha256_hex;
};

std::string canonical_string(const CanonicalRequest& request);

// "v1=" + lowercase hex of HMAC-SHA256(secret, canonical).
std::string sign_request(std::string_view secret, const CanonicalRequest& request);

// Constant-time equality of two digests.
bool digests_equal(const Sha256Digest& a, const Sha256Digest& b);

}  // namespace licensed
