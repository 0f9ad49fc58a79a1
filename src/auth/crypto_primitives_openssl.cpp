// crypto_primitives.h over OpenSSL 3: the server's, and the SDK's on Linux and macOS.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <atomic>
#include <climits>
#include <cstring>

#include "auth/crypto_primitives.h"

namespace licensed {

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

constexpr size_t kP256PointSize = 65;

// Threads that may keep a working HMAC context per key: the server's network and store
// threads. Threads numbered beyond this (a plugin host's many threads using the SDK,
// say) duplicate the keyed context per message, as every thread once did.
constexpr size_t kThreadsWithWorkingContexts = 32;

size_t this_thread_slot() {
  static std::atomic<size_t> next{0};
  thread_local const size_t slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

bool mac_into(EVP_MAC_CTX* ctx, std::string_view message, Sha256Digest& out) {
  size_t len = 0;
  return EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(message.data()),
                        message.size()) == 1 &&
         EVP_MAC_final(ctx, out.data(), &len, out.size()) == 1 && len == out.size();
}

Pkey p256_public_key(const std::vector<uint8_t>& point) {
  if (point.size() != kP256PointSize || point[0] != 0x04) return nullptr;
  char group[] = "prime256v1";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<uint8_t*>(point.data()),
                                        point.size()),
      OSSL_PARAM_construct_end()};
  const std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* key = nullptr;
  if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
    return nullptr;
  }
  return Pkey(key);
}

// ES256's r || s as the DER ECDSA-Sig-Value OpenSSL verifies.
std::optional<std::vector<uint8_t>> es256_der(const std::array<uint8_t, 64>& raw) {
  const std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(raw.data(), 32, nullptr);
  BIGNUM* s = BN_bin2bn(raw.data() + 32, 32, nullptr);
  if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  const int size = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (size <= 0) return std::nullopt;
  std::vector<uint8_t> der(static_cast<size_t>(size));
  uint8_t* out = der.data();
  if (i2d_ECDSA_SIG(sig.get(), &out) != size) return std::nullopt;
  return der;
}

// Signature checks are the library's; nothing secret is compared here.
bool verify_with(EVP_PKEY* key, const EVP_MD* digest, const uint8_t* signature,
                 size_t signature_size, std::string_view message) {
  const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (key == nullptr || !ctx ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key) != 1) {
    return false;
  }
  return EVP_DigestVerify(ctx.get(), signature, signature_size,
                          reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

std::optional<crypto::RawPublicKey> raw_ed25519(EVP_PKEY* key) {
  crypto::RawPublicKey out{crypto::PublicKeyType::kEd25519, std::vector<uint8_t>(32)};
  size_t size = out.bytes.size();
  if (EVP_PKEY_get_raw_public_key(key, out.bytes.data(), &size) != 1 || size != out.bytes.size()) {
    return std::nullopt;
  }
  return out;
}

// A P-256 key's point, uncompressed whatever form the PEM held it in.
std::optional<crypto::RawPublicKey> raw_p256(EVP_PKEY* key) {
  char group[32] = {0};
  if (EVP_PKEY_get_group_name(key, group, sizeof group, nullptr) != 1 ||
      std::strcmp(group, "prime256v1") != 0 ||
      EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                                     "uncompressed") != 1) {
    return std::nullopt;
  }
  crypto::RawPublicKey out{crypto::PublicKeyType::kP256, std::vector<uint8_t>(kP256PointSize)};
  size_t size = 0;
  if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out.bytes.data(),
                                      out.bytes.size(), &size) != 1 ||
      size != out.bytes.size()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

struct HmacSha256::State {
  EVP_MAC* mac = nullptr;
  EVP_MAC_CTX* keyed = nullptr;  // initialised with the key, never finalised
  // Slot i belongs to the thread numbered i alone: a copy of `keyed` that the thread
  // resets per message. Resetting (EVP_MAC_init without a key restarts from the keyed
  // state) costs ~0.4 us where duplicating the keyed context costs ~1.1 us.
  std::array<EVP_MAC_CTX*, kThreadsWithWorkingContexts> working{};
  ~State() {
    for (EVP_MAC_CTX* ctx : working) EVP_MAC_CTX_free(ctx);
    EVP_MAC_CTX_free(keyed);
    EVP_MAC_free(mac);
  }
};

