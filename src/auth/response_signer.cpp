#include "auth/response_signer.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <array>
#include <atomic>
#include <memory>

namespace licensed {

namespace {

struct EcdsaSigFree {
  void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};

// What EVP_DigestSignInit takes: no digest for Ed25519, which hashes the message itself;
// SHA-256 for ES256.
const EVP_MD* digest_of(ResponseAlgorithm algorithm) {
  return algorithm == ResponseAlgorithm::kEs256 ? EVP_sha256() : nullptr;
}

// One signing context per thread and algorithm. Ed25519's is initialised with the key
// once and reused: measured at about 1% of a signature (the curve arithmetic is the
// cost, ~70-100 us on this machine), but it also spares an allocation per answer.
// ES256's is initialised again for every signature, since its digest state holds the
// message it signed last; only the allocation is spared. The context holds its own
// reference to the key, so it stays valid whatever happens to the signer.
struct ThreadContext {
  uint64_t signer_id = 0;
  EVP_MD_CTX* ctx = nullptr;
  ThreadContext() = default;
  ThreadContext(const ThreadContext&) = delete;
  ThreadContext& operator=(const ThreadContext&) = delete;
  ~ThreadContext() { EVP_MD_CTX_free(ctx); }

  EVP_MD_CTX* for_key(uint64_t id, const ResponseKey& key) {
    const bool reusable = key.algorithm() == ResponseAlgorithm::kEd25519;
    if (reusable && ctx != nullptr && signer_id == id) return ctx;
    signer_id = 0;
    if (ctx == nullptr) ctx = EVP_MD_CTX_new();
    if (ctx == nullptr || !init(key)) return nullptr;
    signer_id = id;
    return ctx;
  }
  bool init(const ResponseKey& key) const {
    EVP_MD_CTX_reset(ctx);
    return EVP_DigestSignInit(ctx, nullptr, digest_of(key.algorithm()), nullptr, key.pkey()) == 1;
  }
};

std::atomic<uint64_t> next_signer_id{1};

bool ed25519_sign(EVP_MD_CTX* ctx, std::string_view message, RawResponseSignature& out) {
  size_t size = out.size();
  return EVP_DigestSign(ctx, out.data(), &size,
                        reinterpret_cast<const unsigned char*>(message.data()),
                        message.size()) == 1 &&
         size == out.size();
}

// OpenSSL signs ECDSA as a DER ECDSA-Sig-Value; the header carries r || s, each 32 bytes
// big-endian and zero-padded (docs/protocol.md §13.4).
bool es256_sign(EVP_MD_CTX* ctx, std::string_view message, RawResponseSignature& out) {
  std::array<uint8_t, 80> der{};  // at most 72 bytes for P-256
  size_t size = der.size();
  if (EVP_DigestSign(ctx, der.data(), &size, reinterpret_cast<const unsigned char*>(message.data()),
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

bool sign_with(EVP_MD_CTX* ctx, ResponseAlgorithm algorithm, std::string_view message,
               RawResponseSignature& out) {
  return algorithm == ResponseAlgorithm::kEs256 ? es256_sign(ctx, message, out)
                                                : ed25519_sign(ctx, message, out);
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
    : keys_(std::move(keys)), algorithms_(algorithms_of(keys_)), id_(next_signer_id.fetch_add(1)) {}

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
  thread_local std::array<ThreadContext, 2> contexts;
  ThreadContext& local = contexts[algorithm == ResponseAlgorithm::kEs256 ? 1 : 0];
  EVP_MD_CTX* ctx = local.for_key(id_, *key);
  if (ctx == nullptr) {
    ERR_clear_error();
    return std::nullopt;
  }
  RawResponseSignature signature{};
  if (sign_with(ctx, algorithm, message, signature)) return signature;
  // OpenSSL releases that finalise a one-shot context after use refuse a second call:
  // initialise it again and retry once.
  ERR_clear_error();
  if (local.init(*key) && sign_with(ctx, algorithm, message, signature)) return signature;
  ERR_clear_error();
  local.signer_id = 0;
  return std::nullopt;
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
