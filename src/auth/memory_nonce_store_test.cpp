#include "auth/memory_nonce_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace licensed {
namespace {

constexpr UnixMillis kT0 = 1'790'000'000'000;
constexpr UnixMillis kKeep = 600'000;  // twice a 300 s window

std::string nonce(int i) {
  return "nonce-" + std::to_string(i) + "-abcdefghijklmnop";
}

TEST(NonceStore, FreshThenReused) {
  MemoryNonceStore store;
  EXPECT_EQ(store.check_and_insert("plugin", "n0ncE_0123456789", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("plugin", "n0ncE_0123456789", kT0, kT0 + kKeep),
            NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("plugin", "n0ncE_0123456789", kT0 + 1'000, kT0 + kKeep),
            NonceVerdict::kReused);
  EXPECT_EQ(store.size(), 1u);
}

TEST(NonceStore, NoncesAreCaseSensitive) {
  MemoryNonceStore store;
  EXPECT_EQ(store.check_and_insert("k", "abcdefghijklmnop", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "ABCDEFGHIJKLMNOP", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
}

TEST(NonceStore, KeyIdsAreIndependent) {
  MemoryNonceStore store;
  EXPECT_EQ(store.check_and_insert("plugin-2025", "same-nonce-123456", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("plugin-2026", "same-nonce-123456", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("plugin-2025", "same-nonce-123456", kT0, kT0 + kKeep),
            NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("plugin-2026", "same-nonce-123456", kT0, kT0 + kKeep),
            NonceVerdict::kReused);
  // The separator keeps the pair unambiguous when concatenations coincide.
  EXPECT_EQ(store.check_and_insert("ab", "cdefghijklmnopqrs", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("abc", "defghijklmnopqrs", kT0, kT0 + kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.size(), 4u);
}

TEST(NonceStore, LongInputsAreHashedToo) {
  MemoryNonceStore store;
  const std::string a(1000, 'a');
  std::string b = a;
  b.back() = 'b';
  EXPECT_EQ(store.check_and_insert("k", a, kT0, kT0 + kKeep), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", b, kT0, kT0 + kKeep), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", a, kT0, kT0 + kKeep), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("", "", kT0, kT0 + kKeep), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("", "", kT0, kT0 + kKeep), NonceVerdict::kReused);
}

TEST(NonceStore, EntriesExpireAtTheirDeadline) {
  MemoryNonceStore store(100, 1);
  ASSERT_EQ(store.check_and_insert("k", nonce(1), kT0, kT0 + kKeep), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + kKeep - 1, kT0 + 2 * kKeep - 1),
            NonceVerdict::kReused);
  // At expires_at the entry is gone: remembered afresh with the new expiry.
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + kKeep, kT0 + 2 * kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + kKeep + 1, kT0 + 2 * kKeep + 1),
            NonceVerdict::kReused);
  EXPECT_EQ(store.size(), 1u);
}

TEST(NonceStore, ExpiredEntriesAreEvicted) {
  MemoryNonceStore store(1'000'000, 4);
  for (int i = 0; i < 1'000; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0 + i, kT0 + i + kKeep),
              NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.size(), 1'000u);
  // Each shard evicts its expired front when touched.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(store.check_and_insert("k", "later-" + nonce(i), kT0 + 2 * kKeep, kT0 + 3 * kKeep),
              NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.size(), 100u);
}

TEST(NonceStore, OutOfOrderExpiriesGiveExactVerdicts) {
  MemoryNonceStore store(100, 1);
  // b is queued behind a but expires first (a racing thread read its clock earlier).
  ASSERT_EQ(store.check_and_insert("k", nonce(1), kT0, kT0 + 2'000), NonceVerdict::kFresh);
  ASSERT_EQ(store.check_and_insert("k", nonce(2), kT0, kT0 + 1'000), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 999, kT0 + 3'000), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 1'500, kT0 + 3'500), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 1'600, kT0 + 3'600), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + 1'999, kT0 + 3'999), NonceVerdict::kReused);
  // When a's record leaves the FIFO, b's stale record must not take b's new entry along.
  EXPECT_EQ(store.check_and_insert("k", nonce(9), kT0 + 2'500, kT0 + 4'500), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 2'500, kT0 + 4'500), NonceVerdict::kReused);
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 3'500, kT0 + 5'500), NonceVerdict::kFresh);
}

TEST(NonceStore, FullWhenAtCapacityAndNothingExpired) {
  MemoryNonceStore store(3, 4);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0, kT0 + kKeep), NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.check_and_insert("k", nonce(3), kT0, kT0 + kKeep), NonceVerdict::kFull);
  EXPECT_EQ(store.check_and_insert("other", nonce(0), kT0 + 1, kT0 + kKeep), NonceVerdict::kFull);
  // A replay is still recognised while full, and a refused nonce was not remembered.
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + 2, kT0 + kKeep), NonceVerdict::kReused);
  EXPECT_EQ(store.size(), 3u);
  // Once entries expire (in any shard) there is room again.
  EXPECT_EQ(store.check_and_insert("k", nonce(3), kT0 + kKeep, kT0 + 2 * kKeep),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.check_and_insert("k", nonce(3), kT0 + kKeep, kT0 + 2 * kKeep),
            NonceVerdict::kReused);
}

TEST(NonceStore, ZeroCapacityIsAlwaysFull) {
  MemoryNonceStore store(0, 1);
  EXPECT_EQ(store.check_and_insert("k", nonce(0), kT0, kT0 + kKeep), NonceVerdict::kFull);
}

TEST(NonceStore, ConcurrentSameNonceIsFreshExactlyOnce) {
  constexpr int kThreads = 16;
  constexpr int kRounds = 200;
  MemoryNonceStore store(1'000'000, 8);
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> fresh{0};
    std::atomic<int> reused{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        while (!go.load()) std::this_thread::yield();
        switch (store.check_and_insert("k", nonce(round), kT0, kT0 + kKeep)) {
          case NonceVerdict::kFresh:
            fresh.fetch_add(1);
            break;
          case NonceVerdict::kReused:
            reused.fetch_add(1);
            break;
          case NonceVerdict::kFull:
          case NonceVerdict::kUnavailable:
          case NonceVerdict::kStale:
            break;
        }
      });
    }
    go.store(true);
    for (auto& th : threads) th.join();
    ASSERT_EQ(fresh.load(), 1) << round;
    ASSERT_EQ(reused.load(), kThreads - 1) << round;
  }
  EXPECT_EQ(store.size(), static_cast<size_t>(kRounds));
}

TEST(NonceStore, ConcurrentInsertsNeverOvershootCapacity) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  MemoryNonceStore store(1'000, 16);
  std::atomic<int> fresh{0};
  std::atomic<int> full{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        switch (store.check_and_insert("k", nonce(t * kPerThread + i), kT0, kT0 + kKeep)) {
          case NonceVerdict::kFresh:
            fresh.fetch_add(1);
            break;
          case NonceVerdict::kFull:
            full.fetch_add(1);
            break;
          case NonceVerdict::kReused:
          case NonceVerdict::kUnavailable:
          case NonceVerdict::kStale:
            ADD_FAILURE() << "distinct nonces, in memory";
            break;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(fresh.load(), 1'000);
  EXPECT_EQ(full.load(), kThreads * kPerThread - 1'000);
  EXPECT_EQ(store.size(), 1'000u);
}

}  // namespace
}  // namespace licensed
