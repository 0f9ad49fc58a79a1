#include "auth/response_key.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

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

}  // namespace

Result<ResponseKey> ResponseKey::from_pkey(EVP_PKEY* owned, std::string_view source) {
  ResponseKey key;
  key.pkey_ = std::shared_ptr<EVP_PKEY>(owned, EVP_PKEY_free);
  if (EVP_PKEY_get_id(owned) != EVP_PKEY_ED25519) {
    return key_error(std::string(source) + ": not an Ed25519 private key");
  }
  size_t size = key.public_key_.size();
  if (EVP_PKEY_get_raw_public_key(owned, key.public_key_.data(), &size) != 1 ||
      size != key.public_key_.size()) {
    return key_error(std::string(source) + ": cannot read the Ed25519 public key");
  }
  key.kid_ = response_key_id(key.public_key_);
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
                     ": not a PEM private key (expected an unencrypted PKCS#8 Ed25519 key, "
                     "\"-----BEGIN PRIVATE KEY-----\")");
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

Result<ResponseKey> ResponseKey::generate() {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  const bool made = ctx != nullptr && EVP_PKEY_keygen_init(ctx) == 1 &&
                    EVP_PKEY_keygen(ctx, &key) == 1 && key != nullptr;
  EVP_PKEY_CTX_free(ctx);
  if (!made) {
    ERR_clear_error();
    return Error::internal("cannot generate an Ed25519 key");
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
  return base64_encode(public_key_.data(), public_key_.size());
}

}  // namespace licensed
