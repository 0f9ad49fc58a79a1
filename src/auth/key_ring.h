// The server's set of live HMAC signing keys {id -> secret}, with optional product
// bindings. Immutable after construction; shared by every network thread, which read it
// at once (find, and the keys' pre-keyed HMACs).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "auth/request_signature.h"

namespace licensed {

struct SigningKeyConfig {
  std::string id;
  std::string secret;
  std::vector<std::string> products;  // empty: valid for every product
};

struct SigningKey {
  std::string id;
  std::vector<std::string> products;
  std::unique_ptr<HmacSha256> mac;

  bool allows_product(std::string_view slug) const;
};

class KeyRing {
 public:
  explicit KeyRing(const std::vector<SigningKeyConfig>& keys);

  // nullptr for an unknown id.
  const SigningKey* find(std::string_view id) const;
  // A key no client holds; verifying against it makes an unknown key id cost the same
  // HMAC work as a known one.
  const SigningKey& decoy() const { return decoy_; }
  size_t size() const { return keys_.size(); }

 private:
  std::unordered_map<std::string, SigningKey> keys_;
  SigningKey decoy_;
};

}  // namespace licensed
