// An Ed25519 private key the server signs its answers with (docs/protocol.md §13): loaded
// from a PKCS#8 PEM file (--response-key), generated (`licensed admin response-key
// generate`, or the store's default key on first start), and written back as PEM.
// Immutable and cheap to copy: copies share one loaded EVP_PKEY.
#pragma once

#include <openssl/types.h>

#include <memory>
#include <string>
#include <string_view>

#include "auth/response_signature.h"
#include "core/result.h"

namespace licensed {

class ResponseKey {
 public:
  // `source` names where the text came from in error messages (a file, "the store").
  // Messages never quote the text: it is a private key.
  static Result<ResponseKey> from_pem(std::string_view pem, std::string_view source);
  static Result<ResponseKey> load_file(const std::string& path);
  static Result<ResponseKey> generate();

  // PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), unencrypted.
  Result<std::string> to_pem() const;
  // Creates `path` with mode 0600 and writes to_pem() into it; refuses an existing file.
  Status write_new_file(const std::string& path) const;

  const std::string& kid() const { return kid_; }
  const Ed25519PublicKey& public_key() const { return public_key_; }
  // Base64 of the raw public key, as /api/v1/license/public-keys publishes it.
  std::string public_key_base64() const;
  EVP_PKEY* pkey() const { return pkey_.get(); }

 private:
  static Result<ResponseKey> from_pkey(EVP_PKEY* owned, std::string_view source);
  std::shared_ptr<EVP_PKEY> pkey_;
  Ed25519PublicKey public_key_{};
  std::string kid_;
};

}  // namespace licensed
