#include "auth/webhook_signature.h"

#include "auth/base64.h"
#include "auth/crypto_primitives.h"

namespace licensed {

Result<std::string> new_webhook_secret() {
  uint8_t key[32];
  if (!crypto::random_bytes(key, sizeof key))
    return Error::internal("no random bytes for a secret");
  return std::string(kWebhookSecretPrefix) + base64_encode(key, sizeof key);
}

Result<std::string> webhook_signature(const std::vector<std::string>& secrets, std::string_view id,
                                      int64_t timestamp_seconds, std::string_view body) {
  std::string signed_content = std::string(id) + "." + std::to_string(timestamp_seconds) + ".";
  signed_content += body;
  std::string out;
  for (const auto& secret : secrets) {
    std::string_view encoded = secret;
    if (encoded.starts_with(kWebhookSecretPrefix))
      encoded.remove_prefix(kWebhookSecretPrefix.size());
    const auto key = base64_decode(encoded);
    if (!key || key->empty())
      return Error::invalid_argument("secret", "a secret that does not decode");
    const HmacSha256 hmac(
        std::string_view(reinterpret_cast<const char*>(key->data()), key->size()));
    Sha256Digest digest{};
    if (!hmac.compute(signed_content, digest)) return Error::internal("HMAC failed");
    if (!out.empty()) out += ' ';
    out += "v1," + base64_encode(digest.data(), digest.size());
  }
  return out;
}

}  // namespace licensed
