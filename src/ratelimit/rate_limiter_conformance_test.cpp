// One suite for every RateLimiter: GCRA in memory (on an injected clock) and GCRA in a
// Redis script (on Redis' own clock). They must agree. Redis' clock moves while a test
// runs, so where an answer depends on time the Redis answer may be smaller than the
// memory one by the time the test has taken, never larger: each check allows exactly
// the elapsed time the test measured, so nothing here depends on the machine's speed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ratelimit/memory_rate_limiter.h"
#include "ratelimit/redis_rate_limiter.h"
#include "support/await_answer.h"
#include "support/redis_server.h"
#include "support/redis_test_keys.h"

namespace licensed {
namespace {

class LimiterUnderTest {
 public:
  virtual ~LimiterUnderTest() = default;
  virtual std::unique_ptr<RateLimiter> make(RateSpec spec) = 0;
  virtual UnixMillis now() = 0;
  // Lets `ms` pass, as far as the limiter can tell.
  virtual void let_pass(int64_t ms) = 0;
  // Whole seconds the limiter's clock may have moved since the test began, rounded up.
  virtual int64_t clock_slack_seconds() = 0;
};

class MemoryUnderTest final : public LimiterUnderTest {
 public:
  std::unique_ptr<RateLimiter> make(RateSpec spec) override {
    return std::make_unique<MemoryRateLimiter>(spec);
  }
  UnixMillis now() override { return clock_.now_ms(); }
  void let_pass(int64_t ms) override { clock_.advance_ms(ms); }
  int64_t clock_slack_seconds() override { return 0; }

