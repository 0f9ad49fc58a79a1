#include "http/bucket_check.h"

namespace licensed {

void check_bucket(RateLimiter* limiter, std::string_view key, std::string_view bucket,
                  UnixMillis now, CheckDone done) {
  if (limiter == nullptr) return done(std::nullopt);
  limiter->admit_async(key, now, [bucket, done = std::move(done)](RateDecision d) {
    if (d.allowed) return done(std::nullopt);
    done(errors::rate_limited(bucket, d.retry_after_seconds));
  });
}

}  // namespace licensed
