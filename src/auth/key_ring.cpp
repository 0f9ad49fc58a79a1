#include "auth/key_ring.h"

#include <openssl/rand.h>

#include <algorithm>

namespace licensed {

bool SigningKey::allows_product(std::string_view slug) const {
  return products.empty() || std::find(products.begin(), products.end(), slug) != products.end();
}

KeyRing::KeyRing(const std::vector<SigningKeyConfig>& keys) {
  for (const auto& k : keys) {
    SigningKey key{k.id, k.products, std::make_unique<HmacSha256>(k.secret)};
    keys_.insert_or_assign(k.id, std::move(key));
  }
  unsigned char random_secret[32];
  RAND_bytes(random_secret, sizeof random_secret);
  decoy_.id = "";
  decoy_.mac = std::make_unique<HmacSha256>(
      std::string_view(reinterpret_cast<const char*>(random_secret), sizeof random_secret));
}

const SigningKey* KeyRing::find(std::string_view id) const {
  const auto it = keys_.find(std::string(id));
  return it == keys_.end() ? nullptr : &it->second;
}

}  // namespace licensed
