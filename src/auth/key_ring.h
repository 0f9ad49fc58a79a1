// The server's set of live HMAC signing keys {id -> secret}, with optional product
// bindings. Shared by every network thread, which read it at once (find, and the keys'
// pre-keyed HMACs); replace() swaps in a new set (SIGHUP) without stopping them.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "auth/request_signature.h"
#include "core/mutex.h"

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

  // nullptr for an unknown id. The key stays valid for the ring's life, across replace().
  const SigningKey* find(std::string_view id) const;
  // A key no client holds; verifying against it makes an unknown key id cost the same
  // HMAC work as a known one.
  const SigningKey& decoy() const { return decoy_; }
  size_t size() const { return current_.load()->size(); }
  // The keys in force from now on. A request that found a key of the old set keeps
  // using it: old sets are kept until the ring ends, which costs a few hundred bytes
  // per reload of an operator's.
  void replace(const std::vector<SigningKeyConfig>& keys) EXCLUDES(mu_);

 private:
  using Keys = std::unordered_map<std::string, SigningKey>;
  static std::unique_ptr<Keys> make_keys(const std::vector<SigningKeyConfig>& keys);

  std::atomic<const Keys*> current_{nullptr};
  Mutex mu_;
  std::vector<std::unique_ptr<Keys>> sets_ GUARDED_BY(mu_);  // every set, the current last
  SigningKey decoy_;
};

}  // namespace licensed
