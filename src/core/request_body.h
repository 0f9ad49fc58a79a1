// The request body schema of docs/protocol.md §4: one JSON object in UTF-8 with
// `licenseKey`, `machineId` and (activate only) `machineName`. Everything wrong with a
// body, from bad bytes to a value out of range, is a 400 1702 chosen here.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/api_error.h"

namespace licensed {

enum class Endpoint {
  kActivate,
  kHeartbeat,
  kStatus,
  kDeactivate,
  kTrial,
  kOfflineActivate,
  kOfflineDeactivate,
  kCheckout,
  kCheckin
};
// The endpoint's path segment: "activate", "heartbeat", "status", "deactivate", "trial",
// "offline-activate", "offline-deactivate", "checkout" or "checkin".
std::string_view endpoint_name(Endpoint endpoint);

// What an offline file (docs/protocol.md §21.2) said beside its inner body: the section 2
// values it was signed with, and a deactivation file's activationId.
struct OfflineOrigin {
  std::string key_id;
  int64_t timestamp = 0;  // Unix seconds, as signed
  std::string nonce;
  std::optional<std::string> activation_id;  // deactivation files only
};

// Request files are accepted up to this size (docs/protocol.md §21.5).
inline constexpr size_t kMaxOfflineRequestBytes = 4096;

struct LicenseRequest {
  std::string license_key;  // normalised to lowercase; empty for trial
  // Required for activate, heartbeat and deactivate; optional for status.
  std::optional<std::string> machine_id;
  // Activate and trial only: nullopt = absent or null ("keep"); "" = clear the name; else the new
  // name. Always nullopt for the other endpoints, where the member is ignored.
  std::optional<std::string> machine_name;
  // Trial only (docs/protocol.md §20): the product's slug, and the email, lowercased.
  std::string product;
  std::optional<std::string> email;
  // Checkout and checkin only (docs/protocol.md §27): the session (8-128 code points, no
  // control characters; nullopt: the machine id), and checkout's borrowFor as sent (a
  // DURATION; the operation checks it, after 1707).
  std::optional<std::string> session_id{};
  std::optional<std::string> borrow_for{};
  // Offline endpoints: the armoured file as sent (`request`), and, once it is parsed, what
  // it said; the members above are then the inner body's. Initialised here so brace
  // initialisations of the members above still compile without them (-Wextra).
  std::string offline_text{};
  std::optional<OfflineOrigin> offline{};
};

// True for `application/json` (case-insensitive) with optional parameters; a charset
// parameter other than utf-8 (case-insensitive, possibly quoted) or a parameter that
// is not `name=value` makes it false.
bool is_json_content_type(std::string_view content_type);

// Parses and validates `body` for `endpoint`. Errors are errors::malformed with `field`
// naming the offending member, or empty when the body as a whole is wrong (not JSON,
// not UTF-8, not an object, trailing bytes).
ApiResult<LicenseRequest> parse_license_request(Endpoint endpoint, std::string_view body);
// A machine id that came from elsewhere than a body (the admin API's path): the body's
// rules (8-128 characters, no control characters) plus well-formed UTF-8; 1702 if not.
std::optional<ApiError> check_machine_id_text(std::string_view text);

// Any JSON object body (the admin API's) under the same rules as above: strict JSON in
// UTF-8, one object, no duplicate member names at any depth; errors are 1702.
ApiResult<boost::json::object> parse_json_object_body(std::string_view body);

}  // namespace licensed
