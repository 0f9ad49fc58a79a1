// The server's side of offline files (docs/protocol.md §21, §21.5): what needs its keys.
// The shapes themselves (members, types, labels, the payload) are auth/offline_file.h's,
// shared with the SDK; here a request or deactivation file read with that code gets its
// inner body parsed as the activate (deactivate) schema, is checked as docs/protocol.md §3.5 checks
// a request but with the offline age and skew limits and without its nonce, and an
// activation file is signed with the response key. No HTTP: the License API, the
// dashboard and the admin API all submit files through here.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "auth/key_ring.h"
#include "auth/offline_file.h"
#include "auth/response_signer.h"
#include "core/api_error.h"
#include "core/request_body.h"
#include "core/result.h"

namespace licensed {

// A file as read (step 8 of docs/protocol.md §3.5 for the offline endpoints, §21.2): its members,
// and its inner body as parsed, with `offline` set from them.
struct OfflineFile {
  OfflineRequestFile file;
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

// Reads `text` as a file of `kind` (read_offline_request_file) and its inner body
// (parse_license_request); anything else is 1702 `field: "request"`, reason malformed.
ApiResult<OfflineFile> parse_offline_file(std::string_view text, OfflineFileKind kind);

// The checks of docs/protocol.md §3.5 on the file, in its order: the key id (unknown_key, with the
// same HMAC work as a known one), the timestamp (too_old, too_far_ahead), the signature
// (signature_mismatch), over POST /api/v1/license/activate (or deactivate). The nonce is
// neither checked nor consumed. The key that signed it, or the refusal.
ApiResult<const SigningKey*> check_offline_file(const KeyRing& keys, const OfflineFile& offline,
                                                int64_t now_seconds,
                                                const OfflineFileLimits& limits);

// The armoured activation file (write_activation_file) for `payload_json`, signed by the
// response key of `algorithm`. Nullopt when there is no key of that algorithm or signing
// failed.
std::optional<std::string> sign_activation_file(const ResponseSigner& signer,
                                                ResponseAlgorithm algorithm,
                                                std::string_view payload_json);

// `body` (an offline_activate answer, core/operations.h) with its activationFile member, the
// payload JSON text the operation left there, replaced by the signed armoured file. An
// internal error when there is no signer or no key of `algorithm`.
Result<boost::json::object> sign_activation_file_member(const ResponseSigner* signer,
                                                        ResponseAlgorithm algorithm,
                                                        boost::json::object body);

// The same for a borrowing checkout's answer (docs/protocol.md §27): its leaseFile member, the
// payload JSON text, replaced by the signed armoured lease file (auth/lease_file.h).
Result<boost::json::object> sign_lease_file_member(const ResponseSigner* signer,
                                                   ResponseAlgorithm algorithm,
                                                   boost::json::object body);

}  // namespace licensed
