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
constexpr int64_t kSlice = MemoryNonceStore::kDefaultSliceMs;

// When an entry expiring at `expires_at` is forgotten: at the end of its slice.
UnixMillis slice_end(UnixMillis expires_at, int64_t slice_ms) {
  return (expires_at / slice_ms + (expires_at % slice_ms > 0 ? 1 : 0)) * slice_ms;
}

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

// Kept at least until its expiry, and forgotten by the end of the slice the expiry falls
// in: exactly at an expiry on a slice's end, at most a slice later.
TEST(NonceStore, EntriesAreKeptUntilTheirExpiryAndAtMostASliceLonger) {
  constexpr int64_t kSliceMs = 1'000;
  static_assert(kT0 % kSliceMs == 0);
  MemoryNonceStore store(100, 1, kSliceMs);
  int n = 0;
  for (const UnixMillis expires_at : {kT0 + kKeep, kT0 + kKeep + 1, kT0 + kKeep + 999}) {
    const std::string a = nonce(n++);
    ASSERT_EQ(store.check_and_insert("k", a, kT0, expires_at), NonceVerdict::kFresh);
    EXPECT_EQ(store.check_and_insert("k", a, expires_at - 1, expires_at + kKeep),
              NonceVerdict::kReused);
    const UnixMillis forgotten = slice_end(expires_at, kSliceMs);
    EXPECT_LT(forgotten - expires_at, kSliceMs);
    if (forgotten > expires_at) {
      EXPECT_EQ(store.check_and_insert("k", a, forgotten - 1, forgotten + kKeep),
                NonceVerdict::kReused);
    }
    // Forgotten: remembered afresh with the new expiry.
    EXPECT_EQ(store.check_and_insert("k", a, forgotten, forgotten + kKeep), NonceVerdict::kFresh);
    EXPECT_EQ(store.check_and_insert("k", a, forgotten + 1, forgotten + kKeep),
              NonceVerdict::kReused);
  }
  EXPECT_EQ(store.size(), 3u);
}

// The server never asks for an expiry already past; were one asked, its slice has ended
// and there is nothing to remember.
TEST(NonceStore, AnExpiryWhoseSliceHasEndedIsNotRemembered) {
  MemoryNonceStore store(100, 1, 1'000);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0, kT0), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0, kT0 - 5'000), NonceVerdict::kFresh);
  EXPECT_EQ(store.size(), 0u);
  // Past, but its slice has not ended: kept to the slice's end.
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 600, kT0 + 500), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 999, kT0 + 999), NonceVerdict::kReused);
  EXPECT_EQ(store.size(), 1u);
}

TEST(NonceStore, ExpiredEntriesAreEvicted) {
  MemoryNonceStore store(1'000'000, 4);
  for (int i = 0; i < 1'000; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0 + i, kT0 + i + kKeep),
              NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.size(), 1'000u);
  // Each shard drops its ended slices when touched.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(store.check_and_insert("k", "later-" + nonce(i), kT0 + 2 * kKeep, kT0 + 3 * kKeep),
              NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.size(), 100u);
}

TEST(NonceStore, OutOfOrderExpiriesAreEachKeptTheirOwnTime) {
  constexpr int64_t kSliceMs = 100;
  MemoryNonceStore store(100, 1, kSliceMs);
  // b comes after a but expires first (a racing thread read its clock earlier).
  ASSERT_EQ(store.check_and_insert("k", nonce(1), kT0, kT0 + 2'000), NonceVerdict::kFresh);
  ASSERT_EQ(store.check_and_insert("k", nonce(2), kT0, kT0 + 1'000), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 999, kT0 + 3'000), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 1'000 + kSliceMs, kT0 + 3'100),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 1'200, kT0 + 3'200), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + 1'999, kT0 + 3'999), NonceVerdict::kReused);
  // When a's slice is dropped, b's new entry stays.
  EXPECT_EQ(store.check_and_insert("k", nonce(9), kT0 + 2'000 + kSliceMs, kT0 + 4'500),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 2'500, kT0 + 4'500), NonceVerdict::kReused);
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(store.check_and_insert("k", nonce(1), kT0 + 2'500, kT0 + 4'500), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", nonce(2), kT0 + 3'100 + kSliceMs, kT0 + 5'500),
            NonceVerdict::kFresh);
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
  // Once their slice has ended (in any shard) there is room again.
  const UnixMillis later = kT0 + kKeep + kSlice;
  EXPECT_EQ(store.check_and_insert("k", nonce(3), later, later + kKeep), NonceVerdict::kFresh);
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.check_and_insert("k", nonce(3), later, later + kKeep), NonceVerdict::kReused);
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

