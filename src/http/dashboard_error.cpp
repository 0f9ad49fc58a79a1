#include "http/dashboard_error.h"

#include "http/license_api_error.h"

namespace licensed {

ApiError not_signed_in() {
  ApiError e = errors::unauthorized();
  e.message = "sign in with your license key";
  return e;
}

ApiError wrong_key() {
  ApiError e = errors::unauthorized();
  e.message = "that license key is not known";
  return e;
}

ApiError spent_sign_in_link() {
  ApiError e = errors::unauthorized();
  e.message = "this sign-in link was used already or is more than 10 minutes old";
  return e;
}

ApiError to_dashboard_error(const Error& error, DashboardStep step) {
  switch (error.code) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kConflict:
      return errors::malformed(error.subject, error.message);
    case StatusCode::kNotFound:
      if (error.subject == subjects::kMachineId) {
        ApiError e = to_api_error(error);
        e.message = "that machine is no longer activated on this license";
        return e;
      }
      return step == DashboardStep::kSignIn ? wrong_key() : not_signed_in();
    // The store and the session store alike: the customer needs only to wait.
    case StatusCode::kUnavailable:
      return errors::unavailable(error.retry_after_seconds.value_or(1),
                                 "temporarily unavailable; retry later");
    // The rest as the License API answers them (1707, 1706, 1709).
    case StatusCode::kRateLimited:
    case StatusCode::kInternal:
    case StatusCode::kCount:
      break;
  }
  return to_api_error(error);
}

}  // namespace licensed
