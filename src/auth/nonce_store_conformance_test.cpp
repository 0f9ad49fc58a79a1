// One suite for every NonceStore: the in-memory store (on an injected clock) and the
// Redis store (on a real Redis, its own clock). Whatever the rules say here holds for a
// single instance and for a deployment alike.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "auth/memory_nonce_store.h"
#include "auth/redis_nonce_store.h"
#include "support/await_answer.h"
#include "support/redis_server.h"
#include "support/redis_test_keys.h"

namespace licensed {
namespace {

class NonceStoreUnderTest {
 public:
  virtual ~NonceStoreUnderTest() = default;
  virtual NonceStore& store() = 0;
  virtual UnixMillis now() = 0;
  // Lets `ms` pass, as far as the store can tell.
  virtual void let_pass(int64_t ms) = 0;
  // How long after its expiry an entry may still be remembered (0: forgotten exactly
  // at its expiry).
  virtual int64_t late_by_at_most_ms() const = 0;
};

class MemoryUnderTest final : public NonceStoreUnderTest {
 public:
  NonceStore& store() override { return store_; }
  UnixMillis now() override { return clock_.now_ms(); }
  void let_pass(int64_t ms) override { clock_.advance_ms(ms); }
  int64_t late_by_at_most_ms() const override { return kSliceMs; }