// Odd expiries, short and long, each kept at least until it passes and forgotten within
// a slice of it; expiries beyond what any clock reaches, or before the epoch, alike.
TEST(NonceStore, ExpiryIsNeverShortened) {
  constexpr int64_t kSliceMs = 10'000;
  MemoryNonceStore store(100'000, 4, kSliceMs);
  for (int i = 0; i < 2'000; ++i) {
    const UnixMillis now = kT0 + i;
    const UnixMillis expires_at = now + 1 + (static_cast<int64_t>(i) * 7'919) % 130'000;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), now, expires_at), NonceVerdict::kFresh);
    ASSERT_EQ(store.check_and_insert("k", nonce(i), expires_at - 1, expires_at + 5),
              NonceVerdict::kReused)
        << i;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), expires_at + kSliceMs, expires_at + 5),
              NonceVerdict::kFresh)
        << i;
  }
  constexpr UnixMillis k2150 = 5'680'000'000'000;
  ASSERT_EQ(store.check_and_insert("k", "far-future-nonce-1", kT0, k2150), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "far-future-nonce-1", k2150 - 1, k2150),
            NonceVerdict::kReused);
  // Its slice would end past what UnixMillis holds: kept to the end of time.
  ASSERT_EQ(store.check_and_insert("k", "far-future-nonce-2", kT0, INT64_MAX),
            NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "far-future-nonce-2", INT64_MAX - 1, INT64_MAX),
            NonceVerdict::kReused);
  // Before the epoch: kept to the end of its slice, the epoch.
  ASSERT_EQ(store.check_and_insert("k", "before-the-epoch-1", -100, -5), NonceVerdict::kFresh);
  EXPECT_EQ(store.check_and_insert("k", "before-the-epoch-1", -6, 0), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", "before-the-epoch-1", -1, 0), NonceVerdict::kReused);
  EXPECT_EQ(store.check_and_insert("k", "before-the-epoch-1", 0, 1), NonceVerdict::kFresh);
}

// More slices at once than a shard has tables for: a slice's entries then go to a later
// slice's table, kept longer, never shorter.
TEST(NonceStore, ExpiriesOverMoreSlicesThanTablesAreKeptLonger) {
  constexpr int kCount = 500;  // slices, one nonce each: far more than a shard's tables
  MemoryNonceStore store(1'000, 1, 1);
  // Latest slices first, then earlier ones, then later ones again.
  auto expiry_of = [](int i) { return kT0 + 1 + (i < kCount / 2 ? kCount - i : i); };
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0, expiry_of(i)), NonceVerdict::kFresh);
  }
  EXPECT_EQ(store.size(), static_cast<size_t>(kCount));
  // Each still a replay just before its expiry, in the order of their expiries.
  for (int t = 1; t <= kCount + 1; ++t) {
    for (int i = 0; i < kCount; ++i) {
      if (expiry_of(i) != kT0 + t) continue;
      ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0 + t - 1, kT0 + t - 1),
                NonceVerdict::kReused)
          << i;
    }
  }
  const UnixMillis after_all = kT0 + 2 + kCount;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), after_all, after_all + 10),
              NonceVerdict::kFresh)
        << i;
  }
}

