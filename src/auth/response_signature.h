// Signed responses (docs/protocol.md §13): the `v2-response` string the server
// signs, the X-License-Response-Signature header in its plain and batched (tree) forms,
// the key id rule, and verification against pinned keys. Everything a client needs and
// nothing that touches a private key, so the SDK and licensectl link this file as it is
// and verify exactly what the server signs. Its cryptography is crypto_primitives.h's
// (OpenSSL, or Windows CNG in the SDK for Windows), so no library's type appears here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace licensed {

inline constexpr std::string_view kResponseSignatureHeader = "X-License-Response-Signature";
// The client's preference list of answer algorithms (docs/protocol.md §13.4); not signed.
inline constexpr std::string_view kAcceptSignatureHeader = "X-License-Accept-Signature";

using Ed25519PublicKey = std::array<uint8_t, 32>;  // raw, as in RFC 8032
using Ed25519Signature = std::array<uint8_t, 64>;
// An answer's signature as the header carries it: Ed25519's 64 bytes, or ES256's r || s,
// each 32 bytes big-endian, zero-padded.
using RawResponseSignature = std::array<uint8_t, 64>;

enum class ResponseAlgorithm { kEd25519, kEs256 };

// "ed25519" or "es256": the header's parameter name, the key id's prefix and the token
// of X-License-Accept-Signature.
std::string_view algorithm_token(ResponseAlgorithm algorithm);
// "Ed25519" or "ES256": the `alg` of /api/v1/license/public-keys.
std::string_view algorithm_name(ResponseAlgorithm algorithm);

// "v2-response\n<request signature or ->\n<status>\n<t>\n<lowercase hex SHA-256 of body>".
// `request_signature` is the 64 lowercase hex digits of the request's X-License-Signature
// when that signature was valid for the request as received; nullopt binds to "-".
std::string response_signing_string(std::optional<std::string_view> request_signature,
                                    unsigned status, int64_t t, std::string_view body);

// The default key id: the algorithm's token, "-", and the first 16 lowercase hex digits
// of the SHA-256 of the raw public key (Ed25519's 32 bytes, or P-256's 65-byte
// uncompressed point; docs/protocol.md §13.1). Derived, never configured, so the same key
// has the same id on every server and after every restart, and a client can recompute it
// from the key it pinned.
std::string response_key_id(ResponseAlgorithm algorithm, const std::vector<uint8_t>& public_key);
std::string response_key_id(const Ed25519PublicKey& public_key);

// "kid=<kid>, t=<t>, ed25519=<base64 of the 64 signature bytes>", or "es256=" for an
// ES256 signature (the plain form).
std::string format_response_signature(std::string_view kid, int64_t t,
                                      const RawResponseSignature& signature,
                                      ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519);

// Where an answer sits in a batch signed as one Merkle tree (docs/protocol.md §13.3).
struct TreePosition {
  uint32_t index = 0;
  uint32_t size = 1;
  std::vector<std::array<uint8_t, 32>> path;  // the audit path, RFC 9162 order
};

// The batched form: the plain form's parameters, then "tree=<index>/<size>, path=<base64
// of the audit path's hashes concatenated>" (empty when size = 1), where `signature` is
// over the tree string (response_tree.h) rather than the answer's own signing string.
std::string format_response_signature(std::string_view kid, int64_t t,
                                      const RawResponseSignature& signature,
                                      ResponseAlgorithm algorithm, const TreePosition& tree);

struct ParsedResponseSignature {
  std::string kid;
  int64_t t = 0;
  ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
  std::array<uint8_t, 64> signature{};  // Ed25519, or ES256's r || s
  std::optional<TreePosition> tree;     // batched form only
};
// Strict: "kid=", "t=", then "ed25519=" or "es256=", then optionally "tree=i/n" and
// "path=", each once, in this order, separated by "," and optional spaces; kid 1-64 of
// [A-Za-z0-9._-]; t and i/n decimal without leading zeros, 0 <= i < n <= 4096; canonical
// padded base64; path a whole number of 32-byte hashes (empty when n = 1). Anything else
// is nullopt.
std::optional<ParsedResponseSignature> parse_response_signature(std::string_view header_value);

// A public key a client pins, under the id the server signs with.
struct PinnedResponseKey {
  std::string kid;
  ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
  std::vector<uint8_t> public_key;  // raw Ed25519 (32 bytes) or uncompressed P-256 (65)
};

// A pinned Ed25519 key under its default id.
PinnedResponseKey pin_ed25519(const Ed25519PublicKey& public_key);

// True when `signature` (Ed25519, or ES256's r || s over SHA-256) is `key`'s over
// `message`. The building block of answer, tree and file verification.
bool verify_message_signature(const PinnedResponseKey& key,
                              const std::array<uint8_t, 64>& signature, std::string_view message);

// The signed time `t` when `header_value` is a well-formed signature, plain or batched,
// by one of `pinned` (matched by kid and algorithm) over this answer to a request whose
// signature was `request_signature` (nullopt: "-"); nullopt otherwise.
std::optional<int64_t> verify_response_signature(const std::vector<PinnedResponseKey>& pinned,
                                                 std::string_view header_value,
                                                 std::optional<std::string_view> request_signature,
                                                 unsigned status, std::string_view body);

// An Ed25519 public key as a client is given it: base64 of the raw 32 bytes (what
// /api/v1/license/public-keys publishes), or a PEM "PUBLIC KEY" (SubjectPublicKeyInfo).
std::optional<Ed25519PublicKey> parse_response_public_key(std::string_view text);

// A public key to pin, of either algorithm, under its default id: base64 of Ed25519's
// raw 32 bytes or of P-256's 65-byte uncompressed point (what
// /api/v1/license/public-keys publishes), or a PEM "PUBLIC KEY" of an Ed25519 or EC P-256
// key. Nullopt for anything else, a point off the curve included.
std::optional<PinnedResponseKey> parse_pinned_response_key(std::string_view text);

}  // namespace licensed