 private:
  static constexpr int64_t kSliceMs = 100;
  ManualClock clock_{1'790'000'000'000};
  MemoryNonceStore store_{20'000'000, 64, kSliceMs};
};

class RedisUnderTest final : public NonceStoreUnderTest {
 public:
  NonceStore& store() override { return store_; }
  UnixMillis now() override { return clock_.now_ms(); }
  // Redis expires keys on its own clock: real time must pass.
  void let_pass(int64_t ms) override { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
  // PX: Redis forgets a key at its expiry.
  int64_t late_by_at_most_ms() const override { return 0; }

 private:
  SystemClock clock_;
  RedisClient client_{bb::ClientOptionsFor(bb::SharedRedis())};
  RedisNonceStore store_{client_, bb::UniqueKeyPrefix(), clock_};
};

using Factory = std::function<std::unique_ptr<NonceStoreUnderTest>()>;

class NonceStoreConformance : public ::testing::TestWithParam<std::pair<const char*, Factory>> {
 protected:
  void SetUp() override { impl_ = GetParam().second(); }
  NonceVerdict check(std::string_view key_id, std::string_view nonce, int64_t keep_ms = 600'000) {
    const UnixMillis now = impl_->now();
    return impl_->store().check_and_insert(key_id, nonce, now, now + keep_ms);
  }
  // The check a network thread makes: in memory answered before it returns, on the
  // caller's thread (no hop); from Redis on one of the client's workers.
  NonceVerdict check_from_network_thread(std::string_view key_id, std::string_view nonce) {
    const UnixMillis now = impl_->now();
    const auto answer = bb::AwaitAnswer<NonceVerdict>([&](Completion<NonceVerdict> done) {
      impl_->store().check_and_insert_async(key_id, nonce, now, now + 600'000, 0, std::move(done));
    });
    bb::ExpectAnsweredFrom(answer, std::string_view(GetParam().first) == "memory");
    return answer.value.value_or(NonceVerdict::kUnavailable);
  }
  std::unique_ptr<NonceStoreUnderTest> impl_;
};

TEST_P(NonceStoreConformance, ACheckFromANetworkThreadGivesTheSameVerdicts) {
  EXPECT_EQ(check_from_network_thread("plugin", "parked-nonce-0123456"), NonceVerdict::kFresh);
  EXPECT_EQ(check_from_network_thread("plugin", "parked-nonce-0123456"), NonceVerdict::kReused);
  EXPECT_EQ(check("plugin", "parked-nonce-0123456"), NonceVerdict::kReused);
  EXPECT_EQ(check("plugin", "checked-nonce-0123456"), NonceVerdict::kFresh);
  EXPECT_EQ(check_from_network_thread("plugin", "checked-nonce-0123456"), NonceVerdict::kReused);
}

TEST_P(NonceStoreConformance, FirstSightingIsFreshThenReused) {
  EXPECT_EQ(check("plugin", "n0ncE_0123456789"), NonceVerdict::kFresh);
  EXPECT_EQ(check("plugin", "n0ncE_0123456789"), NonceVerdict::kReused);
  EXPECT_EQ(check("plugin", "n0ncE_0123456789"), NonceVerdict::kReused);
}

TEST_P(NonceStoreConformance, NoncesAreCaseSensitive) {
  EXPECT_EQ(check("k", "abcdefghijklmnop"), NonceVerdict::kFresh);
  EXPECT_EQ(check("k", "ABCDEFGHIJKLMNOP"), NonceVerdict::kFresh);
}

TEST_P(NonceStoreConformance, KeyIdsAreIndependentAndPairsUnambiguous) {
  EXPECT_EQ(check("plugin-2025", "same-nonce-123456"), NonceVerdict::kFresh);
  EXPECT_EQ(check("plugin-2026", "same-nonce-123456"), NonceVerdict::kFresh);
  EXPECT_EQ(check("plugin-2025", "same-nonce-123456"), NonceVerdict::kReused);
  EXPECT_EQ(check("ab", "cdefghijklmnopqrs"), NonceVerdict::kFresh);
  EXPECT_EQ(check("abc", "defghijklmnopqrs"), NonceVerdict::kFresh);
}

// Remembered at least until its expiry; forgotten once it, and the store's leeway after
// it, have passed.
TEST_P(NonceStoreConformance, RememberedUntilItsExpiryThenForgotten) {
  constexpr int64_t kKeepMs = 1'000;
  EXPECT_EQ(check("k", "short-lived-nonce-1", kKeepMs), NonceVerdict::kFresh);
  EXPECT_EQ(check("k", "short-lived-nonce-1", kKeepMs), NonceVerdict::kReused);
  // Well before the expiry (real time, for Redis, may run a little ahead of the sleep).
  impl_->let_pass(kKeepMs / 2);
  EXPECT_EQ(check("k", "short-lived-nonce-1", kKeepMs), NonceVerdict::kReused);
  impl_->let_pass(kKeepMs / 2 + impl_->late_by_at_most_ms() + 50);
  EXPECT_EQ(check("k", "short-lived-nonce-1", kKeepMs), NonceVerdict::kFresh);
  EXPECT_EQ(check("k", "short-lived-nonce-1", kKeepMs), NonceVerdict::kReused);
}

TEST_P(NonceStoreConformance, ConcurrentChecksOfOneNonceAcceptItOnce) {
  constexpr int kThreads = 8;
  constexpr int kNonces = 50;
  std::atomic<int> fresh{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kNonces; ++i) {
        if (check("k", "racing-nonce-" + std::to_string(i) + "-abcdef") == NonceVerdict::kFresh) {
          ++fresh;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(fresh.load(), kNonces);
}

INSTANTIATE_TEST_SUITE_P(
    AllStores, NonceStoreConformance,
    ::testing::Values(
        std::make_pair("memory", Factory([] { return std::make_unique<MemoryUnderTest>(); })),
        std::make_pair("redis", Factory([] { return std::make_unique<RedisUnderTest>(); }))),
    [](const auto& info) { return std::string(info.param.first); });

// Redis only: what happens when it is away.

TEST(RedisNonceStore, FailsClosedWhileRedisIsDownAndRecoversByItself) {
  bb::RedisServer server;
  SystemClock clock;
  RedisClient client(bb::ClientOptionsFor(server));
  RedisNonceStore store(client, bb::UniqueKeyPrefix(), clock);
  const UnixMillis now = clock.now_ms();
  ASSERT_EQ(store.check_and_insert("k", "before-the-outage-1", now, now + 60'000),
            NonceVerdict::kFresh);

  server.Stop();
  EXPECT_EQ(store.check_and_insert("k", "during-the-outage-1", now, now + 60'000),
            NonceVerdict::kUnavailable);
  EXPECT_EQ(store.check_and_insert("k", "during-the-outage-2", now, now + 60'000),
            NonceVerdict::kUnavailable);
  // The check a network thread makes fails closed alike.
  const auto parked = bb::AwaitAnswer<NonceVerdict>([&](Completion<NonceVerdict> done) {
    store.check_and_insert_async("k", "during-the-outage-3", now, now + 60'000, 0, std::move(done));
  });
  EXPECT_EQ(parked.value, NonceVerdict::kUnavailable);
  EXPECT_GE(store.unavailable_count(), 3u);

  server.Start();
  // The first call may still fall in the short no-reconnect pause after a failure.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  NonceVerdict v = NonceVerdict::kUnavailable;
  while (v == NonceVerdict::kUnavailable && std::chrono::steady_clock::now() < deadline) {
    v = store.check_and_insert("k", "after-the-outage-1", now, now + 60'000);
    if (v == NonceVerdict::kUnavailable) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(v, NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "after-the-outage-1", now, now + 60'000),
            NonceVerdict::kReused);
}

TEST(RedisNonceStore, AfterRedisLostItsDataRequestsDatedUpToThenAreStale) {
  bb::RedisServer server;
  SystemClock clock;
  RedisClient client(bb::ClientOptionsFor(server));
  RedisNonceStore store(client, bb::UniqueKeyPrefix(), clock);
  ASSERT_TRUE(store.start_remembering().ok());
  const UnixMillis now = clock.now_ms();
  const int64_t now_s = clock.now_seconds();
  ASSERT_EQ(store.check_and_insert("k", "accepted-before-1", now, now + 60'000, now_s + 30),
            NonceVerdict::kFresh);
  ASSERT_EQ(store.check_and_insert("k", "accepted-before-1", now, now + 60'000, now_s + 30),
            NonceVerdict::kReused);

  ASSERT_TRUE(client.command({"FLUSHALL"}).ok());  // as a restart without persistence
  // Dated before the loss: its nonce may have been forgotten, so it cannot be accepted.
  EXPECT_EQ(store.check_and_insert("k", "dated-before-loss", now, now + 60'000, now_s - 1),
            NonceVerdict::kStale);
  EXPECT_EQ(store.check_and_insert("k", "dated-after-loss", now, now + 60'000, now_s + 30),
            NonceVerdict::kFresh);
  // Nonces loaded at start-up carry no date and are never stale.
  EXPECT_EQ(store.check_and_insert("k", "loaded-at-start", now, now + 60'000),
            NonceVerdict::kFresh);
}

TEST(RedisNonceStore, AnErrorReplyFailsClosed) {
  bb::RedisServer server;
  SystemClock clock;
  RedisClient client(bb::ClientOptionsFor(server));
  RedisNonceStore store(client, bb::UniqueKeyPrefix(), clock);
  // Out of memory with no eviction: Redis refuses every write with -OOM.
  ASSERT_TRUE(client.command({"CONFIG", "SET", "maxmemory-policy", "noeviction"}).ok());
  ASSERT_TRUE(client.command({"CONFIG", "SET", "maxmemory", "1"}).ok());
  const UnixMillis now = clock.now_ms();
  EXPECT_EQ(store.check_and_insert("k", "not-remembered-123", now, now + 60'000),
            NonceVerdict::kUnavailable);
}

}  // namespace
}  // namespace licensed
