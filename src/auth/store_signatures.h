// Authenticity of store deliveries (spec §20, "Authenticity"), one provider at a time.
// Every HMAC goes through HmacSha256 and every comparison through
// crypto::equal_in_constant_time (auth/crypto_primitives.h); during a secret rotation
// each of the store's secrets (at most 3) is tried, and each signature the header
// carries, without stopping at the first match.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/crypto_primitives.h"
#include "core/clock.h"

namespace licensed {

// Deliveries dated further than this from the server clock, either way, are refused.
inline constexpr int64_t kStoreSignatureToleranceSeconds = 300;
// Longer headers, or more elements, are refused before any work.
inline constexpr size_t kMaxStoreSignatureHeaderBytes = 4096;
inline constexpr size_t kMaxStripeSignatureElements = 16;

// Stripe's `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...][,v0=<hex>...]`:
// comma-separated `scheme=value` elements. Exactly one `t` (decimal digits, at most 12);
// at least one `v1`, each 64 hex digits; elements of other schemes (`v0`, Stripe's test
// scheme, or any later one) are skipped. nullopt for anything else: an element without
// `=`, an empty one, a second `t`, a `v1` that is not a SHA-256 in hex.
struct StripeSignatureHeader {
  int64_t timestamp = 0;
  std::string timestamp_text;  // as sent: the signed message starts with it
  std::vector<Sha256Digest> v1;
};
std::optional<StripeSignatureHeader> parse_stripe_signature(std::string_view header);

// True when `header` parses, its `t` is within kStoreSignatureToleranceSeconds of `now`,
// and one of its `v1` is HMAC-SHA256 under one of `secrets` of "<t>.<body>" (t as sent).
bool verify_stripe_signature(std::string_view header, std::string_view body,
                             const std::vector<std::string>& secrets, UnixMillis now);

}  // namespace licensed
