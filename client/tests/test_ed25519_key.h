// An Ed25519 key of a test's own, standing in for the server's response key: the SDK
// pins its public half, and the test signs answers or activation files with it (through
// OpenSSL, as the server signs) to put them where no server could make them.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>
#include <string_view>

#include "auth/base64.h"
#include "auth/response_signature.h"

namespace licensed::client {

class TestEd25519Key {
 public:
  TestEd25519Key() : key_(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), &EVP_PKEY_free) {
    size_t n = public_key_.size();
    EVP_PKEY_get_raw_public_key(key_.get(), public_key_.data(), &n);
  }
  std::string public_key_base64() const {
    return base64_encode(public_key_.data(), public_key_.size());
  }
  std::string key_id() const { return response_key_id(public_key_); }

  Ed25519Signature Sign(std::string_view message) const {
    Ed25519Signature sig{};
    size_t n = sig.size();
    const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(),
                                                                 &EVP_MD_CTX_free);
    EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get());
    EVP_DigestSign(ctx.get(), sig.data(), &n,
                   reinterpret_cast<const unsigned char*>(message.data()), message.size());
    return sig;
  }

 private:
  std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY*)> key_;
  Ed25519PublicKey public_key_{};
};

}  // namespace licensed::client
