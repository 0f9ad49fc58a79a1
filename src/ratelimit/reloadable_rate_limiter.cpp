#include "ratelimit/reloadable_rate_limiter.h"

#include <utility>

namespace licensed {
namespace {

bool same(const std::optional<RateSpec>& a, const std::optional<RateSpec>& b) {
  if (!a || !b) return !a && !b;
  return a->count == b->count && a->period_ms == b->period_ms;
}

}  // namespace

ReloadableRateLimiter::ReloadableRateLimiter(std::optional<RateSpec> spec, Factory make)
    : make_(std::move(make)) {
  set_spec(spec);
}

RateDecision ReloadableRateLimiter::admit(std::string_view bucket_key, UnixMillis now) {
  RateLimiter* limiter = current_.load();
  if (limiter == nullptr) return {true, 0};
  return limiter->admit(bucket_key, now);
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): passed on by value
void ReloadableRateLimiter::admit_async(std::string_view bucket_key, UnixMillis now,
                                        Completion<RateDecision> done) {
  RateLimiter* limiter = current_.load();
  if (limiter == nullptr) return done(RateDecision{true, 0});
  limiter->admit_async(bucket_key, now, std::move(done));
}

bool ReloadableRateLimiter::set_spec(std::optional<RateSpec> spec) {
  MutexLock lock(mu_);
  if (same(spec_, spec)) return false;
  spec_ = spec;
  if (!spec) {
    current_.store(nullptr);
    return true;
  }
  made_.push_back(make_(*spec));
  current_.store(made_.back().get());
  return true;
}

std::optional<RateSpec> ReloadableRateLimiter::spec() const {
  MutexLock lock(mu_);
  return spec_;
}

double ReloadableRateLimiter::sum(const std::function<double(const RateLimiter&)>& count) const {
  MutexLock lock(mu_);
  double total = 0;
  for (const auto& l : made_) total += count(*l);
  return total;
}

}  // namespace licensed
