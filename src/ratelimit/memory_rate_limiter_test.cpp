#include "ratelimit/memory_rate_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace licensed {
namespace {

constexpr UnixMillis kT0 = 1'790'000'000'000;  // an ordinary wall-clock instant

int admitted_in_burst(RateLimiter& rl, std::string_view key, UnixMillis now, int tries) {
  int n = 0;
  for (int i = 0; i < tries; ++i) n += rl.admit(key, now).allowed ? 1 : 0;
  return n;
}

TEST(RateLimiter, BurstOfNIsAdmittedThenRefused) {
  MemoryRateLimiter rl(RateSpec{120, 60'000});
  for (int i = 0; i < 120; ++i) {
    const RateDecision d = rl.admit("ip:10.0.0.1", kT0);
    ASSERT_TRUE(d.allowed) << i;
    EXPECT_EQ(d.retry_after_seconds, 0);
  }
  const RateDecision refused = rl.admit("ip:10.0.0.1", kT0);
  EXPECT_FALSE(refused.allowed);
  // One request every 500 ms: the next slot is 0.5 s away, rounded up to 1.
  EXPECT_EQ(refused.retry_after_seconds, 1);
}

TEST(RateLimiter, RetryAfterIsWholeSecondsRoundedUpAndAtLeastOne) {
  MemoryRateLimiter rl(RateSpec{1, 60'000});
  ASSERT_TRUE(rl.admit("k", kT0).allowed);
  struct Case {
    int64_t at;
    int64_t retry;
  };
  for (const Case& c :
       {Case{0, 60}, Case{1, 60}, Case{999, 60}, Case{1'000, 59}, Case{1'001, 59}, Case{30'500, 30},
        Case{58'999, 2}, Case{59'000, 1}, Case{59'001, 1}, Case{59'999, 1}}) {
    const RateDecision d = rl.admit("k", kT0 + c.at);
    EXPECT_FALSE(d.allowed) << c.at;
    EXPECT_EQ(d.retry_after_seconds, c.retry) << c.at;
  }
  EXPECT_TRUE(rl.admit("k", kT0 + 60'000).allowed);
}

TEST(RateLimiter, RetryAfterMatchesTheNextSlotNotTheFullRefill) {
  MemoryRateLimiter rl(RateSpec{10, 60'000});  // one every 6 s
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0, 10), 10);
  EXPECT_EQ(rl.admit("k", kT0).retry_after_seconds, 6);
  EXPECT_EQ(rl.admit("k", kT0 + 5'500).retry_after_seconds, 1);
  EXPECT_EQ(rl.admit("k", kT0 + 4'000).retry_after_seconds, 2);
  // The retry-after is honest: waiting exactly that long is enough.
  const RateDecision d = rl.admit("k", kT0 + 100);
  ASSERT_FALSE(d.allowed);
  EXPECT_TRUE(rl.admit("k", kT0 + 100 + d.retry_after_seconds * 1000).allowed);
}

TEST(RateLimiter, RefusedRequestsCostNothing) {
  MemoryRateLimiter rl(RateSpec{2, 1'000});
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0, 2), 2);
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0 + 100, 1000), 0);
  // The slot at +500 ms is free however many requests were refused before it.
  EXPECT_FALSE(rl.admit("k", kT0 + 499).allowed);
  EXPECT_TRUE(rl.admit("k", kT0 + 500).allowed);
  EXPECT_FALSE(rl.admit("k", kT0 + 500).allowed);
}

TEST(RateLimiter, PeekTellsWhatAdmitWouldAnswerWithoutCounting) {
  MemoryRateLimiter rl(RateSpec{2, 1'000});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(rl.peek("k", kT0).allowed);
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0, 2), 2);
  const RateDecision peeked = rl.peek("k", kT0 + 100);
  EXPECT_FALSE(peeked.allowed);
  EXPECT_EQ(peeked.retry_after_seconds, rl.admit("k", kT0 + 100).retry_after_seconds);
  EXPECT_TRUE(rl.peek("k", kT0 + 500).allowed);
  EXPECT_TRUE(rl.admit("k", kT0 + 500).allowed);
}

TEST(RateLimiter, RecoversOneSlotPerIntervalAndTheFullBurstAfterAPeriod) {
  MemoryRateLimiter rl(RateSpec{120, 60'000});
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0, 200), 120);
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0 + 499, 5), 0);
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0 + 500, 5), 1);
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0 + 5'000, 50), 9);
  // A full period after the last admitted slot the bucket is full again.
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0 + 5'000 + 60'000, 200), 120);
}

TEST(RateLimiter, SteadyRateHasNoRoundingDrift) {
  // 7/1s is a 142.857... ms interval, 600/1m exactly 100 ms. Probing every millisecond
  // admits the burst plus exactly count per period, neither more nor less.
  struct Case {
    RateSpec spec;
    int64_t duration_ms;
    int expected;
  };
  for (const Case& c : {Case{{7, 1'000}, 10'000, 7 + 70}, Case{{600, 60'000}, 60'000, 1200},
                        Case{{3, 1'000}, 9'000, 3 + 27}, Case{{1'000, 1'000}, 3'000, 4'000}}) {
    MemoryRateLimiter rl(c.spec);
    int admitted = 0;
    for (int64_t t = 0; t <= c.duration_ms; ++t) {
      for (int i = 0; i < 3; ++i) admitted += rl.admit("k", kT0 + t).allowed ? 1 : 0;
    }
    EXPECT_EQ(admitted, c.expected) << c.spec.count << "/" << c.spec.period_ms;
  }
}

TEST(RateLimiter, KeysAreIndependent) {
  MemoryRateLimiter rl(RateSpec{3, 60'000});
  EXPECT_EQ(admitted_in_burst(rl, "a", kT0, 10), 3);
  EXPECT_EQ(admitted_in_burst(rl, "b", kT0, 10), 3);
  EXPECT_EQ(admitted_in_burst(rl, "A", kT0, 10), 3);
  EXPECT_EQ(admitted_in_burst(rl, std::string("a\0b", 3), kT0, 10), 3);
  EXPECT_FALSE(rl.admit("a", kT0).allowed);
  EXPECT_EQ(rl.size(), 4u);
}

TEST(RateLimiter, ClockGoingBackwardsIsHandled) {
  MemoryRateLimiter rl(RateSpec{2, 10'000});
  EXPECT_EQ(admitted_in_burst(rl, "k", kT0, 2), 2);
  // An earlier `now` (another thread's older reading) only makes the bucket look fuller.
  const RateDecision d = rl.admit("k", kT0 - 3'000);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after_seconds, 8);
}

TEST(RateLimiter, StaleBucketsAreSweptWithoutChangingDecisions) {
  MemoryRateLimiter rl(RateSpec{1, 1'000}, /*shards=*/4);
  for (int i = 0; i < 10'000; ++i) ASSERT_TRUE(rl.admit("old" + std::to_string(i), kT0).allowed);
  EXPECT_EQ(rl.size(), 10'000u);
  // Two seconds later every old bucket is full again and carries no information.
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_TRUE(rl.admit("new" + std::to_string(i), kT0 + 2'000).allowed);
  }
  EXPECT_LT(rl.size(), 12'000u);
  EXPECT_GE(rl.size(), 10'000u);
  // Swept or not, an old bucket behaves as a fresh one, and a live one stays refused.
  EXPECT_TRUE(rl.admit("old1", kT0 + 2'000).allowed);
  EXPECT_FALSE(rl.admit("new1", kT0 + 2'000).allowed);
}

TEST(RateLimiter, LiveBucketsAreNeverSwept) {
  MemoryRateLimiter rl(RateSpec{1, 3'600'000}, /*shards=*/1);
  for (int i = 0; i < 5'000; ++i) ASSERT_TRUE(rl.admit(std::to_string(i), kT0 + i).allowed);
  EXPECT_EQ(rl.size(), 5'000u);
  for (int i = 0; i < 5'000; ++i) EXPECT_FALSE(rl.admit(std::to_string(i), kT0 + 6'000).allowed);
}

TEST(RateLimiter, ConcurrentBurstAdmitsExactlyN) {
  constexpr int kThreads = 8;
  constexpr int kTriesPerThread = 2'000;
  constexpr int kKeys = 50;
  MemoryRateLimiter rl(RateSpec{500, 60'000}, /*shards=*/8);
  std::atomic<int> hot{0};
  std::vector<std::atomic<int>> per_key(kKeys);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kTriesPerThread; ++i) {
        if (rl.admit("hot", kT0).allowed) hot.fetch_add(1);
        const int k = (i + t) % kKeys;
        if (rl.admit("key" + std::to_string(k), kT0).allowed) per_key[k].fetch_add(1);
      }
    });
  }
  go.store(true);
  for (auto& th : threads) th.join();
  EXPECT_EQ(hot.load(), 500);
  // Each key got 8 * 2000 / 50 = 320 tries, all under the 500 burst.
  for (int k = 0; k < kKeys; ++k) EXPECT_EQ(per_key[k].load(), 320) << k;
  EXPECT_EQ(rl.size(), kKeys + 1u);
}

}  // namespace
}  // namespace licensed
