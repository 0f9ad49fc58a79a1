// A private key the server signs its answers with (docs/protocol.md §13): Ed25519, or
// ECDSA P-256 for ES256 (§13.4). Loaded from a PKCS#8 PEM file (--response-key),
// generated (`licensed admin response-key generate [--alg]`, or the store's default keys
// on first start), and written back as PEM. Immutable and cheap to copy: copies share
// one loaded EVP_PKEY (and, for Ed25519, one key prepared for libsodium's signing).
#pragma once

#include <openssl/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/ed25519_signing_key.h"
#include "auth/response_signature.h"
#include "core/result.h"

namespace licensed {

class ResponseKey {
 public:
  // `source` names where the text came from in error messages (a file, "the store").
  // Messages never quote the text: it is a private key. Either algorithm is accepted;
  // the key says which it is.
  static Result<ResponseKey> from_pem(std::string_view pem, std::string_view source);
  static Result<ResponseKey> load_file(const std::string& path);
  static Result<ResponseKey> generate(ResponseAlgorithm algorithm);

  // PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), unencrypted.
  Result<std::string> to_pem() const;
  // Creates `path` with mode 0600 and writes to_pem() into it; refuses an existing file.
  Status write_new_file(const std::string& path) const;

  ResponseAlgorithm algorithm() const { return public_.algorithm; }
  const std::string& kid() const { return public_.kid; }
  // Raw: Ed25519's 32 bytes, or P-256's 65-byte uncompressed point.
  const std::vector<uint8_t>& public_key() const { return public_.public_key; }
  // The public half as a client pins it (kid, algorithm, raw key).
  const PinnedResponseKey& pinned() const { return public_; }
  // Base64 of the raw public key, as /api/v1/license/public-keys publishes it.
  std::string public_key_base64() const;
  EVP_PKEY* pkey() const { return pkey_.get(); }
  // An Ed25519 key, prepared for signing (ResponseSigner signs with it); null for ES256.
  const Ed25519SigningKey* ed25519_signing_key() const { return ed25519_ ? &*ed25519_ : nullptr; }

 private:
  static Result<ResponseKey> from_pkey(EVP_PKEY* owned, std::string_view source);
  std::shared_ptr<EVP_PKEY> pkey_;
  std::optional<Ed25519SigningKey> ed25519_;
  PinnedResponseKey public_;
};

}  // namespace licensed
