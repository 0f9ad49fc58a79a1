// Authenticity of store deliveries (docs/protocol.md §22.3), one provider at a time.
// Every HMAC goes through HmacSha256 and every comparison through
// crypto::equal_in_constant_time (auth/crypto_primitives.h); during a secret rotation
// each of the store's secrets (at most 3) is tried, and each signature the header
// carries, without stopping at the first match.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

// Paddle Billing's `Paddle-Signature: ts=<unix seconds>;h1=<hex>[;h1=<hex>...]`:
// semicolon-separated `name=value` elements, exactly one `ts` (decimal digits, at most
// 12), at least one `h1` (64 hex digits; Paddle sends several while a secret rotates),
// elements of other names skipped; at most kMaxStripeSignatureElements elements.
struct PaddleSignatureHeader {
  int64_t timestamp = 0;
  std::string timestamp_text;  // as sent: the signed message starts with it
  std::vector<Sha256Digest> h1;
};
std::optional<PaddleSignatureHeader> parse_paddle_signature(std::string_view header);

// True when `header` parses, its `ts` is within kStoreSignatureToleranceSeconds of `now`,
// and one of its `h1` is HMAC-SHA256 under one of `secrets` of "<ts>:<body>".
bool verify_paddle_signature(std::string_view header, std::string_view body,
                             const std::vector<std::string>& secrets, UnixMillis now);

// FastSpring's `X-FS-Signature`: the standard base64 (padded, canonical) of
// HMAC-SHA256(secret, body). No timestamp: FastSpring signs the body alone.
bool verify_fastspring_signature(std::string_view header, std::string_view body,
                                 const std::vector<std::string>& secrets);

// Lemon Squeezy's `X-Signature`: HMAC-SHA256(secret, body) in hex (either case).
bool verify_lemonsqueezy_signature(std::string_view header, std::string_view body,
                                   const std::vector<std::string>& secrets);

// The FastSpring remote license generator's `security_request_hash`: MD5, in hex, of the
// values of every other parameter, sorted by name (bytewise), concatenated, followed by
// the private key (one of `secrets`). `params` are the decoded form parameters except
// security_request_hash itself; their names must be distinct (the caller checks).
bool verify_fastspring_generator_hash(
    const std::vector<std::pair<std::string, std::string>>& params, std::string_view hash_hex,
    const std::vector<std::string>& secrets);

// Signers: what each provider sends, for `licensed admin store send-sample` (a correctly
// signed sample delivery to the operator's own server) and for tests. Each is the exact
// inverse of the verifier above it; nullopt only when the crypto library fails.
//
// `Stripe-Signature: t=<unix_seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
std::optional<std::string> stripe_signature_header(std::string_view body, std::string_view secret,
                                                   int64_t unix_seconds);
// `Paddle-Signature: ts=<unix_seconds>;h1=<hex HMAC-SHA256 of "<ts>:<body>">`.
std::optional<std::string> paddle_signature_header(std::string_view body, std::string_view secret,
                                                   int64_t unix_seconds);
// `X-FS-Signature`: base64 of HMAC-SHA256(secret, body).
std::optional<std::string> fastspring_signature(std::string_view body, std::string_view secret);
// `X-Signature`: hex (lower case) of HMAC-SHA256(secret, body).
std::optional<std::string> lemonsqueezy_signature(std::string_view body, std::string_view secret);
// `security_request_hash`: MD5 hex of the values sorted by name, then the private key.
std::optional<std::string> fastspring_generator_hash(
    const std::vector<std::pair<std::string, std::string>>& params, std::string_view secret);

// Whether two texts are equal, in a time that depends on neither's content (their SHA-256
// digests are compared): for values that are not secrets keyed into an HMAC but still
// decide authenticity, such as Gumroad's seller_id.
bool texts_equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace licensed
