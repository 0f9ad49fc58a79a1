// Standard Webhooks signing (docs/protocol.md §25.3, standardwebhooks.com): the secret is "whsec_"
// + base64 of its key bytes; the signature is "v1," + base64 of HMAC-SHA256 under the key of
// "<webhook-id>.<webhook-timestamp>.<body>"; during a rotation each secret signs and the
// signatures are space-separated. HMAC through auth/crypto_primitives.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace licensed {

inline constexpr std::string_view kWebhookSecretPrefix = "whsec_";

// A new secret: "whsec_" + base64 of 32 bytes from the CSPRNG.
Result<std::string> new_webhook_secret();

// The `webhook-signature` header's value; kInvalidArgument for a secret that does not decode.
Result<std::string> webhook_signature(const std::vector<std::string>& secrets, std::string_view id,
                                      int64_t timestamp_seconds, std::string_view body);

}  // namespace licensed
