#include "http/license_api_error.h"

namespace licensed {

ApiError to_api_error(const Error& error) {
  switch (error.code) {
    case StatusCode::kNotFound:
      return error.subject == subjects::kMachineId ? errors::machine_not_activated()
                                                   : errors::not_found();
    case StatusCode::kRateLimited:
      return errors::rate_limited(error.subject, error.retry_after_seconds.value_or(1));
    case StatusCode::kUnavailable:
      return errors::unavailable(error.retry_after_seconds.value_or(1),
                                 "the license store is temporarily unavailable");
    // The pipeline checked everything the client sent before an internal layer saw it:
    // an argument or state those layers refuse is the server's fault, not the client's.
    case StatusCode::kInvalidArgument:
    case StatusCode::kConflict:
    case StatusCode::kInternal:
    case StatusCode::kCount:
      break;
  }
  return errors::internal();
}

}  // namespace licensed
