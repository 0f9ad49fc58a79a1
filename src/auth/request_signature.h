// Request signing, scheme v1 (docs/protocol.md §3): the canonical string and its HMAC.
// Server and SDK share this file, so both pass the same vectors.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/hex.h"

namespace licensed {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
// The same digest; false only when OpenSSL fails, for callers that must fail closed.
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

// HMAC-SHA256 keyed once; each call reuses the keyed state instead of re-deriving the
// key schedule (about four times cheaper than keying per call). compute() may be called
// from several threads at once: each of the first few dozen threads keeps a working
// context of its own, reset per message; later threads copy the keyed one per call.
class HmacSha256 {
 public:
  explicit HmacSha256(std::string_view key);
  ~HmacSha256();
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;

  std::unique_ptr<HmacSha256> clone() const;
  // False only when OpenSSL fails, which callers treat as an internal error.
  bool compute(std::string_view message, Sha256Digest& out) const;

 private:
  HmacSha256() = default;
  struct State;
  std::unique_ptr<State> state_;
};

// "v1=" + lowercase hex of HMAC-SHA256(secret, canonical).
std::string sign_request(std::string_view secret, const CanonicalRequest& request);

// Constant-time equality of two digests.
bool digests_equal(const Sha256Digest& a, const Sha256Digest& b);

}  // namespace licensed
