#include "http/admin_api_error.h"

#include "http/license_api_error.h"

namespace licensed {

ApiError to_admin_api_error(const Error& error) {
  switch (error.code) {
    // A conflict answers 1702 like a bad member: the contract has no code of its own for
    // "already exists" or "is deleted", and the message says which it is.
    case StatusCode::kInvalidArgument:
    case StatusCode::kConflict:
      return errors::malformed(error.subject, error.message);
    // The rest as the License API answers them (1703 or 1707, 1706, 1708, 1709).
    case StatusCode::kNotFound:
    case StatusCode::kRateLimited:
    case StatusCode::kUnavailable:
    case StatusCode::kInternal:
    case StatusCode::kCount:
      break;
  }
  return to_api_error(error);
}

}  // namespace licensed
