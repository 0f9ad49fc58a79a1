// Exponential backoff with jitter for transient failures (500, 503, network).
#pragma once

#include <chrono>
#include <cstdint>

namespace licensed::client {

struct BackoffPolicy {
  std::chrono::milliseconds base{250};
  std::chrono::milliseconds cap{4000};
};

// The wait before retry number `retry` (0 for the first retry): a uniformly jittered
// value in [half, all] of min(cap, base * 2^retry), where `unit` in [0, 1) picks the point.
// Half the window stays fixed so the waits still grow; the jitter spreads clients that
// failed together (a restart, a lock) so they do not come back together.
std::chrono::milliseconds backoff_delay(const BackoffPolicy& policy, int retry, double unit);

}  // namespace licensed::client
