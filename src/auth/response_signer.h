// Signs the License API's answers (docs/protocol.md §13) with the first of the configured
// response keys; every key is published so clients can move to the next one before it
// signs. Immutable after construction and shared by every network and store thread:
// sign() is called from many threads at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/response_key.h"

namespace licensed {

class ResponseSigner {
 public:
  // `keys` must not be empty; the first signs.
  explicit ResponseSigner(std::vector<ResponseKey> keys);

  const std::vector<ResponseKey>& keys() const { return keys_; }
  const ResponseKey& signing_key() const { return keys_.front(); }

  // The X-License-Response-Signature value (plain form) for an answer with this status
  // and body, signed at Unix time `t`, to a request whose valid signature was
  // `request_signature` (64 lowercase hex digits; nullopt binds to "-"). Nullopt only
  // when OpenSSL fails.
  std::optional<std::string> sign(std::optional<std::string_view> request_signature,
                                  unsigned status, int64_t t, std::string_view body) const;
  // The raw Ed25519 signature of `message`.
  std::optional<Ed25519Signature> sign_message(std::string_view message) const;

 private:
  std::vector<ResponseKey> keys_;
  // Tells this signer's per-thread context from another's (tests make several).
  uint64_t id_;
};

}  // namespace licensed
