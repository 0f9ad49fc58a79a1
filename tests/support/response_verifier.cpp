#include "support/response_verifier.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <memory>

#include "support/signer.h"

namespace bb {

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  std::size_t padding = 0;
  for (auto it = text.rbegin(); it != text.rend() && *it == '=' && padding < 2; ++it) ++padding;
  out.resize(static_cast<std::size_t>(n) - padding);
  // Whitespace, other letters or non-zero spare bits would not round-trip.
  if (Base64Encode(out) != text) return std::nullopt;
  return out;
}

std::string ResponseSigningString(std::optional<std::string_view> request_signature, int status,
                                  std::string_view t, std::string_view body) {
  return "v2-response\n" + std::string(request_signature ? *request_signature : "-") + "\n" +
         std::to_string(status) + "\n" + std::string(t) + "\n" + Sha256Hex(body);
}

std::string BoundTo(const HttpRequest& request) {
  std::string hex = request.Get("X-License-Signature").value_or("v1=").substr(3);
  for (char& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return hex;
}

std::string KidOf(std::string_view public_key_base64, std::string_view alg) {
  const auto raw = Base64Decode(public_key_base64);
  if (!raw) return "<not base64>";
  return std::string(alg) + "-" + Sha256Hex(*raw).substr(0, 16);
}

namespace {

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

// The plain form's parts.
struct PlainSignature {
  std::string kid;
  std::string t;
  std::string signature;  // 64 bytes
};

// "kid=<kid>, t=<t>, <alg>=<base64 of 64 bytes>", exactly as the server writes the plain
// form; names `kid` when it is given.
::testing::AssertionResult ParsePlain(const HttpResponse& r, std::string_view alg,
                                      std::optional<std::string_view> kid, PlainSignature& out) {
  const auto header = r.header(kResponseSignature);
  if (!header) return ::testing::AssertionFailure() << "no signature header\n" << r.Describe();
  const std::string_view value = *header;
  const std::string sig_name = ", " + std::string(alg) + "=";
  const auto t_at = value.find(", t=");
  const auto sig_at = value.find(sig_name);
  if (value.rfind("kid=", 0) != 0 || t_at == std::string_view::npos || t_at == 4 ||
      sig_at == std::string_view::npos || sig_at < t_at + 5) {
    return ::testing::AssertionFailure()
           << "not a plain " << alg << " signature header '" << value << "'";
  }
  out.kid = std::string(value.substr(4, t_at - 4));
  out.t = std::string(value.substr(t_at + 4, sig_at - t_at - 4));
  if (out.t.find_first_not_of("0123456789") != std::string::npos) {
    return ::testing::AssertionFailure() << "t is not decimal: '" << value << "'";
  }
  if (kid && out.kid != *kid) {
    return ::testing::AssertionFailure() << "signed by kid " << out.kid << ", expected " << *kid;
  }
  const auto signature = Base64Decode(value.substr(sig_at + sig_name.size()));
  if (!signature || signature->size() != 64) {
    return ::testing::AssertionFailure()
           << "signature is not base64 of 64 bytes: '" << value << "'";
  }
  out.signature = *signature;
  return ::testing::AssertionSuccess();
}

bool DigestVerifies(EVP_PKEY* key, const EVP_MD* digest, std::string_view signature,
                    std::string_view message) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  return key && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

// The P-256 public key of a 65-byte uncompressed point (null when it is none).
Pkey P256Key(const std::string& point) {
  char group[] = "prime256v1";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<char*>(point.data()),
                                        point.size()),
      OSSL_PARAM_construct_end()};
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx) != 1 ||
      EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
    key = nullptr;
  }
  EVP_PKEY_CTX_free(ctx);
  return Pkey(key, EVP_PKEY_free);
}

// r || s (32 bytes each, big-endian) as the DER ECDSA-Sig-Value OpenSSL verifies.
std::string EcdsaDer(const std::string& raw) {
  ECDSA_SIG* sig = ECDSA_SIG_new();
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  ECDSA_SIG_set0(sig, BN_bin2bn(bytes, 32, nullptr), BN_bin2bn(bytes + 32, 32, nullptr));
  std::string der(static_cast<size_t>(i2d_ECDSA_SIG(sig, nullptr)), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  i2d_ECDSA_SIG(sig, &out);
  ECDSA_SIG_free(sig);
  return der;
}

::testing::AssertionResult DoesNotVerify(const HttpResponse& r,
                                         std::optional<std::string_view> request_signature) {
  return ::testing::AssertionFailure() << "signature does not verify bound to "
                                       << (request_signature ? *request_signature : "-") << "\n"
                                       << r.Describe();
}

}  // namespace

::testing::AssertionResult SignedFor(const HttpResponse& r, std::string_view public_key_base64,
                                     std::optional<std::string_view> request_signature,
                                     std::optional<std::string_view> kid) {
  PlainSignature plain;
  if (auto parsed = ParsePlain(r, "ed25519", kid, plain); !parsed) return parsed;
  const auto raw_key = Base64Decode(public_key_base64);
  if (!raw_key || raw_key->size() != 32) {
    return ::testing::AssertionFailure() << "public key is not base64 of 32 bytes";
  }
  const Pkey key(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                  reinterpret_cast<const unsigned char*>(raw_key->data()), 32),
      EVP_PKEY_free);
  const std::string message = ResponseSigningString(request_signature, r.status, plain.t, r.body);
  if (!DigestVerifies(key.get(), nullptr, plain.signature, message)) {
    return DoesNotVerify(r, request_signature);
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult Es256SignedFor(const HttpResponse& r, std::string_view public_key_base64,
                                          std::optional<std::string_view> request_signature,
                                          std::optional<std::string_view> kid) {
  PlainSignature plain;
  if (auto parsed = ParsePlain(r, "es256", kid, plain); !parsed) return parsed;
  const auto point = Base64Decode(public_key_base64);
  if (!point || point->size() != 65 || (*point)[0] != 0x04) {
    return ::testing::AssertionFailure()
           << "public key is not base64 of a 65-byte uncompressed point";
  }
  const Pkey key = P256Key(*point);
  if (!key) return ::testing::AssertionFailure() << "public key is not a P-256 point";
  const std::string message = ResponseSigningString(request_signature, r.status, plain.t, r.body);
  if (!DigestVerifies(key.get(), EVP_sha256(), EcdsaDer(plain.signature), message)) {
    return DoesNotVerify(r, request_signature);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bb
