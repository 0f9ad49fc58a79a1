// The offline files of spec §16 as a client writes and reads them: request and
// deactivation files (signed as activate and deactivate requests, §2), and the reading and
// verification of an activation file against pinned response keys, with the checks of
// §16.7 as §21 settles them (this machine, this product, the clock between issuedAt - 24 h
// and expiresAt, and not set back more than 24 h behind the latest time seen). Shared by
// the SDK (every system: the signature goes through crypto_primitives.h, so Windows CNG
// verifies ES256 files) and licensectl; the server signs files itself (helper code in
// src/auth or src/core), over exactly the bytes verified here.
//
// JSON: this file reads JSON with Boost.JSON's headers but licensed_signing links no JSON
// library. Its users bring one: the server's layers link Boost::json, and the SDK compiles
// Boost.JSON in from its headers (client/src/json_impl.cpp) so a plugin installs no Boost
// library. A program that links licensed_signing without either and never calls this file
// pulls none of it in (an archive member is linked only when used).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/response_signature.h"

namespace licensed {

// What the activation file's signature covers before the payload bytes (§16.3).
inline constexpr std::string_view kActivationFileSigningPrefix = "v1-activation-file\n";
// The paths the inner requests are signed for (§16.1, §16.5).
inline constexpr std::string_view kActivatePath = "/api/v1/license/activate";
inline constexpr std::string_view kDeactivatePath = "/api/v1/license/deactivate";
// The clock tolerance of §21: a file is good from issuedAt - 24 h, and a clock set back
// more than this behind the latest time seen makes files invalid.
inline constexpr int64_t kOfflineClockToleranceSeconds = 24 * 60 * 60;

// What a request or deactivation file is signed with and says. `activation_id` makes a
// deactivation file (the activation file's `id`); machineName is never put in (§21).
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
// POST /api/v1/license/deactivate; `input.activation_id` must be set ("" otherwise).
std::string write_deactivation_file(const OfflineRequestInput& input);

// A request or deactivation file read back (its shape only: the server checks the
// signature, a client cannot without trusting its own secret).
struct OfflineRequestFile {
  std::string label;  // kActivationRequestLabel or kDeactivationFileLabel
  std::string key_id;
  int64_t timestamp = 0;
  std::string nonce;
  std::string signature;
  std::string body;
  std::string license_key;  // from body
  std::string machine_id;   // from body
  std::optional<std::string> activation_id;
};
std::optional<OfflineRequestFile> read_offline_request(std::string_view armoured);

// One entitlement of an activation file (§15, §21): expiresAt as Unix seconds.
struct FileEntitlement {
  std::string code;
  std::optional<int64_t> expires_at;
  bool active = false;
  std::optional<std::string> value;  // JSON text of the scalar, absent when none
};

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
  std::optional<int64_t> request_timestamp;
  std::string request_nonce;
};

enum class ActivationFileProblem {
  kNone,
  kMalformed,     // not armour of the right label, not the §16.3 shape
  kUnknownKey,    // signed by no pinned key (kid and algorithm)
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

struct ActivationFileRead {
  ActivationFileProblem problem = ActivationFileProblem::kNone;
  std::optional<ActivationFile> file;  // set when the signature verified, whatever else
};

// Dearmours, parses and verifies `armoured` against `pinned`. On success the file is set
// and problem is kNone; a file that does not verify is never returned.
ActivationFileRead read_activation_file(std::string_view armoured,
                                        const std::vector<PinnedResponseKey>& pinned);

// What the plugin checks beyond the signature (§16.7 with §21's window).
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
