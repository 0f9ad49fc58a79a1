// When a failed webhook attempt is made again (docs/protocol.md §25): 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h and 10 h after the attempts that failed, each stretched by up to 10 % of jitter (so
// a receiver that comes back is not hit by every event at once) and never sooner than a
// Retry-After the endpoint sent; after the eighth attempt the delivery has failed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/clock.h"

namespace licensed {

inline constexpr int64_t kWebhookMaxAttempts = 8;

// After `attempts` failed attempts (1 for the first), the time of the next one, or nullopt
// when there is none. `jitter` in [0, 1) picks the share of the 10 %.
std::optional<UnixMillis> next_webhook_attempt(int64_t attempts, UnixMillis now, double jitter,
                                               std::optional<int64_t> retry_after_seconds);

// A Retry-After header's seconds (delta-seconds only; an HTTP date counts as absent),
// capped at a day.
std::optional<int64_t> parse_retry_after(std::string_view value);

}  // namespace licensed
