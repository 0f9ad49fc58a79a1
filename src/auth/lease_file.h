// The borrowed-seat lease file of docs/protocol.md §27 (label LICENSE LEASE): the activation
// file's envelope (auth/offline_file.h) around its own payload, {"id", "licenseKey",
// "product", "machine", "sessionId", "entitlements", "issuedAt", "expiresAt"}, signed by the
// response key over "v1-lease-file\n" + the payload bytes. The server signs it; the SDK and
// licensectl read and check it under the activation file's rules (this machine, this
// product and license, the clock between issuedAt - 24 h and expiresAt, not set back).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/offline_file.h"

namespace licensed {

inline constexpr std::string_view kLeaseFileLabel = "LICENSE LEASE";
inline constexpr std::string_view kLeaseFileSigningPrefix = "v1-lease-file\n";

// "v1-lease-file\n" + the payload bytes: what the response key signs.
std::string lease_file_message(std::string_view payload);
// The armoured file: {"v":1,"kid","signature","payload"} under LICENSE LEASE.
std::string write_lease_file(std::string_view kid, const RawResponseSignature& signature,
                             std::string_view payload);

struct LeaseFile {
  std::string kid;
  ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519;
  std::string payload;  // the signed payload bytes (JSON text)
  std::string id;
  std::string license_key;
  std::string product_slug;
  std::string product_name;
  std::string machine_id;
  std::optional<std::string> machine_name;
  std::string session_id;
  std::vector<FileEntitlement> entitlements;
  int64_t issued_at = 0;  // Unix seconds (rounded down)
  int64_t expires_at = 0;
};

struct LeaseFileRead {
  ActivationFileProblem problem = ActivationFileProblem::kNone;
  std::optional<LeaseFile> file;  // set when the signature verified and the payload read
};

// The signature (a pinned key, the lease prefix), then the payload's shape.
LeaseFileRead read_lease_file(std::string_view armoured,
                              const std::vector<PinnedResponseKey>& pinned);
// The activation file's checks (check_activation_file) on a lease file.
ActivationFileProblem check_lease_file(const LeaseFile& file,
                                       const ActivationFileExpectation& expected);
// read_lease_file then check_lease_file; the file is kept whatever the check says.
LeaseFileRead verify_lease_file(std::string_view armoured,
                                const std::vector<PinnedResponseKey>& pinned,
                                const ActivationFileExpectation& expected);

}  // namespace licensed
