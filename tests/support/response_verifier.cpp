#include "support/response_verifier.h"

#include <openssl/evp.h>

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

std::string KidOf(std::string_view public_key_base64) {
  const auto raw = Base64Decode(public_key_base64);
  if (!raw) return "<not base64>";
  return "ed25519-" + Sha256Hex(*raw).substr(0, 16);
}

::testing::AssertionResult SignedFor(const HttpResponse& r, std::string_view public_key_base64,
                                     std::optional<std::string_view> request_signature,
                                     std::optional<std::string_view> kid) {
  const auto header = r.header(kResponseSignature);
  if (!header) return ::testing::AssertionFailure() << "no signature header\n" << r.Describe();
  // "kid=<kid>, t=<t>, ed25519=<base64>", exactly as the server writes the plain form.
  const std::string_view value = *header;
  const auto t_at = value.find(", t=");
  const auto sig_at = value.find(", ed25519=");
  if (value.rfind("kid=", 0) != 0 || t_at == std::string_view::npos || t_at == 4 ||
      sig_at == std::string_view::npos || sig_at < t_at + 5) {
    return ::testing::AssertionFailure() << "malformed signature header '" << value << "'";
  }
  const std::string_view header_kid = value.substr(4, t_at - 4);
  const std::string_view t = value.substr(t_at + 4, sig_at - t_at - 4);
  if (t.find_first_not_of("0123456789") != std::string_view::npos) {
    return ::testing::AssertionFailure() << "t is not decimal: '" << value << "'";
  }
  if (kid && header_kid != *kid) {
    return ::testing::AssertionFailure() << "signed by kid " << header_kid << ", expected " << *kid;
  }
  const auto signature = Base64Decode(value.substr(sig_at + 10));
  if (!signature || signature->size() != 64) {
    return ::testing::AssertionFailure()
           << "signature is not base64 of 64 bytes: '" << value << "'";
  }
  const auto raw_key = Base64Decode(public_key_base64);
  if (!raw_key || raw_key->size() != 32) {
    return ::testing::AssertionFailure() << "public key is not base64 of 32 bytes";
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                  reinterpret_cast<const unsigned char*>(raw_key->data()), 32),
      EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  const std::string message = ResponseSigningString(request_signature, r.status, t, r.body);
  const bool ok =
      key && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) == 1 &&
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()), 64,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  if (!ok) {
    return ::testing::AssertionFailure() << "signature does not verify bound to "
                                         << (request_signature ? *request_signature : "-") << "\n"
                                         << r.Describe();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace bb
