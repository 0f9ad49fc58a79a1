#include "auth/response_signature.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "auth/base64.h"
#include "auth/request_signature.h"

namespace licensed {

namespace {

constexpr std::string_view kKidPrefix = "kid=";
constexpr std::string_view kSignaturePrefix = ", ed25519=";
constexpr size_t kMaxKidSize = 64;

bool is_kid_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

std::optional<Ed25519PublicKey> raw_public_key(EVP_PKEY* key) {
  if (key == nullptr || EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) return std::nullopt;
  Ed25519PublicKey out{};
  size_t size = out.size();
  if (EVP_PKEY_get_raw_public_key(key, out.data(), &size) != 1 || size != out.size()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::string response_signing_string(std::optional<std::string_view> nonce, unsigned status,
                                    std::string_view date, std::string_view body) {
  const std::string status_text = std::to_string(status);
  const std::string_view nonce_text = nonce ? *nonce : std::string_view("-");
  std::string out;
  out.reserve(12 + nonce_text.size() + 1 + status_text.size() + 1 + date.size() + 1 + 64);
  out.append("v1-response\n").append(nonce_text).append("\n").append(status_text).append("\n");
  out.append(date).append("\n").append(sha256_hex(body));
  return out;
}

std::string response_key_id(const Ed25519PublicKey& public_key) {
  const Sha256Digest digest =
      sha256(std::string_view(reinterpret_cast<const char*>(public_key.data()), public_key.size()));
  return "ed25519-" + to_hex(digest.data(), 8);
}

std::string format_response_signature(std::string_view kid, const Ed25519Signature& signature) {
  std::string out;
  out.reserve(kKidPrefix.size() + kid.size() + kSignaturePrefix.size() + 88);
  out.append(kKidPrefix).append(kid).append(kSignaturePrefix);
  out.append(base64_encode(signature.data(), signature.size()));
  return out;
}

std::optional<ParsedResponseSignature> parse_response_signature(std::string_view value) {
  if (value.substr(0, kKidPrefix.size()) != kKidPrefix) return std::nullopt;
  value.remove_prefix(kKidPrefix.size());
  const size_t kid_size = value.find(',');
  if (kid_size == 0 || kid_size == std::string_view::npos || kid_size > kMaxKidSize) {
    return std::nullopt;
  }
  ParsedResponseSignature out;
  out.kid = std::string(value.substr(0, kid_size));
  for (const char c : out.kid) {
    if (!is_kid_char(c)) return std::nullopt;
  }
  value.remove_prefix(kid_size);
  if (value.substr(0, kSignaturePrefix.size()) != kSignaturePrefix) return std::nullopt;
  value.remove_prefix(kSignaturePrefix.size());
  const auto bytes = base64_decode(value);
  if (!bytes || bytes->size() != out.signature.size()) return std::nullopt;
  std::copy(bytes->begin(), bytes->end(), out.signature.begin());
  return out;
}

bool verify_response_signature(const Ed25519PublicKey& public_key, std::string_view header_value,
                               std::optional<std::string_view> nonce, unsigned status,
                               std::string_view date, std::string_view body) {
  const auto parsed = parse_response_signature(header_value);
  if (!parsed) return false;
  const std::unique_ptr<EVP_PKEY, PkeyFree> key(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, public_key.data(), public_key.size()));
  const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    return false;
  }
  const std::string message = response_signing_string(nonce, status, date, body);
  // Ed25519 verification is the library's; nothing secret is compared here.
  return EVP_DigestVerify(ctx.get(), parsed->signature.data(), parsed->signature.size(),
                          reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

std::optional<Ed25519PublicKey> parse_response_public_key(std::string_view text) {
  if (text.find("-----BEGIN") != std::string_view::npos) {
    const std::unique_ptr<BIO, BioFree> bio(
        BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
    if (!bio) return std::nullopt;
    const std::unique_ptr<EVP_PKEY, PkeyFree> key(
        PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    return raw_public_key(key.get());
  }
  const auto bytes = base64_decode(text);
  Ed25519PublicKey out{};
  if (!bytes || bytes->size() != out.size()) return std::nullopt;
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

}  // namespace licensed
