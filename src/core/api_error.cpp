#include "core/api_error.h"

#include <algorithm>

namespace licensed {

std::string_view error_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadSignature:
      return "LICENSE_API_BAD_SIGNATURE";
    case ErrorCode::kStaleTimestamp:
      return "STALE_TIMESTAMP";
    case ErrorCode::kMalformed:
      return "LICENSE_API_MALFORMED";
    case ErrorCode::kNotFound:
      return "LICENSE_API_NOT_FOUND";
    case ErrorCode::kInactive:
      return "LICENSE_API_INACTIVE";
    case ErrorCode::kLimitReached:
      return "LICENSE_API_LIMIT_REACHED";
    case ErrorCode::kRateLimited:
      return "LICENSE_API_RATE_LIMITED";
    case ErrorCode::kMachineNotActivated:
      return "LICENSE_API_MACHINE_NOT_ACTIVATED";
    case ErrorCode::kUnavailable:
      return "LICENSE_API_UNAVAILABLE";
    case ErrorCode::kInternal:
      return "LICENSE_API_INTERNAL";
    case ErrorCode::kConcurrencyLimit:
      return "LICENSE_API_CONCURRENCY_LIMIT";
    case ErrorCode::kDeactivationLimit:
      return "LICENSE_API_DEACTIVATION_LIMIT";
    case ErrorCode::kTrialUsed:
      return "LICENSE_API_TRIAL_USED";
  }
  return "LICENSE_API_INTERNAL";
}

int http_status_of(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadSignature:
    case ErrorCode::kStaleTimestamp:
      return 401;
    case ErrorCode::kMalformed:
      return 400;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kInactive:
      return 403;
    case ErrorCode::kLimitReached:
      return 409;
    case ErrorCode::kRateLimited:
      return 429;
    case ErrorCode::kMachineNotActivated:
      return 404;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kInternal:
      return 500;
    case ErrorCode::kConcurrencyLimit:
    case ErrorCode::kDeactivationLimit:
    case ErrorCode::kTrialUsed:
      return 409;
  }
  return 500;
}

