// Every 500 (1709) a client gets goes through here: it is logged with its request id,
// endpoint and masked license key, and handed to the error reporter when one is
// configured (docs/protocol.md §5: "reported to error tracking"). The client sees only
// "internal error" and the request id, which leads an operator to this line.
#pragma once

#include <string>
#include <string_view>

#include "core/api_error.h"
#include "core/clock.h"
#include "core/request_body.h"
#include "observability/error_reporter.h"

namespace licensed {

inline bool is_internal_error(const ApiError& error) {
  return error.code == ErrorCode::kInternal;
}

// `license_key` is the full key (masked here), or empty when not known yet.
// `reporter` may be null: then the error is only logged.
void report_internal_error(ErrorReporter* reporter, Endpoint endpoint, std::string_view request_id,
                           std::string_view license_key, UnixMillis now);
// The same for an endpoint outside the License API (the admin API): `name` tags it,
// `route` is its path.
void report_internal_error(ErrorReporter* reporter, std::string_view name, std::string route,
                           std::string_view request_id, std::string_view license_key,
                           UnixMillis now);

}  // namespace licensed
