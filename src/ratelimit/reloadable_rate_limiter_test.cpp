// The limiter SIGHUP changes: off admits everything, a new spec takes effect at once,
// the same spec changes nothing, and counters of every limiter made are summed.
#include "ratelimit/reloadable_rate_limiter.h"

#include <gtest/gtest.h>

#include "ratelimit/memory_rate_limiter.h"

namespace licensed {
namespace {

ReloadableRateLimiter::Factory InMemory(int* made) {
  return [made](const RateSpec& spec) {
    ++*made;
    return std::make_unique<MemoryRateLimiter>(spec);
  };
}

TEST(ReloadableRateLimiter, OffAdmitsEverythingAndANewSpecTakesEffectAtOnce) {
  int made = 0;
  ReloadableRateLimiter limiter(std::nullopt, InMemory(&made));
  EXPECT_EQ(made, 0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.admit("k", 1000).allowed);
  EXPECT_TRUE(limiter.set_spec(RateSpec{1, 60'000}));
  EXPECT_TRUE(limiter.admit("k", 1000).allowed);
  const RateDecision refused = limiter.admit("k", 1000);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_seconds, 60);
  EXPECT_TRUE(limiter.set_spec(std::nullopt));
  EXPECT_TRUE(limiter.admit("k", 1000).allowed);
}

TEST(ReloadableRateLimiter, TheSameSpecAgainKeepsTheBuckets) {
  int made = 0;
  ReloadableRateLimiter limiter(RateSpec{1, 60'000}, InMemory(&made));
  EXPECT_TRUE(limiter.admit("k", 1000).allowed);
  EXPECT_FALSE(limiter.set_spec(RateSpec{1, 60'000}));
  EXPECT_FALSE(limiter.admit("k", 1000).allowed) << "a reload of the same file resets nothing";
  EXPECT_EQ(made, 1);
  EXPECT_TRUE(limiter.set_spec(RateSpec{2, 60'000}));
  EXPECT_EQ(made, 2);
  EXPECT_EQ(limiter.spec()->count, 2);
  EXPECT_EQ(limiter.sum([](const RateLimiter&) { return 1.0; }), 2.0);
}

TEST(ReloadableRateLimiter, AdmitAsyncGoesToTheLimiterInForce) {
  int made = 0;
  ReloadableRateLimiter limiter(RateSpec{1, 60'000}, InMemory(&made));
  std::optional<RateDecision> first, second;
  limiter.admit_async("k", 1000, [&first](RateDecision d) { first = d; });
  limiter.admit_async("k", 1000, [&second](RateDecision d) { second = d; });
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(first->allowed);
  EXPECT_FALSE(second->allowed);
}

}  // namespace
}  // namespace licensed
