#include "auth/response_key.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "auth/base64.h"
#include "core/private_file.h"

namespace licensed {

namespace {

Error key_error(std::string message) {
  return Error::invalid_argument("response-key", std::move(message));
}

// An encrypted PEM must fail, not prompt on the terminal for a passphrase.
int no_passphrase(char*, int, int, void*) {
  return -1;
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};

constexpr size_t kP256PointSize = 65;

std::optional<std::vector<uint8_t>> raw_ed25519_key(EVP_PKEY* key) {
  if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) return std::nullopt;
  std::vector<uint8_t> out(32);
  size_t size = out.size();
  if (EVP_PKEY_get_raw_public_key(key, out.data(), &size) != 1 || size != out.size()) {
    return std::nullopt;
  }
  return out;
}

bool is_p256(EVP_PKEY* key) {
  char group[64] = {};
  size_t size = 0;
  if (!EVP_PKEY_is_a(key, "EC") ||
      EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &size) !=
          1) {
    return false;
  }
  int nid = OBJ_txt2nid(group);                          // "prime256v1"
  if (nid == NID_undef) nid = EC_curve_nist2nid(group);  // "P-256"
  return nid == NID_X9_62_prime256v1;
}

// The 65-byte uncompressed point of a P-256 key, whatever form it was read in.
std::optional<std::vector<uint8_t>> p256_point(EVP_PKEY* key) {
  if (!is_p256(key) ||
      EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                                     OSSL_PKEY_EC_POINT_CONVERSION_FORMAT_UNCOMPRESSED) != 1) {
    return std::nullopt;
  }
  std::vector<uint8_t> point(kP256PointSize);
  size_t size = 0;
  if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point.data(),
                                      point.size(), &size) != 1 ||
      size != kP256PointSize) {
    return std::nullopt;
  }
  return point;
}

// The public half of `key` (Ed25519 or EC P-256) as a client pins it, under its default
// id; nullopt for any other kind of key. Sets an EC key's point format to uncompressed.
// Here rather than beside the verifier: the SDK compiles response_signature.cpp without
// OpenSSL on Windows.
std::optional<PinnedResponseKey> public_half(EVP_PKEY* key) {
  if (key == nullptr) return std::nullopt;
  if (auto raw = raw_ed25519_key(key)) {
    std::string kid = response_key_id(ResponseAlgorithm::kEd25519, *raw);
    return PinnedResponseKey{std::move(kid), ResponseAlgorithm::kEd25519, std::move(*raw)};
  }
  if (auto point = p256_point(key)) {
    std::string kid = response_key_id(ResponseAlgorithm::kEs256, *point);
    return PinnedResponseKey{std::move(kid), ResponseAlgorithm::kEs256, std::move(*point)};
  }
  return std::nullopt;
}

}  // namespace

Result<ResponseKey> ResponseKey::from_pkey(EVP_PKEY* owned, std::string_view source) {
  ResponseKey key;
  key.pkey_ = std::shared_ptr<EVP_PKEY>(owned, EVP_PKEY_free);
  auto pinned = public_half(owned);
  ERR_clear_error();
  if (!pinned) {
    return key_error(std::string(source) + ": not an Ed25519 or P-256 (ES256) private key");
  }
  key.public_ = std::move(*pinned);
  if (key.public_.algorithm == ResponseAlgorithm::kEd25519) {
    std::array<uint8_t, 32> seed{};
    size_t size = seed.size();
    const bool read =
        EVP_PKEY_get_raw_private_key(owned, seed.data(), &size) == 1 && size == seed.size();
    ERR_clear_error();
    if (read) key.ed25519_ = Ed25519SigningKey::from_seed(seed);
    OPENSSL_cleanse(seed.data(), seed.size());
    if (!key.ed25519_) {
      return Error::internal(std::string(source) + ": cannot prepare the Ed25519 key for signing");
    }
  }
  return key;
}

Result<ResponseKey> ResponseKey::from_pem(std::string_view pem, std::string_view source) {
  const std::unique_ptr<BIO, BioFree> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* key =
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr) : nullptr;
  // OpenSSL's reasons ("bad decrypt", "no start line") are not worth the noise, and the
  // error queue must not leak into a later, unrelated check.
  ERR_clear_error();
  if (key == nullptr) {
    return key_error(std::string(source) +
                     ": not a PEM private key (expected an unencrypted PKCS#8 Ed25519 or P-256 "
                     "key, \"-----BEGIN PRIVATE KEY-----\")");
  }
  return from_pkey(key, source);
}

Result<ResponseKey> ResponseKey::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return key_error(path + ": cannot read the file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return key_error(path + ": cannot read the file");
  std::string pem = text.str();
  auto key = from_pem(pem, path);
  // The private key does not linger in freed memory.
  OPENSSL_cleanse(pem.data(), pem.size());
  return key;
}

Result<ResponseKey> ResponseKey::generate(ResponseAlgorithm algorithm) {
  const bool es256 = algorithm == ResponseAlgorithm::kEs256;
  EVP_PKEY* key = nullptr;
  const std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, es256 ? "EC" : "ED25519", nullptr));
  const bool made = ctx && EVP_PKEY_keygen_init(ctx.get()) == 1 &&
                    (!es256 || EVP_PKEY_CTX_set_group_name(ctx.get(), "P-256") == 1) &&
                    EVP_PKEY_keygen(ctx.get(), &key) == 1 && key != nullptr;
  if (!made) {
    ERR_clear_error();
    return Error::internal("cannot generate an " + std::string(algorithm_name(algorithm)) + " key");
  }
  return from_pkey(key, "generated key");
}

Result<std::string> ResponseKey::to_pem() const {
  const std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), pkey_.get(), nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    ERR_clear_error();
    return Error::internal("cannot encode the response key as PEM");
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  std::string pem(data, static_cast<size_t>(size));
  OPENSSL_cleanse(data, static_cast<size_t>(size));
  return pem;
}

Status ResponseKey::write_new_file(const std::string& path) const {
  ASSIGN_OR_RETURN(std::string pem, to_pem());
  const auto failed = write_new_private_file(path, pem);
  OPENSSL_cleanse(pem.data(), pem.size());
  if (failed) return key_error(*failed);
  return Ok{};
}

std::string ResponseKey::public_key_base64() const {
  return base64_encode(public_.public_key.data(), public_.public_key.size());
}

}  // namespace licensed
