// The rate-limiting seam (spec section 9): one bucket per key (a client IP or a license
// key), admitted or refused with the wait until the bucket admits one request. The
// in-memory limiter serves one instance; a shared one (Redis) serves a deployment.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/clock.h"

namespace licensed {

struct RateDecision {
  bool allowed;
  int64_t retry_after_seconds;  // 0 when allowed; otherwise at least 1, rounded up
};

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // Counts one request against `bucket_key` at `now` when it is admitted; a refused
  // request costs nothing.
  virtual RateDecision admit(std::string_view bucket_key, UnixMillis now) = 0;
};

}  // namespace licensed
