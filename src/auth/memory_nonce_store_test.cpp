#include "auth/memory_nonce_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
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

// The expiry is kept to the millisecond, and what cannot be written is rounded up: an
// entry is never forgotten before its expiry.
TEST(NonceStore, ExpiryIsNeverShortened) {
  MemoryNonceStore store(100'000, 4);
  // Odd milliseconds, short and long retentions.
  for (int i = 0; i < 2'000; ++i) {
    const UnixMillis now = kT0 + i;
    const UnixMillis expires_at = now + 1 + (static_cast<int64_t>(i) * 7'919) % 1'300'000;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), now, expires_at), NonceVerdict::kFresh);
    ASSERT_EQ(store.check_and_insert("k", nonce(i), expires_at - 1, expires_at + 5),
              NonceVerdict::kReused)
        << i;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), expires_at, expires_at + 5),
              NonceVerdict::kFresh)
        << i;
  }
  // Past what 42 bits of milliseconds hold (May 2109): kept, even after that date.
  constexpr UnixMillis k2150 = 5'680'000'000'000;
  ASSERT_EQ(store.check_and_insert("k", "far-future-nonce-1", kT0, k2150), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "far-future-nonce-1", k2150 - 1, k2150),
            NonceVerdict::kReused);
  ASSERT_EQ(store.check_and_insert("k", "far-future-nonce-2", kT0, INT64_MAX),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "far-future-nonce-2", INT64_MAX - 1, INT64_MAX),
            NonceVerdict::kReused);
  // Before the epoch: written as 1 ms after it, later than asked.
  ASSERT_EQ(store.check_and_insert("k", "before-the-epoch-1", -100, -5), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "before-the-epoch-1", -6, 0), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", "before-the-epoch-1", 1, 2), NonceVerdict::kFresh);
}

// Tables grow from nothing, and are swept in place or rebuilt bigger while entries come
// and go; every entry still live afterwards is a replay, every expired one is fresh.
TEST(NonceStore, RebuildsKeepEveryLiveEntry) {
  constexpr int kCount = 200'000;
  constexpr int64_t kShortKeep = 20'000;
  MemoryNonceStore store(1'000'000, 3);
  EXPECT_EQ(store.table_bytes(), 0u);
  // One nonce a millisecond; every tenth kept long (the tables grow all along), the
  // others 20 s (expired ones are swept while the size stays).
  auto keep_of = [](int i) { return i % 10 == 0 ? 10 * kKeep : kShortKeep; };
  for (int i = 0; i < kCount; ++i) {
    const UnixMillis now = kT0 + i;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), now, now + keep_of(i)), NonceVerdict::kFresh);
  }
  EXPECT_GT(store.rebuilds(), 60u);
  const UnixMillis end = kT0 + kCount;
  size_t live = 0;
  for (int i = 0; i < kCount; ++i) {
    const bool is_live = kT0 + i + keep_of(i) > end;
    live += is_live ? 1 : 0;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), end, end + kKeep),
              is_live ? NonceVerdict::kReused : NonceVerdict::kFresh)
        << i;
  }
  EXPECT_GT(live, static_cast<size_t>(kCount / 10));
  // All are live now, each once.
  EXPECT_EQ(store.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), end, end + kKeep), NonceVerdict::kReused) << i;
  }
}

// A steady stream of nonces: expired slots are reused or swept, so the tables stay a
// small multiple of the live entries and rebuilds stay rare.
TEST(NonceStore, SteadyChurnKeepsTheTablesBounded) {
  constexpr int64_t kKeepMs = 10'000;
  constexpr int kCount = 200'000;  // one a millisecond: 20 retentions
  MemoryNonceStore store(1'000'000, 2);
  size_t largest = 0;
  for (int i = 0; i < kCount; ++i) {
    const UnixMillis now = kT0 + i;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), now, now + kKeepMs), NonceVerdict::kFresh);
    largest = std::max(largest, store.table_bytes());
  }
  // 10,000 live entries: the tables, at least a quarter occupied after any rebuild and
  // never more than 3/4, hold them in at most 64 bytes each.
  EXPECT_LE(largest, 64u * 10'000);
  EXPECT_LE(store.size(), 16'000u);
  EXPECT_LT(store.rebuilds(), static_cast<size_t>(kCount / 500));
  const UnixMillis end = kT0 + kCount - 1;
  for (int i = kCount - static_cast<int>(kKeepMs) + 1; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), end, end + kKeepMs), NonceVerdict::kReused);
  }
  // Traffic stops; once all has expired, the next checks give the memory back.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(
        store.check_and_insert("k", "after-a-pause-" + nonce(i), end + kKeepMs, end + 2 * kKeepMs),
        NonceVerdict::kFresh);
  }
  EXPECT_LE(store.table_bytes(), 2u * 1'024 * 16);
  EXPECT_EQ(store.size(), 100u);
}