namespace errors {
namespace {
ApiError make(ErrorCode code, std::string message) {
  ApiError e;
  e.code = code;
  e.http_status = http_status_of(code);
  e.error = std::string(error_name(code));
  e.message = std::move(message);
  return e;
}
}  // namespace

ApiError route_not_found() {
  ApiError e;
  e.http_status = 404;
  e.error = "NOT_FOUND";
  e.message = "no such endpoint";
  return e;
}

ApiError method_not_allowed(std::string_view allow) {
  ApiError e;
  e.http_status = 405;
  e.error = "METHOD_NOT_ALLOWED";
  e.message = "this endpoint accepts " + std::string(allow) + " only";
  e.allow = std::string(allow);
  return e;
}

namespace {
// A refusal at the HTTP level: no numeric code, and the connection closes after it.
ApiError http_refusal(int http_status, std::string error, std::string message) {
  ApiError e;
  e.http_status = http_status;
  e.error = std::move(error);
  e.message = std::move(message);
  e.close_connection = true;
  return e;
}
}  // namespace

ApiError header_too_large(int64_t limit_bytes) {
  return http_refusal(431, "REQUEST_HEADER_FIELDS_TOO_LARGE",
                      "the request header exceeds " + std::to_string(limit_bytes) + " bytes");
}

ApiError bad_http_request(std::string message) {
  return http_refusal(400, "BAD_REQUEST", std::move(message));
}

ApiError bad_chunk_framing() {
  return bad_http_request("malformed or endless chunk framing");
}

ApiError transfer_coding_not_implemented() {
  return http_refusal(501, "NOT_IMPLEMENTED",
                      "the only transfer coding accepted is chunked, alone");
}

ApiError unauthorized() {
  ApiError e;
  e.http_status = 401;
  e.error = "UNAUTHORIZED";
  e.message = "a valid admin token is required: Authorization: Bearer <token>";
  return e;
}

ApiError forbidden() {
  ApiError e;
  e.http_status = 403;
  e.error = "FORBIDDEN";
  e.message = "this admin token is read-only";
  return e;
}

ApiError bad_signature(std::string_view reason, std::string message) {
  ApiError e = make(ErrorCode::kBadSignature, std::move(message));
  e.extra["reason"] = reason;
  return e;
}

ApiError stale_timestamp(int64_t server_time_seconds) {
  ApiError e = make(ErrorCode::kStaleTimestamp,
                    "timestamp outside the accepted window; resend with a current timestamp");
  e.extra["serverTime"] = server_time_seconds;
  return e;
}

ApiError malformed(std::string_view field, std::string message) {
  ApiError e = make(ErrorCode::kMalformed, std::move(message));
  if (!field.empty()) e.extra["field"] = field;
  return e;
}

ApiError body_too_large(int64_t limit_bytes) {
  ApiError e = make(ErrorCode::kMalformed,
                    "request body larger than " + std::to_string(limit_bytes) + " bytes");
  e.http_status = 413;
  e.close_connection = true;
  return e;
}

ApiError not_found() {
  return make(ErrorCode::kNotFound, "license key unknown or deleted");
}

ApiError inactive(std::string_view effective_status) {
  ApiError e = make(ErrorCode::kInactive, "license is " + std::string(effective_status));
  e.extra["status"] = effective_status;
  return e;
}

ApiError limit_reached(int64_t activations, int64_t max,
                       const std::optional<std::string>& dashboard_url) {
  ApiError e =
      make(ErrorCode::kLimitReached, "machine limit reached; free a slot on the dashboard");
  e.extra["activations"] = activations;
  e.extra["max"] = max;
  if (dashboard_url) {
    e.extra["dashboardUrl"] = *dashboard_url;
  } else {
    e.extra["dashboardUrl"] = nullptr;
  }
  return e;
}

ApiError rate_limited(std::string_view bucket, int64_t retry_after_seconds) {
  const int64_t wait = std::max<int64_t>(1, retry_after_seconds);
  ApiError e = make(ErrorCode::kRateLimited, "too many requests; retry later");
  e.extra["bucket"] = bucket;
  e.extra["retryAfter"] = wait;
  e.retry_after_seconds = wait;
  return e;
}

ApiError machine_not_activated() {
  return make(ErrorCode::kMachineNotActivated, "this machine is not activated; call activate");
}

ApiError concurrency_limit(int64_t leases, int64_t max_concurrent, int64_t retry_after_seconds) {
  const int64_t wait = std::max<int64_t>(1, retry_after_seconds);
  ApiError e = make(ErrorCode::kConcurrencyLimit,
                    "every seat of this license is in use; wait for one to be checked in");
  e.extra["leases"] = leases;
  e.extra["maxConcurrent"] = max_concurrent;
  e.extra["retryAfter"] = wait;
  e.retry_after_seconds = wait;
  return e;
}

ApiError deactivation_limit(int64_t deactivations, int64_t max_deactivations,
                            int64_t retry_after_seconds) {
  const int64_t wait = std::max<int64_t>(1, retry_after_seconds);
  ApiError e = make(ErrorCode::kDeactivationLimit,
                    "this license's deactivations for the last 30 days are used up");
  e.extra["deactivations"] = deactivations;
  e.extra["maxDeactivations"] = max_deactivations;
  e.extra["retryAfter"] = wait;
  e.retry_after_seconds = wait;
  return e;
}

ApiError offline_request_refused(std::string_view reason, std::string message) {
  ApiError e = malformed("request", std::move(message));
  e.extra["reason"] = reason;
  return e;
}

ApiError trial_used() {
  return make(ErrorCode::kTrialUsed, "this email already had a trial of this product");
}

ApiError unavailable(int64_t retry_after_seconds, std::string message) {
  const int64_t wait = std::max<int64_t>(1, retry_after_seconds);
  ApiError e = make(ErrorCode::kUnavailable, std::move(message));
  // In the body too (docs/protocol.md §11): clients read body values, capping any wait at an hour.
  e.extra["retryAfter"] = wait;
  e.retry_after_seconds = wait;
  return e;
}

ApiError internal() {
  return make(ErrorCode::kInternal, "internal error");
}
}  // namespace errors

}  // namespace licensed
