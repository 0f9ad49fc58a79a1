// The inside's own status: what went wrong in a store, Redis, the configuration, the
// listener or an admin operation, said in terms of what a caller can do about it. It
// never goes on the wire as it is: each surface turns it into its own answer in one
// function (the License API: to_api_error, src/http/license_api_error.h; the admin API:
// to_admin_api_error; the dashboard: to_dashboard_error; the command line:
// exit_code_of and cli_error_text, src/admin/cli_status.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace licensed {

// Success is not a status: a Result holds its value instead.
enum class StatusCode : uint8_t {
  kInvalidArgument,  // the input is wrong: a config value, a member of an admin call, a cursor
  kNotFound,         // what `subject` names does not exist: a license key, a machine
  kConflict,         // it exists, but its state forbids the change: a slug or name taken,
                     // a license deleted (or not, for a restore), a key file already there
  kRateLimited,      // too many attempts: retry after `retry_after_seconds`
  kUnavailable,      // a fault that passes (a lock, a lost connection, a full queue): retry
  kInternal,         // a bug, or a fault that needs an operator (a corrupt file, bad SQL)
  kCount,            // not a status: how many there are, so translation tables cover each
};

inline constexpr size_t kStatusCodeCount = static_cast<size_t>(StatusCode::kCount);

// "invalid argument", "not found", ...: for logs and test names.
std::string_view status_code_name(StatusCode code);

// The member, setting or thing a status is about, where a surface needs to name it or
// tell two of them apart (1703 for a license key, 1707 for a machine).
namespace subjects {
inline constexpr std::string_view kLicenseKey = "licenseKey";
inline constexpr std::string_view kMachineId = "machineId";
}  // namespace subjects

struct Error {
  StatusCode code = StatusCode::kInternal;
  // What went wrong, for the log and the operator: a store's own words, a config line.
  // Sent to a client only where that surface's translation says so.
  std::string message;
  // The member or setting it is about ("max", "cursor", "config", subjects::kMachineId,
  // a rate-limit bucket's name); empty when nothing in particular.
  std::string subject;
  // kUnavailable, kRateLimited: seconds to wait before trying again.
  std::optional<int64_t> retry_after_seconds;

  static Error invalid_argument(std::string_view subject, std::string message);
  static Error not_found(std::string_view subject, std::string message);
  static Error conflict(std::string_view subject, std::string message);
  static Error rate_limited(std::string_view subject, int64_t retry_after_seconds,
                            std::string message);
  static Error unavailable(std::string message, int64_t retry_after_seconds = 1);
  static Error internal(std::string message);
};

}  // namespace licensed
