// The contract's error table (docs/protocol.md §5) in one place: every API error code is
// chosen through one of the factory functions below, and nowhere else.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace licensed {

enum class ErrorCode : int {
  kBadSignature = 1700,
  kStaleTimestamp = 1701,
  kMalformed = 1702,
  kNotFound = 1703,
  kInactive = 1704,
  kLimitReached = 1705,
  kRateLimited = 1706,
  kMachineNotActivated = 1707,
  kUnavailable = 1708,
  kInternal = 1709,
  kConcurrencyLimit = 1710,
  kDeactivationLimit = 1711,
  kTrialUsed = 1712,
};

// An error as the client sees it (why it happened, for the operator, is the internal
// Error's message: core/status.h). `code` is absent for the routing errors (404/405),
// which have the §5 shape without a numeric code.
struct ApiError {
  int http_status = 500;
  std::optional<ErrorCode> code;
  std::string error;    // the `error` member, e.g. "LICENSE_API_NOT_FOUND"
  std::string message;  // human readable
  boost::json::object extra;
  std::optional<int64_t> retry_after_seconds;  // also sent as the Retry-After header
  std::string allow;                           // the Allow header of a 405
  bool close_connection = false;               // set when the request body was not read
};

// A value, or the answer a client gets instead: what the HTTP layer and the License API's
// own checks (signing headers, the request body) return.
template <class T>
using ApiResult = Result<T, ApiError>;

std::string_view error_name(ErrorCode code);
int http_status_of(ErrorCode code);

namespace errors {
// Reasons of 1700.
inline constexpr std::string_view kMissingHeader = "missing_header";
inline constexpr std::string_view kMalformedHeader = "malformed_header";
inline constexpr std::string_view kUnknownKey = "unknown_key";
inline constexpr std::string_view kSignatureMismatch = "signature_mismatch";
inline constexpr std::string_view kNonceReused = "nonce_reused";

ApiError route_not_found();
// `allow`: the methods the endpoint takes, as the Allow header lists them.
ApiError method_not_allowed(std::string_view allow = "POST");
// HTTP-level refusals before a request reaches an endpoint: the shape of the routing
// errors, no numeric code, and the connection closes after them.
ApiError header_too_large(int64_t limit_bytes);
ApiError bad_http_request(std::string message = "malformed HTTP request");
// 400: a chunked body whose framing is malformed or does not end within the buffer.
ApiError bad_chunk_framing();
// 501: a request framed with a transfer coding other than chunked alone (RFC 9112 6.1).
ApiError transfer_coding_not_implemented();
// The admin API's bearer-token refusals (docs/protocol.md §18): the shape of the routing
// errors, no numeric code (the contract's codes are the License API's).
ApiError unauthorized();  // 401: token missing or unknown
ApiError forbidden();     // 403: a read-only token asked for a change
ApiError bad_signature(std::string_view reason, std::string message);
ApiError stale_timestamp(int64_t server_time_seconds);
// `field` empty: the problem is not one member (bad JSON, wrong content type).
ApiError malformed(std::string_view field, std::string message);
ApiError body_too_large(int64_t limit_bytes);
ApiError not_found();
ApiError inactive(std::string_view effective_status);
ApiError limit_reached(int64_t activations, int64_t max,
                       const std::optional<std::string>& dashboard_url);
ApiError rate_limited(std::string_view bucket, int64_t retry_after_seconds);
ApiError machine_not_activated();
// 1710: every concurrent seat of the license is taken (docs/protocol.md §27); retryAfter is
// the time until the earliest lease ends.
ApiError concurrency_limit(int64_t leases, int64_t max_concurrent, int64_t retry_after_seconds);
// 1711: the license's deactivation quota (docs/protocol.md §21.6) is used up for now.
ApiError deactivation_limit(int64_t deactivations, int64_t max_deactivations,
                            int64_t retry_after_seconds);
// 1702 `field: "request"` for an offline file refused at step 10 (docs/protocol.md §21.2):
// `reason` is unknown_key, signature_mismatch, too_old, too_far_ahead or malformed.
ApiError offline_request_refused(std::string_view reason, std::string message);
// 1712: this email already had a trial of the product, on another machine.
ApiError trial_used();
ApiError unavailable(int64_t retry_after_seconds, std::string message);
ApiError internal();
}  // namespace errors

}  // namespace licensed
