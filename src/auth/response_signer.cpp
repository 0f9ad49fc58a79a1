#include "auth/response_signer.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <array>
#include <memory>

namespace licensed {

namespace {

struct EcdsaSigFree {
  void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};

// ES256's signing context, one per thread: initialised again for every signature (its
// digest state holds the message it signed last), so only the allocation is spared. It
// holds its own reference to the key while initialised. Ed25519 signs through libsodium
// (ed25519_signing_key.h) and needs no context.
struct Es256Context {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  Es256Context() = default;
  Es256Context(const Es256Context&) = delete;
  Es256Context& operator=(const Es256Context&) = delete;
  ~Es256Context() { EVP_MD_CTX_free(ctx); }
};

// OpenSSL signs ECDSA as a DER ECDSA-Sig-Value; the header carries r || s, each 32 bytes
// big-endian and zero-padded (docs/protocol.md §13.4).
bool es256_sign(const ResponseKey& key, std::string_view message, RawResponseSignature& out) {
  thread_local Es256Context local;
  EVP_MD_CTX* ctx = local.ctx;
  if (ctx == nullptr) return false;
  EVP_MD_CTX_reset(ctx);
  std::array<uint8_t, 80> der{};  // at most 72 bytes for P-256
  size_t size = der.size();
  if (EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key.pkey()) != 1 ||
      EVP_DigestSign(ctx, der.data(), &size, reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1) {
    return false;
  }
  const unsigned char* in = der.data();
  const std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(
      d2i_ECDSA_SIG(nullptr, &in, static_cast<long>(size)));
  if (!sig) return false;
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  return BN_bn2binpad(r, out.data(), 32) == 32 && BN_bn2binpad(s, out.data() + 32, 32) == 32;
}

std::vector<ResponseAlgorithm> algorithms_of(const std::vector<ResponseKey>& keys) {
  std::vector<ResponseAlgorithm> out;
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    for (const ResponseKey& key : keys) {
      if (key.algorithm() == a) {
        out.push_back(a);
        break;
      }
    }
  }
  return out;
}

}  // namespace

ResponseSigner::ResponseSigner(std::vector<ResponseKey> keys)
    : keys_(std::move(keys)), algorithms_(algorithms_of(keys_)) {}

const ResponseKey* ResponseSigner::signing_key(ResponseAlgorithm algorithm) const {
  for (const ResponseKey& key : keys_) {
    if (key.algorithm() == algorithm) return &key;
  }
  return nullptr;
}

std::optional<RawResponseSignature> ResponseSigner::sign_message(ResponseAlgorithm algorithm,
                                                                 std::string_view message) const {
  const ResponseKey* key = signing_key(algorithm);
  if (key == nullptr) return std::nullopt;
  if (const Ed25519SigningKey* ed25519 = key->ed25519_signing_key()) return ed25519->sign(message);
  RawResponseSignature signature{};
  const bool signed_it = es256_sign(*key, message, signature);
  ERR_clear_error();
  if (!signed_it) return std::nullopt;
  return signature;
}

std::optional<std::string> ResponseSigner::sign(ResponseAlgorithm algorithm,
                                                std::optional<std::string_view> request_signature,
                                                unsigned status, int64_t t,
                                                std::string_view body) const {
  const auto signature =
      sign_message(algorithm, response_signing_string(request_signature, status, t, body));
  if (!signature) return std::nullopt;
  return format_response_signature(signing_key(algorithm)->kid(), t, *signature, algorithm);
}

}  // namespace licensed
