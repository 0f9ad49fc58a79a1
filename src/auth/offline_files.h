// The server's side of offline files (docs/protocol.md §21, §21.5): reading a
// request or deactivation file (armour, then {"v": 1, "keyId", "timestamp", "nonce",
// "signature", "body"}), checking it as section 2 checks an activate or deactivate request
// but with the offline age and skew limits and without its nonce, and signing an
// activation file with the response key. No HTTP: the License API, the dashboard and the
// admin API all submit files through here.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "auth/key_ring.h"
#include "auth/response_signer.h"
#include "core/api_error.h"
#include "core/request_body.h"
#include "core/result.h"

namespace licensed {

enum class OfflineFileKind { kRequest, kDeactivation };

// A file as read (step 8 of section 2 for the offline endpoints).
struct OfflineFile {
  OfflineFileKind kind = OfflineFileKind::kRequest;
  std::string key_id;
  int64_t timestamp = 0;  // Unix seconds
  std::string nonce;
  std::string signature;  // "v1=" + 64 lowercase hex digits, as sent
  std::string body;       // the exact inner body text that was signed
  // The inner body as parsed, with `offline` set from the fields above.
  LicenseRequest request;
};

// The limits of docs/protocol.md §21.1: how old a file may be, and how far ahead of the
// server's clock (offline clocks drift).
struct OfflineFileLimits {
  int64_t max_age_seconds = 30 * 86400;
  int64_t max_skew_seconds = 24 * 3600;
};

// Reasons of a refused file (400 1702 `field: "request"`, docs/protocol.md §21.2).
namespace offline_reason {
inline constexpr std::string_view kUnknownKey = "unknown_key";
inline constexpr std::string_view kSignatureMismatch = "signature_mismatch";
inline constexpr std::string_view kTooOld = "too_old";
inline constexpr std::string_view kTooFarAhead = "too_far_ahead";
inline constexpr std::string_view kMalformed = "malformed";
}  // namespace offline_reason

// Dearmours `text` (the label of `kind`) and reads the file and its inner body; anything
// else is 1702 `field: "request"`, reason malformed.
ApiResult<OfflineFile> parse_offline_file(std::string_view text, OfflineFileKind kind);

// The checks of section 2 on the file, in its order: the key id (unknown_key, with the same
// HMAC work as a known one), the timestamp (too_old, too_far_ahead), the signature
// (signature_mismatch), over POST /api/v1/license/activate (or deactivate). The nonce is
// neither checked nor consumed. The key that signed it, or the refusal.
ApiResult<const SigningKey*> check_offline_file(const KeyRing& keys, const OfflineFile& file,
                                                int64_t now_seconds,
                                                const OfflineFileLimits& limits);

// The armoured activation file (label LICENSE ACTIVATION): {"v": 1, "alg", "kid",
// "signature", "payload"}, payload the base64 of `payload_json`, signature the base64
// signature by the response key of `algorithm` over "v1-activation-file\n" + the payload
// bytes. Nullopt when there is no key of that algorithm or signing failed.
inline constexpr std::string_view kActivationFilePrefix = "v1-activation-file\n";
std::optional<std::string> sign_activation_file(const ResponseSigner& signer,
                                                ResponseAlgorithm algorithm,
                                                std::string_view payload_json);

// `body` (an offline_activate answer, core/operations.h) with its activationFile member, the
// payload JSON text the operation left there, replaced by the signed armoured file. An
// internal error when there is no signer or no key of `algorithm`.
Result<boost::json::object> sign_activation_file_member(const ResponseSigner* signer,
                                                        ResponseAlgorithm algorithm,
                                                        boost::json::object body);

// 128 random bits in lowercase hex, an activation file's id; empty when the CSPRNG failed.
std::string new_activation_id();

// The file's payload JSON text when `armoured` is an activation file whose signature
// verifies with one of `keys` (kid and algorithm must match); nullopt otherwise. The
// server's own check, for tests and support tools; the SDK verifies with its own code.
std::optional<std::string> verify_activation_file(std::string_view armoured,
                                                  const std::vector<PinnedResponseKey>& keys);

}  // namespace licensed