 private:
  ManualClock clock_{1'790'000'000'000};
};

class RedisUnderTest final : public LimiterUnderTest {
 public:
  std::unique_ptr<RateLimiter> make(RateSpec spec) override {
    return std::make_unique<RedisRateLimiter>(client_, spec, bb::UniqueKeyPrefix(), clock_);
  }
  // Ignored by the Redis limiter, which reads Redis' clock.
  UnixMillis now() override { return 0; }
  void let_pass(int64_t ms) override { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
  int64_t clock_slack_seconds() override {
    const auto elapsed = std::chrono::steady_clock::now() - started_;
    return std::chrono::ceil<std::chrono::seconds>(elapsed).count();
  }

 private:
  SystemClock clock_;
  RedisClient client_{bb::ClientOptionsFor(bb::SharedRedis())};
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

using Factory = std::function<std::unique_ptr<LimiterUnderTest>()>;

class RateLimiterConformance : public ::testing::TestWithParam<std::pair<const char*, Factory>> {
 protected:
  void SetUp() override { impl_ = GetParam().second(); }
  RateDecision admit(RateLimiter& l, std::string_view key) { return l.admit(key, impl_->now()); }
  // The admit a network thread makes: in memory answered before it returns, on the
  // caller's thread (no hop); from Redis on one of the client's workers.
  RateDecision admit_from_network_thread(RateLimiter& l, std::string_view key) {
    const auto answer = bb::AwaitAnswer<RateDecision>(
        [&](Completion<RateDecision> done) { l.admit_async(key, impl_->now(), std::move(done)); });
    bb::ExpectAnsweredFrom(answer, std::string_view(GetParam().first) == "memory");
    return answer.value.value_or(RateDecision{true, 0});
  }
  // A refusal whose Retry-After is `expected` on a clock that stood still.
  void expect_refused(const RateDecision& d, int64_t expected) {
    EXPECT_FALSE(d.allowed);
    EXPECT_LE(d.retry_after_seconds, expected);
    EXPECT_GE(d.retry_after_seconds, std::max<int64_t>(1, expected - impl_->clock_slack_seconds()));
  }
  std::unique_ptr<LimiterUnderTest> impl_;
};

TEST_P(RateLimiterConformance, AdmitsABurstOfNThenRefusesUntilTheNextSlot) {
  auto l = impl_->make({3, 3'600'000});  // one slot every 20 minutes
  for (int i = 0; i < 3; ++i) {
    const RateDecision d = admit(*l, "10.0.0.1");
    EXPECT_TRUE(d.allowed) << i;
    EXPECT_EQ(d.retry_after_seconds, 0);
  }
  expect_refused(admit(*l, "10.0.0.1"), 1200);
}

TEST_P(RateLimiterConformance, RetryAfterIsRoundedUpToWholeSeconds) {
  auto l = impl_->make({2, 3'000});  // a slot every 1.5 s: the wait is 2 s
  ASSERT_TRUE(admit(*l, "k").allowed);
  ASSERT_TRUE(admit(*l, "k").allowed);
  expect_refused(admit(*l, "k"), 2);
}

TEST_P(RateLimiterConformance, RefusedRequestsCostNothing) {
  auto l = impl_->make({1, 3'600'000});
  ASSERT_TRUE(admit(*l, "k").allowed);
  // Were refusals counted, each would push the wait another hour further.
  for (int i = 0; i < 5; ++i) expect_refused(admit(*l, "k"), 3600);
}

TEST_P(RateLimiterConformance, BucketsAreIndependent) {
  auto l = impl_->make({1, 3'600'000});
  EXPECT_TRUE(admit(*l, "203.0.113.9").allowed);
  EXPECT_FALSE(admit(*l, "203.0.113.9").allowed);
  EXPECT_TRUE(admit(*l, "198.51.100.7").allowed);
}

TEST_P(RateLimiterConformance, LimitersWithDifferentSpecsDoNotShareBuckets) {
  auto strict = impl_->make({1, 3'600'000});
  auto lenient = impl_->make({5, 3'600'000});
  ASSERT_TRUE(admit(*strict, "same-name").allowed);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(admit(*lenient, "same-name").allowed) << i;
  EXPECT_FALSE(admit(*strict, "same-name").allowed);
}

TEST_P(RateLimiterConformance, AFullPeriodLaterTheWholeBurstIsBack) {
  auto l = impl_->make({3, 300});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(admit(*l, "k").allowed) << i;
  impl_->let_pass(350);
  // More time passing can only admit more, so this holds however slow the machine is.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(admit(*l, "k").allowed) << i;
}

TEST_P(RateLimiterConformance, AnAdmitFromANetworkThreadCountsInTheSameBucket) {
  auto l = impl_->make({2, 3'600'000});  // one slot every 30 minutes
  EXPECT_TRUE(admit_from_network_thread(*l, "k").allowed);
  EXPECT_TRUE(admit(*l, "k").allowed);
  expect_refused(admit_from_network_thread(*l, "k"), 1800);
  expect_refused(admit(*l, "k"), 1800);
}

TEST_P(RateLimiterConformance, ConcurrentAdmitsNeverOvershoot) {
  auto l = impl_->make({100, 86'400'000});  // a slot every 14.4 minutes: no refill here
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) admitted += admit(*l, "shared").allowed ? 1 : 0;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(admitted.load(), 100);
}

INSTANTIATE_TEST_SUITE_P(
    AllLimiters, RateLimiterConformance,
    ::testing::Values(
        std::make_pair("memory", Factory([] { return std::make_unique<MemoryUnderTest>(); })),
        std::make_pair("redis", Factory([] { return std::make_unique<RedisUnderTest>(); }))),
    [](const auto& info) { return std::string(info.param.first); });

// Redis only.

TEST(RedisRateLimiter, ReadsRedisClockNotTheCallers) {
  SystemClock clock;
  RedisClient client(bb::ClientOptionsFor(bb::SharedRedis()));
  RedisRateLimiter l(client, {1, 3'600'000}, bb::UniqueKeyPrefix(), clock);
  // Two instances whose clocks disagree by a day still share one bucket.
  EXPECT_TRUE(l.admit("k", 1'790'000'000'000).allowed);
  EXPECT_FALSE(l.admit("k", 1'790'000'000'000 + 86'400'000).allowed);
}

TEST(RedisRateLimiter, ReloadsItsScriptWhenRedisForgotIt) {
  SystemClock clock;
  RedisClient client(bb::ClientOptionsFor(bb::SharedRedis()));
  RedisRateLimiter l(client, {1, 3'600'000}, bb::UniqueKeyPrefix(), clock);
  ASSERT_TRUE(l.admit("k", 0).allowed);
  ASSERT_TRUE(client.command({"SCRIPT", "FLUSH"}).ok());
  EXPECT_FALSE(l.admit("k", 0).allowed);
  EXPECT_EQ(l.failed_open_count(), 0u);
}

TEST(RedisRateLimiter, FailsOpenWhileRedisIsDownAndRecoversByItself) {
  bb::RedisServer server;
  SystemClock clock;
  RedisClient client(bb::ClientOptionsFor(server));
  RedisRateLimiter l(client, {1, 3'600'000}, bb::UniqueKeyPrefix(), clock);
  ASSERT_TRUE(l.admit("k", 0).allowed);
  ASSERT_FALSE(l.admit("k", 0).allowed);

  server.Stop();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(l.admit("k", 0).allowed) << i;
  // The admit a network thread makes fails open alike.
  const auto parked = bb::AwaitAnswer<RateDecision>(
      [&](Completion<RateDecision> done) { l.admit_async("k", 0, std::move(done)); });
  EXPECT_TRUE(parked.value && parked.value->allowed);
  EXPECT_EQ(l.failed_open_count(), 4u);

  server.Start();  // empty: the bucket starts full again
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  uint64_t failures = l.failed_open_count();
  RateDecision d{true, 0};
  // Admitted while the no-reconnect pause lasts (each counted), then limited again.
  while (d.allowed && std::chrono::steady_clock::now() < deadline) {
    d = l.admit("k", 0);
    if (l.failed_open_count() > failures) {
      failures = l.failed_open_count();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_FALSE(d.allowed) << "the limit never came back after Redis did";
}

}  // namespace
}  // namespace licensed
