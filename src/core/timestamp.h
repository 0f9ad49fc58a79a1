// RFC 3339 UTC timestamps with millisecond precision and a `Z` suffix, the contract's
// only timestamp format.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace licensed {

std::string format_timestamp(UnixMillis t);
// Accepts `YYYY-MM-DDTHH:MM:SS[.fff]Z` and `+00:00` offsets; nullopt otherwise.
std::optional<UnixMillis> parse_timestamp(std::string_view s);

}  // namespace licensed
