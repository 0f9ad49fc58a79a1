// An Ed25519 private key prepared for signing with libsodium's crypto_sign_detached: the
// server's signature on its answers (docs/protocol.md §13, §13.3). libsodium signs in about
// two thirds of the time OpenSSL's EVP_DigestSign takes with a prepared context on this
// project's machines (docs/benchmarks.md, "The key prepared once"), and Ed25519 is
// deterministic, so the signatures are the same bytes either way. The 64-byte secret key
// lives in libsodium's guarded memory (locked out of swap, guard pages around it, wiped when
// freed); the ResponseKey's OpenSSL EVP_PKEY still holds the same key in OpenSSL's own
// memory, for writing it as PEM. Loading and writing keys, and ES256, stay with OpenSSL
// (response_key.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace licensed {

class Ed25519SigningKey {
 public:
  // From the key's 32-byte seed (RFC 8032's private key, what OpenSSL's raw private key
  // is). nullopt when libsodium cannot start or cannot allocate its guarded memory.
  static std::optional<Ed25519SigningKey> from_seed(std::span<const uint8_t, 32> seed);

  // The 64-byte signature of `message`.
  std::array<uint8_t, 64> sign(std::string_view message) const;

 private:
  struct Secret;
  struct SecretFree {
    void operator()(Secret* s) const;
  };
  explicit Ed25519SigningKey(std::shared_ptr<Secret> secret) : secret_(std::move(secret)) {}
  // Shared: copies of a ResponseKey share one prepared key, which is never changed.
  std::shared_ptr<Secret> secret_;
};

}  // namespace licensed
