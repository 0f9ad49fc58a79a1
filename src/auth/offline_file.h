// The offline files of docs/protocol.md §21, in one place: the three shapes (request and
// deactivation files, §21.1 and §21.5; the activation file and its payload, §21.3), their member
// names and types as docs/protocol.md §21.1 and §21.3 settle them, written and read by the same
// code on both ends. The server (src/auth/offline_files.h) adds only what needs its keys
// and store: the HMAC check of a request file with its key ring, the age and skew
// limits, and the response key that signs an activation file. The SDK and licensectl
// (every system: signatures go through crypto_primitives.h, so Windows CNG verifies ES256
// files) write request and deactivation files and read and check activation files with
// the checks of docs/protocol.md §21.8 (this machine, this product, the clock between
// issuedAt - 24 h and expiresAt, and not set back more than 24 h behind the latest time
// seen).
//
// JSON: this file reads JSON with Boost.JSON's headers but licensed_signing links no JSON
// library. Its users bring one: the server's layers link Boost::json, and the SDK compiles
// Boost.JSON in from its headers (client/src/json_impl.cpp) so a plugin installs no Boost
// library. A program that links licensed_signing without either and never calls this file
// pulls none of it in (an archive member is linked only when used).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/response_signature.h"

namespace licensed {

// What the activation file's signature covers before the payload bytes (docs/protocol.md §21.3).
inline constexpr std::string_view kActivationFileSigningPrefix = "v1-activation-file\n";
// The paths the inner requests are signed for (docs/protocol.md §21.1, §21.5).
inline constexpr std::string_view kActivatePath = "/api/v1/license/activate";
inline constexpr std::string_view kDeactivatePath = "/api/v1/license/deactivate";
// The clock tolerance of docs/protocol.md §21.8: a file is good from issuedAt - 24 h, and a clock
// set back more than this behind the latest time seen makes files invalid.
inline constexpr int64_t kOfflineClockToleranceSeconds = 24 * 60 * 60;
// An activation file's id, and so a deactivation's activationId: 128 bits, lowercase hex.
inline constexpr size_t kActivationIdHexDigits = 32;

// 128 random bits in lowercase hex: an activation file's id, a file's nonce. Empty when
// the CSPRNG failed.
std::string random_128_bit_hex();

// ---- Request and deactivation files (docs/protocol.md §21.1, §21.5) ----

enum class OfflineFileKind { kRequest, kDeactivation };
// LICENSE ACTIVATION REQUEST or LICENSE DEACTIVATION.
std::string_view offline_file_label(OfflineFileKind kind);
// The request the file is signed as: POST /api/v1/license/activate or deactivate.
std::string_view offline_file_path(OfflineFileKind kind);

// What a request or deactivation file is signed with and says. `activation_id` makes a
// deactivation file (the activation file's `id`); machineName is never put in (docs/protocol.md
// §21.8).
struct OfflineRequestInput {
  std::string key_id;
  std::string secret;
  std::string license_key;
  std::string machine_id;
  int64_t timestamp = 0;  // Unix seconds, the offline machine's clock
  std::string nonce;      // 16-128 of [A-Za-z0-9_-]; at least 128 random bits
  std::optional<std::string> activation_id;
};

// The JSON text of the inner body: {"licenseKey","machineId"} (+ "activationId").
std::string offline_request_body(const OfflineRequestInput& input);
// The armoured request file (label LICENSE ACTIVATION REQUEST): {"v":1,"keyId",
// "timestamp","nonce","signature","body"}, signed as POST /api/v1/license/activate.
std::string write_request_file(const OfflineRequestInput& input);
// The armoured deactivation file (label LICENSE DEACTIVATION), signed as
// POST /api/v1/license/deactivate; "" unless `input.activation_id` is 32 lowercase hex
// digits (an id the server issued: it refuses any other).
std::string write_deactivation_file(const OfflineRequestInput& input);

// A request or deactivation file read back, every member of the type docs/protocol.md §21.1 gives
// it: `timestamp` a non-negative JSON integer, `nonce` 16-128 of [A-Za-z0-9_-], `signature` exactly
// an X-License-Signature value, `body` a string holding a JSON object with string `licenseKey` and
// `machineId`, and for a deactivation `activationId` (32 lowercase hex digits), which a request
// must not have. The signature is not checked here: the server checks it with its key ring
// (auth/offline_files.h); a client cannot.
struct OfflineRequestFile {
  OfflineFileKind kind = OfflineFileKind::kRequest;
  std::string key_id;
  int64_t timestamp = 0;  // Unix seconds
  std::string nonce;
  std::string signature;    // "v1=" + 64 lowercase hex digits, as written
  std::string body;         // the exact inner body text that was signed
  std::string license_key;  // from body
  std::string machine_id;   // from body
  std::optional<std::string> activation_id;
};
struct OfflineRequestRead {
  std::optional<OfflineRequestFile> file;
  std::string problem;  // why it is not one, a sentence, when `file` is empty
};
// Reads a file of either kind (the label tells them apart), or of `kind` only.
OfflineRequestRead read_offline_request_file(std::string_view armoured,
                                             std::optional<OfflineFileKind> kind = std::nullopt);
// The same, for callers that need no reason.
std::optional<OfflineRequestFile> read_offline_request(std::string_view armoured);

// ---- Activation files (docs/protocol.md §21.3) ----

// The payload as the server writes it. `entitlements` is the list an activate answer
// carries (docs/protocol.md §20); times are Unix milliseconds written as RFC 3339, like every time
// in answers, `request_timestamp` included (the request's own, in seconds).
struct ActivationPayloadFields {
  std::string id;  // 32 lowercase hex digits
  std::string license_key;
  std::string product_slug;
  std::string product_name;
  std::string machine_id;
  std::optional<std::string> machine_name;
  std::string status;
  boost::json::array entitlements;
  int64_t max = 0;
  std::optional<int64_t> license_expires_at_ms;
  int64_t issued_at_ms = 0;
  int64_t expires_at_ms = 0;
  int64_t request_timestamp = 0;  // Unix seconds, as the request file carried it
  std::string request_nonce;
};
// The payload JSON text: {"id","licenseKey","product":{"slug","name"},"machine":{"id",
// "name"},"status","entitlements","max","licenseExpiresAt","issuedAt","expiresAt",
// "requestTimestamp","requestNonce"}.
std::string write_activation_payload(const ActivationPayloadFields& fields);

// "v1-activation-file\n" + the payload bytes: what the response key signs.
std::string activation_file_message(std::string_view payload);
// The armoured activation file (label LICENSE ACTIVATION): {"v":1,"kid","signature",
// "payload"}, `signature` and `payload` in base64. No algorithm member: the pinned key
// `kid` names has one (an Ed25519 key's id and an ES256 key's differ, docs/protocol.md §13.1).
std::string write_activation_file(std::string_view kid, const RawResponseSignature& signature,
                                  std::string_view payload);

// One entitlement of an activation file (docs/protocol.md §20, §21.3): expiresAt as Unix seconds.
struct FileEntitlement {
  std::string code;
  std::optional<int64_t> expires_at;
  bool active = false;
  std::optional<std::string> value;  // JSON text of the scalar, absent when none
};

// The `entitlements` member of a file's payload; nullopt when it is not the §21.3 shape.
std::optional<std::vector<FileEntitlement>> read_file_entitlements(
    const boost::json::object& payload);

// An activation file whose signature verified, with its payload read.
struct ActivationFile {
  std::string kid;
  ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
  std::string payload;  // the signed payload bytes (JSON text)
  std::string id;
  std::string license_key;
  std::string product_slug;
  std::string product_name;
  std::string machine_id;
  std::optional<std::string> machine_name;
  std::string status;
  std::vector<FileEntitlement> entitlements;
  std::optional<int64_t> max;
  std::optional<int64_t> license_expires_at;  // Unix seconds
  int64_t issued_at = 0;                      // Unix seconds (rounded down)
  int64_t expires_at = 0;
  int64_t request_timestamp = 0;  // Unix seconds (rounded down)
  std::string request_nonce;
};

enum class ActivationFileProblem {
  kNone,
  kMalformed,     // not armour of the right label, not the §21.3 shape
  kUnknownKey,    // no pinned key has the file's kid
  kBadSignature,  // the signature does not verify: an edited or forged file
  kOtherMachine,  // machine.id is not this machine's
  kOtherProduct,  // product.slug is not the configured product
  kOtherLicense,  // licenseKey is not the configured license key
  kNotYetValid,   // the clock is before issuedAt - 24 h
  kExpired,       // the clock (or the latest time seen) is at or after expiresAt
  kClockSetBack,  // the clock is more than 24 h behind the latest time seen
};
// "malformed", "unknown_key", "bad_signature", "other_machine", ... (for messages/JSON).
const char* activation_file_problem_name(ActivationFileProblem problem);
// A sentence for a user ("this activation file is for another computer").
std::string activation_file_problem_message(ActivationFileProblem problem);

// The envelope opened: the payload bytes whose signature verified with the pinned key
// the file's kid names (the signature in that key's algorithm).
struct SignedPayload {
  std::string kid;
  ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
  std::string payload;
};
struct SignedPayloadRead {
  ActivationFileProblem problem = ActivationFileProblem::kMalformed;
  std::optional<SignedPayload> signed_payload;  // set only when the signature verified
};
SignedPayloadRead open_activation_file(std::string_view armoured,
                                       const std::vector<PinnedResponseKey>& pinned);
// The envelope {"v":1,"kid","signature","payload"} under any label, its signature over
// `prefix` + the payload bytes: the activation file's and the lease file's (auth/lease_file.h).
SignedPayloadRead open_signed_envelope(std::string_view armoured,
                                       const std::vector<PinnedResponseKey>& pinned,
                                       std::string_view label, std::string_view prefix);
std::string write_signed_envelope(std::string_view label, std::string_view kid,
                                  const RawResponseSignature& signature, std::string_view payload);

struct ActivationFileRead {
  ActivationFileProblem problem = ActivationFileProblem::kNone;
  std::optional<ActivationFile> file;  // set when the signature verified, whatever else
};

// open_activation_file, then the payload read with the types write_activation_payload
// gives it (times RFC 3339). On success the file is set and problem is kNone; a file that
// does not verify is never returned.
ActivationFileRead read_activation_file(std::string_view armoured,
                                        const std::vector<PinnedResponseKey>& pinned);

// What the plugin checks beyond the signature (docs/protocol.md §21.8).
struct ActivationFileExpectation {
  std::string machine_id;
  std::string product;                 // "" => not checked (matched by slug)
  std::string license_key;             // "" => not checked (case aside)
  int64_t now = 0;                     // the local clock, Unix seconds
  std::optional<int64_t> latest_seen;  // the latest time the client has seen
};
ActivationFileProblem check_activation_file(const ActivationFile& file,
                                            const ActivationFileExpectation& expected);

// read_activation_file then check_activation_file.
ActivationFileRead verify_activation_file(std::string_view armoured,
                                          const std::vector<PinnedResponseKey>& pinned,
                                          const ActivationFileExpectation& expected);

}  // namespace licensed