HmacSha256::HmacSha256(std::string_view key) : state_(std::make_unique<State>()) {
  state_->mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (state_->mac == nullptr) return;
  state_->keyed = EVP_MAC_CTX_new(state_->mac);
  if (state_->keyed == nullptr) return;
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                         OSSL_PARAM_construct_end()};
  // An empty key is legal HMAC; OpenSSL wants a non-null pointer for it.
  static const unsigned char kEmpty = 0;
  const auto* key_bytes =
      key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
  if (EVP_MAC_init(state_->keyed, key_bytes, key.size(), params) != 1) {
    EVP_MAC_CTX_free(state_->keyed);
    state_->keyed = nullptr;
  }
}

HmacSha256::~HmacSha256() = default;

std::unique_ptr<HmacSha256> HmacSha256::clone() const {
  std::unique_ptr<HmacSha256> copy(new HmacSha256());
  copy->state_ = std::make_unique<State>();
  if (state_->mac != nullptr && EVP_MAC_up_ref(state_->mac) == 1) copy->state_->mac = state_->mac;
  if (state_->keyed != nullptr) copy->state_->keyed = EVP_MAC_CTX_dup(state_->keyed);
  return copy;
}

bool HmacSha256::compute(std::string_view message, Sha256Digest& out) const {
  if (state_->keyed == nullptr) return false;
  const size_t slot = this_thread_slot();
  if (slot < state_->working.size()) {
    EVP_MAC_CTX*& working = state_->working[slot];
    if (working == nullptr) {
      working = EVP_MAC_CTX_dup(state_->keyed);
    } else if (EVP_MAC_init(working, nullptr, 0, nullptr) != 1) {
      return false;
    }
    return working != nullptr && mac_into(working, message, out);
  }
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_dup(state_->keyed);
  if (ctx == nullptr) return false;
  const bool ok = mac_into(ctx, message, out);
  EVP_MAC_CTX_free(ctx);
  return ok;
}

namespace crypto {

bool sha256(std::string_view data, Sha256Digest& out) {
  // Fetched once: OpenSSL 3's one-shot SHA256() and EVP_sha256() look the algorithm up
  // in the provider on every call, which tripled the cost of hashing a request body.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  unsigned int len = 0;
  if (kSha256 != nullptr &&
      EVP_Digest(data.data(), data.size(), out.data(), &len, kSha256, nullptr) == 1 &&
      len == out.size()) {
    return true;
  }
  return SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data()) !=
         nullptr;
}

bool random_bytes(uint8_t* out, size_t size) {
  while (size > 0) {
    const int n = static_cast<int>(std::min<size_t>(size, INT_MAX));
    if (RAND_bytes(out, n) != 1) return false;
    out += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool equal_in_constant_time(const uint8_t* a, const uint8_t* b, size_t size) {
  return CRYPTO_memcmp(a, b, size) == 0;
}

bool ed25519_available() {
  return true;
}

bool verify_ed25519(const std::array<uint8_t, 32>& public_key,
                    const std::array<uint8_t, 64>& signature, std::string_view message) {
  const Pkey key(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, public_key.data(), public_key.size()));
  return verify_with(key.get(), nullptr, signature.data(), signature.size(), message);
}

bool verify_es256(const std::vector<uint8_t>& public_key, const std::array<uint8_t, 64>& signature,
                  std::string_view message) {
  const Pkey key = p256_public_key(public_key);
  const auto der = es256_der(signature);
  return key && der && verify_with(key.get(), EVP_sha256(), der->data(), der->size(), message);
}

bool is_p256_public_key(const std::vector<uint8_t>& point) {
  const bool valid = p256_public_key(point) != nullptr;  // fromdata checks the curve
  ERR_clear_error();
  return valid;
}

std::optional<RawPublicKey> public_key_from_pem(std::string_view pem) {
  if (pem.size() > INT_MAX) return std::nullopt;
  const std::unique_ptr<BIO, BioFree> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return std::nullopt;
  const Pkey key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  std::optional<RawPublicKey> raw;
  if (key && EVP_PKEY_get_id(key.get()) == EVP_PKEY_ED25519) raw = raw_ed25519(key.get());
  if (key && EVP_PKEY_get_id(key.get()) == EVP_PKEY_EC) raw = raw_p256(key.get());
  // A text that is not such a key must not leave its errors for a later, unrelated check.
  ERR_clear_error();
  return raw;
}

void keep_state_until_process_end() {
  // No effect when OpenSSL was started before (by the host): then its exit handler is
  // registered already, and the SDK's, registered after it, runs before it.
  OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
}

}  // namespace crypto
}  // namespace licensed
