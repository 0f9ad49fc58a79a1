// The client side of request signing (docs/protocol.md §3, scheme v1), written from the
// contract alone: HMAC-SHA256 over the canonical string, keyed with the secret's bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/http_client.h"

namespace bb {

struct SigningKey {
  std::string id;
  std::string secret;
};

std::string Sha256Hex(std::string_view data);
std::string HmacSha256Hex(std::string_view key, std::string_view data);
std::string CanonicalString(std::string_view method, std::string_view path, std::string_view key_id,
                            std::string_view timestamp, std::string_view nonce,
                            std::string_view body_sha256_hex);
// "v1=" + lowercase hex HMAC-SHA256(secret, canonical).
std::string SignCanonical(std::string_view secret, std::string_view canonical);

std::string RandomHex(std::size_t bytes);
// 128 random bits as 32 lowercase hex digits.
inline std::string RandomNonce() {
  return RandomHex(16);
}
// A random, lowercase UUID v4 (version nibble 4, variant 8-b).
std::string RandomUuidV4();
// The Unix time in whole seconds, rounded down.
std::int64_t UnixNow();

// What a test may override; everything unset is what a correct client sends.
struct SignOptions {
  std::optional<std::int64_t> timestamp;  // default: UnixNow()
  std::optional<std::string> nonce;       // default: RandomNonce()
  std::string method = "POST";
  // The path put in the canonical string; default: the target without its query.
  std::optional<std::string> signed_path;
  // The body put in the canonical string; default: the body sent.
  std::optional<std::string> signed_body;
  // Signs with this secret instead of the key's (a wrong secret => mismatch).
  std::optional<std::string> secret;
  // nullopt: no Content-Type header at all.
  std::optional<std::string> content_type = "application/json";
};

// A request to `target` carrying `body` and the four X-License-* headers.
HttpRequest SignedRequest(const SigningKey& key, std::string target, std::string body,
                          const SignOptions& options = {});

}  // namespace bb
