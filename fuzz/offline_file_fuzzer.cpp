// Fuzzes the reading of offline request and deactivation files (docs/protocol.md §21.1,
// parse_offline_file in src/auth/offline_files.h): every `request` a client, a customer or
// support submits goes through it after the armour.
//
// The input's first byte picks the kind; the rest is the pasted text. Invariants, besides
// crashes, leaks and UB: a refusal is always 400 1702 `field: "request"` with a reason; an
// accepted file has a valid inner body (a license key, a machine id, an origin), and a
// deactivation file an activationId of 32 lowercase hex digits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "auth/offline_files.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using licensed::fuzz::require;
  if (size == 0) return 0;
  const auto kind = (data[0] & 1) != 0 ? licensed::OfflineFileKind::kDeactivation
                                       : licensed::OfflineFileKind::kRequest;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto file = licensed::parse_offline_file(text, kind);
  if (!file.ok()) {
    const auto& e = file.error();
    require(e.http_status == 400 && e.code == licensed::ErrorCode::kMalformed, "not 400 1702");
    const auto* field = e.extra.if_contains("field");
    require(field != nullptr && field->is_string() && field->as_string() == "request",
            "a refusal without field request");
    require(e.extra.contains("reason"), "a refusal without a reason");
    return 0;
  }
  const auto& req = file.value().request;
  require(req.license_key.size() == 36 && req.machine_id.has_value(), "no inner body");
  require(req.offline.has_value() && req.offline->nonce == file.value().file.nonce, "no origin");
  const bool deactivation = kind == licensed::OfflineFileKind::kDeactivation;
  require(req.offline->activation_id.has_value() == deactivation, "activationId by kind");
  if (deactivation) require(req.offline->activation_id->size() == 32, "activationId length");
  return 0;
}
