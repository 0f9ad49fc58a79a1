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

// A DURATION (docs/protocol.md §10): "90s", "10m", "12h", "7d" -> seconds; nullopt for
// anything else, zero, or beyond kMaxDurationSeconds (100 years).
std::optional<int64_t> parse_duration_seconds(std::string_view text);

}  // namespace licensed
