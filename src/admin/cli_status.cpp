#include "admin/cli_status.h"

namespace licensed {

int exit_code_of(StatusCode code, CliStage stage) {
  switch (code) {
    // A refused setting is a usage error of `serve`, as a refused flag is; a refused
    // argument of an admin operation is a refused operation.
    case StatusCode::kInvalidArgument:
      return stage == CliStage::kConfiguration ? kExitUsage : kExitRefused;
    // Scripts tell a refusal from a usage error by the code, and read stderr for why.
    case StatusCode::kNotFound:
    case StatusCode::kConflict:
    case StatusCode::kRateLimited:
    case StatusCode::kUnavailable:
    case StatusCode::kInternal:
    case StatusCode::kCount:
      break;
  }
  return kExitRefused;
}

namespace {
std::string under(std::string_view what, const std::string& detail) {
  if (detail.empty()) return std::string(what);
  return std::string(what) + " (" + detail + ")";
}
}  // namespace

std::string cli_error_text(const Error& error) {
  switch (error.code) {
    case StatusCode::kUnavailable:
      return under("the license store is temporarily unavailable", error.message);
    case StatusCode::kInternal:
      return under("internal error", error.message);
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kConflict:
    case StatusCode::kRateLimited:
    case StatusCode::kCount:
      break;
  }
  return error.message;
}

}  // namespace licensed
