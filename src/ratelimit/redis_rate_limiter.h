// GCRA shared by every instance, in Redis: the same algorithm as MemoryRateLimiter (one
// theoretical arrival time per bucket, kept as whole ms plus a fraction so N/period
// does not drift), run by one Lua script on Redis' own clock (TIME), so instances with
// skewed clocks still share one bucket and an admit is one atomic round trip.
//
// When Redis does not answer, requests are admitted (fail open): a limiter outage
// should not become a service outage. Each such admit is counted for /metrics and
// logged, throttled.
#pragma once

#include <cstdint>
#include <string>

#include "ratelimit/rate_limiter.h"
#include "ratelimit/rate_spec.h"
#include "redis/redis_client.h"
#include "redis/redis_outage_log.h"

namespace licensed {

class RedisRateLimiter final : public RateLimiter {
 public:
  // Buckets are the keys `<key_prefix><bucket key>`; give each limiter its own prefix
  // (one for IPs, one for license keys). `spec` as parse_rate_spec guarantees.
  RedisRateLimiter(RedisClient& redis, RateSpec spec, std::string key_prefix, const Clock& clock);

  RateDecision admit(std::string_view bucket_key, UnixMillis now) override;
  // On one of the client's workers, which calls `done`.
  void admit_async(std::string_view bucket_key, UnixMillis now,
                   Completion<RateDecision> done) override;

  // Requests admitted unchecked because Redis did not answer.
  uint64_t failed_open_count() const { return outage_.failures(); }

 private:
  RedisClient& redis_;
  const std::string count_;      // spec.count, as the script's argument
  const std::string period_ms_;  // spec.period_ms, likewise
  const std::string prefix_;
  RedisOutageLog outage_;
};

}  // namespace licensed
