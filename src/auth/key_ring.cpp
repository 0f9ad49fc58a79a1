#include "auth/key_ring.h"

#include <openssl/rand.h>

#include <algorithm>

namespace licensed {

bool SigningKey::allows_product(std::string_view slug) const {
  return products.empty() || std::find(products.begin(), products.end(), slug) != products.end();
}

std::unique_ptr<KeyRing::Keys> KeyRing::make_keys(const std::vector<SigningKeyConfig>& keys) {
  auto made = std::make_unique<Keys>();
  for (const auto& k : keys) {
    SigningKey key{k.id, k.products, std::make_unique<HmacSha256>(k.secret)};
    made->insert_or_assign(k.id, std::move(key));
  }
  return made;
}

void KeyRing::replace(const std::vector<SigningKeyConfig>& keys) {
  auto next = make_keys(keys);
  MutexLock lock(mu_);
  current_.store(next.get());
  sets_.push_back(std::move(next));
}

KeyRing::KeyRing(const std::vector<SigningKeyConfig>& keys) {
  replace(keys);
  unsigned char random_secret[32];
  RAND_bytes(random_secret, sizeof random_secret);
  decoy_.id = "";
  decoy_.mac = std::make_unique<HmacSha256>(
      std::string_view(reinterpret_cast<const char*>(random_secret), sizeof random_secret));
}

const SigningKey* KeyRing::find(std::string_view id) const {
  const Keys& keys = *current_.load();
  const auto it = keys.find(std::string(id));
  return it == keys.end() ? nullptr : &it->second;
}

}  // namespace licensed
