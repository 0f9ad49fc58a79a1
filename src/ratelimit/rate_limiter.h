// The rate-limiting seam (docs/protocol.md §11): one bucket per key (a client IP or a license
// key), admitted or refused with the wait until the bucket admits one request. The
// in-memory limiter serves one instance; a shared one (Redis) serves a deployment.
//
// Called from many threads at once: one limiter serves every network thread, so
// implementations are thread-safe, and concurrent admits of one bucket each count.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/clock.h"
#include "core/completion.h"

namespace licensed {

struct RateDecision {
  bool allowed;
  int64_t retry_after_seconds;  // 0 when allowed; otherwise at least 1, rounded up
};

// A refusal whose bucket admits one request again after `wait_ms`: Retry-After is that
// wait rounded up to whole seconds, at least 1. Every limiter answers through this.
inline RateDecision refused_for_ms(int64_t wait_ms) {
  return {false, wait_ms <= 1000 ? 1 : (wait_ms + 999) / 1000};
}

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // Counts one request against `bucket_key` at `now` when it is admitted; a refused
  // request costs nothing. A limiter shared by several instances (Redis) reads one
  // clock for all of them, its own, and ignores `now`. May wait on Redis: network
  // threads call admit_async.
  virtual RateDecision admit(std::string_view bucket_key, UnixMillis now) = 0;
  // The same for a network thread, which must not wait on I/O: `done` gets the
  // decision, before this returns when the buckets are in memory, else later from the
  // thread that asked Redis. The key need not outlive the call.
  // `done` by value, as the Redis override keeps it past the call.
  // NOLINTBEGIN(performance-unnecessary-value-param)
  virtual void admit_async(std::string_view bucket_key, UnixMillis now,
                           Completion<RateDecision> done) {
    done(admit(bucket_key, now));
  }
  // NOLINTEND(performance-unnecessary-value-param)
};

}  // namespace licensed