// Tables grow from nothing while entries come and slices end; at any moment exactly the
// entries whose slice has not ended are replays, and every other one is fresh.
TEST(NonceStore, GrowthKeepsEveryEntryUntilItsSliceEnds) {
  constexpr int kCount = 200'000;
  constexpr int64_t kShortKeep = 20'000;
  constexpr int64_t kLongKeep = 100'000;
  constexpr int64_t kSliceMs = 5'000;
  MemoryNonceStore store(1'000'000, 3, kSliceMs);
  EXPECT_EQ(store.table_bytes(), 0u);
  // One nonce a millisecond; every tenth kept long, the others 20 s.
  auto expiry_of = [](int i) { return kT0 + i + (i % 10 == 0 ? kLongKeep : kShortKeep); };
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), kT0 + i, expiry_of(i)), NonceVerdict::kFresh);
  }
  EXPECT_GT(store.rebuilds(), 60u);
  const UnixMillis end = kT0 + kCount;
  size_t kept = 0;
  for (int i = 0; i < kCount; ++i) {
    const bool is_kept = slice_end(expiry_of(i), kSliceMs) > end;
    if (expiry_of(i) > end) {
      ASSERT_TRUE(is_kept);
    }
    kept += is_kept ? 1 : 0;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), end, end + kKeep),
              is_kept ? NonceVerdict::kReused : NonceVerdict::kFresh)
        << i;
  }
  EXPECT_GT(kept, static_cast<size_t>(kCount / 10));
  // All are remembered now, each once.
  EXPECT_EQ(store.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), end, end + kKeep), NonceVerdict::kReused) << i;
  }
}

// A steady stream of nonces: each slice's table starts at the size the one before ended
// up at, so tables hardly ever grow, and what they take stays near 12 bytes a nonce.
TEST(NonceStore, SteadyChurnKeepsTheTablesBounded) {
  constexpr int64_t kKeepMs = 10'000;
  constexpr int64_t kSliceMs = 1'000;
  constexpr int kCount = 200'000;  // one a millisecond: 20 retentions
  MemoryNonceStore store(1'000'000, 2, kSliceMs);
  size_t largest = 0;
  for (int i = 0; i < kCount; ++i) {
    const UnixMillis now = kT0 + i;
    ASSERT_EQ(store.check_and_insert("k", nonce(i), now, now + kKeepMs), NonceVerdict::kFresh);
    largest = std::max(largest, store.table_bytes());
  }
  // At most 11,000 entries remembered (10 s, and at most a slice more); their tables,
  // 2/3 full, with the next slice's tables just started, take under 16 bytes each.
  EXPECT_LE(store.size(), 11'000u);
  EXPECT_LE(largest, 16u * 11'000);
  // Growth while the first slices fill; later ones start big enough.
  EXPECT_LT(store.rebuilds(), 100u);
  const UnixMillis end = kT0 + kCount - 1;
  for (int i = kCount - static_cast<int>(kKeepMs) + 1; i < kCount; ++i) {
    ASSERT_EQ(store.check_and_insert("k", nonce(i), end, end + kKeepMs), NonceVerdict::kReused);
  }
  // Traffic stops; once every slice has ended, the next checks give the memory back.
  const UnixMillis later = end + kKeepMs + kSliceMs;
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(store.check_and_insert("k", "after-a-pause-" + nonce(i), later, later + kKeepMs),
              NonceVerdict::kFresh);
  }
  EXPECT_LE(store.table_bytes(), 2u * 128 * 8);
  EXPECT_EQ(store.size(), 100u);
}

TEST(NonceStore, FullAtCapacityWithLargeTables) {
  constexpr int kCapacity = 5'000;
  constexpr int64_t kSliceMs = 1'000;
  static_assert(kT0 % kSliceMs == 0);
  MemoryNonceStore store(kCapacity, 8, kSliceMs);
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

  // Half expire, at their slice's end: the first check at capacity drops that slice in
  // every shard, so all the room is back at once.
  const UnixMillis later = kT0 + 1'000;
  for (int i = 0; i < kCapacity / 2; ++i) {
    ASSERT_EQ(store.check_and_insert("k", "later-" + nonce(i), later, later + kKeep),
              NonceVerdict::kFresh)
        << i;
  }
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

// Threads race on shared nonces while their own nonces make the tables grow, and slices
// end, under them: each shared nonce is fresh exactly once.
TEST(NonceStore, ConcurrentChecksDuringRebuildsAcceptEachNonceOnce) {
  constexpr int kThreads = 6;
  constexpr int kShared = 20'000;
  // 20 ms slices: the own nonces' slices end as the threads go, and the shared ones
  // spread over more slices than a shard has tables.
  MemoryNonceStore store(10'000'000, 2, 20);
  std::vector<std::atomic<int>> fresh(kShared);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kShared; ++i) {
        const UnixMillis now = kT0 + i;
        // Own nonces kept briefly, so slices end as well as tables grow.
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
