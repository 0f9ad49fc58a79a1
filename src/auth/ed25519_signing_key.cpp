#include "auth/ed25519_signing_key.h"

#include <sodium.h>

namespace licensed {

// libsodium's secret key: the seed followed by the public key.
struct Ed25519SigningKey::Secret {
  unsigned char bytes[crypto_sign_SECRETKEYBYTES];
};

void Ed25519SigningKey::SecretFree::operator()(Secret* s) const {
  sodium_free(s);  // wipes it first
}

std::optional<Ed25519SigningKey> Ed25519SigningKey::from_seed(std::span<const uint8_t, 32> seed) {
  static_assert(crypto_sign_SEEDBYTES == 32 && crypto_sign_BYTES == 64);
  // Safe to call from any thread and more than once; after the first call it only answers.
  if (sodium_init() < 0) return std::nullopt;
  auto* secret = static_cast<Secret*>(sodium_malloc(sizeof(Secret)));
  if (secret == nullptr) return std::nullopt;
  std::shared_ptr<Secret> owned(secret, SecretFree{});
  unsigned char public_key[crypto_sign_PUBLICKEYBYTES];
  if (crypto_sign_seed_keypair(public_key, owned->bytes, seed.data()) != 0) return std::nullopt;
  // Read-only from now on: a stray write faults instead of changing the key.
  sodium_mprotect_readonly(owned.get());
  return Ed25519SigningKey(std::move(owned));
}

std::array<uint8_t, 64> Ed25519SigningKey::sign(std::string_view message) const {
  std::array<uint8_t, 64> signature{};
  // Cannot fail for a valid secret key (it returns -1 only for an over-long message,
  // beyond any answer's size).
  crypto_sign_detached(signature.data(), nullptr,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                       secret_->bytes);
  return signature;
}

}  // namespace licensed
