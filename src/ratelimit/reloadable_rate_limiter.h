// A configured rate limit that SIGHUP can change: it passes each request to the limiter
// made for the spec in force, and admits everything while the limit is off. A new spec
// makes a new limiter (fresh buckets, which only ever lets a few more requests through
// once); the old ones are kept, since a request may still be counting in one and their
// counters (Redis fail-open) are summed for /metrics.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/mutex.h"
#include "ratelimit/rate_limiter.h"
#include "ratelimit/rate_spec.h"

namespace licensed {

class ReloadableRateLimiter final : public RateLimiter {
 public:
  using Factory = std::function<std::unique_ptr<RateLimiter>(const RateSpec&)>;
  // `make` builds the limiter of a spec (in memory, or on Redis); nullopt: off.
  ReloadableRateLimiter(std::optional<RateSpec> spec, Factory make);

  RateDecision admit(std::string_view bucket_key, UnixMillis now) override;
  // NOLINTBEGIN(performance-unnecessary-value-param)
  void admit_async(std::string_view bucket_key, UnixMillis now,
                   Completion<RateDecision> done) override;
  // NOLINTEND(performance-unnecessary-value-param)

  // The spec in force from now on; false when it is the one already in force.
  bool set_spec(std::optional<RateSpec> spec) EXCLUDES(mu_);
  std::optional<RateSpec> spec() const EXCLUDES(mu_);
  // The sum of `count` over every limiter made so far.
  double sum(const std::function<double(const RateLimiter&)>& count) const EXCLUDES(mu_);

 private:
  Factory make_;
  std::atomic<RateLimiter*> current_{nullptr};  // null: off
  mutable Mutex mu_;
  std::optional<RateSpec> spec_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<RateLimiter>> made_ GUARDED_BY(mu_);
};

}  // namespace licensed
