// Signs the License API's answers (docs/protocol.md §13) with the response keys: per
// algorithm (Ed25519, ES256), the first key of that algorithm signs; every key is
// published so clients can move to the next one before it signs. The caller chooses the
// algorithm (choose_response_algorithm, auth/accept_signature.h, for an answer), so files
// and trees can sign with the one their request asked for too. Immutable after
// construction and shared by every network and store thread: sign() is called from many
// threads at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/response_key.h"

namespace licensed {

class ResponseSigner {
 public:
  // `keys` must not be empty; per algorithm the first of that algorithm signs. They are
  // published in this order.
  explicit ResponseSigner(std::vector<ResponseKey> keys);

  const std::vector<ResponseKey>& keys() const { return keys_; }
  // The algorithms there is a key for: Ed25519 first when there is one.
  const std::vector<ResponseAlgorithm>& algorithms() const { return algorithms_; }
  // The key that signs in `algorithm`; nullptr when there is none of that algorithm.
  const ResponseKey* signing_key(ResponseAlgorithm algorithm) const;

  // The X-License-Response-Signature value (plain form) for an answer with this status
  // and body, signed in `algorithm` at Unix time `t`, to a request whose valid signature
  // was `request_signature` (64 lowercase hex digits; nullopt binds to "-"). Nullopt
  // when there is no key of that algorithm, or signing fails (OpenSSL, for ES256).
  std::optional<std::string> sign(ResponseAlgorithm algorithm,
                                  std::optional<std::string_view> request_signature,
                                  unsigned status, int64_t t, std::string_view body) const;
  // The raw signature of `message` by the key that signs in `algorithm`: Ed25519's 64
  // bytes (libsodium), or ES256's r || s over its SHA-256 (OpenSSL).
  std::optional<RawResponseSignature> sign_message(ResponseAlgorithm algorithm,
                                                   std::string_view message) const;

 private:
  std::vector<ResponseKey> keys_;
  std::vector<ResponseAlgorithm> algorithms_;
};

}  // namespace licensed