TEST(NonceStore, FullAtCapacityWithLargeTables) {
  constexpr int kCapacity = 5'000;
  MemoryNonceStore store(kCapacity, 8);
  // Half kept one second, half ten minutes.
  for (int i = 0; i < kCapacity; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0, kT0 + (i % 2 == 0 ? 1'000 : kKeep)),
              NonceVerdict::kFresh);
  }
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(store.check_and_insert("k", "more-" + nonce(i), kT0 + 1, kT0 + kKeep),
              NonceVerdict::kFull);
  }
  EXPECT_EQ(store.check_and_insert("k", nonce(7), kT0 + 2, kT0 + kKeep), NonceVerdict::kReused);
  EXPECT_EQ(store.size(), static_cast<size_t>(kCapacity));

  // Half expire. The room they leave is taken as it is found: in place by nonces whose
  // probe run passes an expired slot, and everywhere once each shard's sweep is paid
  // for by the checks that visit it. Until then a new nonce may be refused: fail closed.
  const UnixMillis later = kT0 + 1'000;
  int accepted = 0;
  int refused = 0;
  for (int i = 0; accepted < kCapacity / 2; ++i) {
    ASSERT_LT(i, kCapacity) << "room was not found";
    switch (store.check_and_insert("k", "later-" + nonce(i), later, later + kKeep)) {
      case NonceVerdict::kFresh:
        ++accepted;
        break;
      case NonceVerdict::kFull:
        ++refused;
        break;
      default:
        FAIL() << "distinct nonces, in memory";
    }
  }
  EXPECT_LT(refused, kCapacity / 2);
  // Full again, and no live entry was lost on the way.
  EXPECT_EQ(store.check_and_insert("k", "one-too-many-123", later, later + kKeep),
            NonceVerdict::kFull);
  for (int i = 1; i < kCapacity; i += 2) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), later, later + kKeep), NonceVerdict::kReused);
  }
  // Everything expires: all the room is back at once.
  const UnixMillis much_later = later + kKeep;
  for (int i = 0; i < kCapacity; ++i) {
    ASSERT_EQ(store.check_and_insert("k", "last-" + nonce(i), much_later, much_later + kKeep),
              NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.size(), static_cast<size_t>(kCapacity));
}

// Threads race on shared nonces while their own nonces make the tables grow and sweep
// under them: each shared nonce is fresh exactly once.
TEST(NonceStore, ConcurrentChecksDuringRebuildsAcceptEachNonceOnce) {
  constexpr int kThreads = 6;
  constexpr int kShared = 20'000;
  MemoryNonceStore store(10'000'000, 2);
  std::vector<std::atomic<int>> fresh(kShared);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kShared; ++i) {
        const UnixMillis now = kT0 + i;
        // Own nonces kept briefly, so sweeps run as well as growth.
        const std::string own = "own-" + std::to_string(t) + "-" + nonce(i);
        if (store.check_and_insert("k", own, now, now + 50) != NonceVerdict::kFresh) {
          ADD_FAILURE() << "own nonce refused";
        }
        if (store.check_and_insert("k", nonce(i), now, now + kKeep) == NonceVerdict::kFresh) {
          fresh[i].fetch_add(1);
        }
      }
    });
  }
  go.store(true);
  for (auto& th : threads) th.join();
  for (int i = 0; i < kShared; ++i) ASSERT_EQ(fresh[i].load(), 1) << i;
  EXPECT_GT(store.rebuilds(), 10u);
}

}  // namespace
}  // namespace licensed
