#include "core/status.h"

#include <algorithm>

namespace licensed {

std::string_view status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kConflict:
      return "conflict";
    case StatusCode::kRateLimited:
      return "rate limited";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kInternal:
      return "internal";
    case StatusCode::kCount:
      break;
  }
  return "internal";
}

namespace {
Error make(StatusCode code, std::string_view subject, std::string message) {
  Error e;
  e.code = code;
  e.message = std::move(message);
  e.subject = std::string(subject);
  return e;
}
}  // namespace

Error Error::invalid_argument(std::string_view subject, std::string message) {
  return make(StatusCode::kInvalidArgument, subject, std::move(message));
}

Error Error::not_found(std::string_view subject, std::string message) {
  return make(StatusCode::kNotFound, subject, std::move(message));
}

Error Error::conflict(std::string_view subject, std::string message) {
  return make(StatusCode::kConflict, subject, std::move(message));
}

Error Error::rate_limited(std::string_view subject, int64_t retry_after_seconds,
                          std::string message) {
  Error e = make(StatusCode::kRateLimited, subject, std::move(message));
  e.retry_after_seconds = std::max<int64_t>(1, retry_after_seconds);
  return e;
}

Error Error::unavailable(std::string message, int64_t retry_after_seconds) {
  Error e = make(StatusCode::kUnavailable, "", std::move(message));
  e.retry_after_seconds = std::max<int64_t>(1, retry_after_seconds);
  return e;
}

Error Error::internal(std::string message) {
  return make(StatusCode::kInternal, "", std::move(message));
}

}  // namespace licensed
