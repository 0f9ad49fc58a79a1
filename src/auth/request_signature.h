// Request signing, scheme v1 (docs/protocol.md §3): the canonical string and its HMAC.
// Server and SDK share this file, so both pass the same vectors; the hashing itself is
// auth/crypto_primitives.h's (OpenSSL, or Windows CNG in the SDK for Windows).
#pragma once

#include <cstdint>
#include <optional>
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

// The syntax of the signed values (docs/protocol.md §3.5), shared by the headers of a
// request and the members of an offline request file (docs/protocol.md §21.1).
// A key id: 1-64 characters of [A-Za-z0-9._-]. The server refuses to start with any
// other, since no request could name it.
bool valid_key_id(std::string_view s);
// A nonce: 16-128 characters of [A-Za-z0-9_-].
bool valid_request_nonce(std::string_view s);
// The digest a signature names: "v1=" + 64 hex digits; nullopt for anything else.
std::optional<Sha256Digest> parse_request_signature(std::string_view s);

// Constant-time equality of two digests.
bool digests_equal(const Sha256Digest& a, const Sha256Digest& b);

}  // namespace licensed
