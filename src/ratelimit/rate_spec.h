// A rate limit as configured (docs/protocol.md §11): "N per period with a burst of N".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/result.h"

namespace licensed {

struct RateSpec {
  int64_t count;      // requests admitted per period, and the burst size
  int64_t period_ms;  // length of the period
};

// "N/PERIOD", PERIOD being an optional positive multiplier and a unit: s, m, h or d
// ("120/1m", "600/m", "10/30s", "1000/1d"); or "off", which yields std::nullopt.
// N is 1 to 1,000,000,000 and PERIOD at most 366 days, which keeps the limiter's
// arithmetic far from overflow. Errors are kInvalidArgument.
Result<std::optional<RateSpec>> parse_rate_spec(std::string_view text);

}  // namespace licensed
