// Nonces of one server instance, in memory: 8 bytes a slot, no allocation per nonce.
//
// Each (key id, nonce) becomes a salted SHA-256 digest. The salt is 16 random bytes
// drawn when the store is made, so a client, who can grind nonces against plain
// SHA-256, cannot aim many nonces at one shard or one probe run. Of the digest, one
// 64-bit word picks the shard and another, the fingerprint, is what the shard keeps
// (0 marks an empty slot, so a fingerprint of 0 is kept as 1).
//
// Why 64 bits are enough. A replay always matches: the same strings give the same
// fingerprint. A wrong match can only refuse a fresh nonce (401 nonce_reused, the
// client retries with another); it never accepts a replay. It needs a remembered entry
// of the same shard with the same fingerprint: the odds per check are at most the
// entries remembered over 2^64, 1.5e-13 at 2.7M (600 s at 4,500 req/s), so a server
// doing that for a year (1.4e11 checks) refuses one fresh nonce wrongly with
// probability about 2e-2, and the client simply retries.
//
// No expiry per entry: time slices. Expiry time is cut into slices of `slice_ms`
// (60 s by default); slice k holds the expiries in ((k-1) * slice_ms, k * slice_ms].
// Each shard keeps one table per slice that has entries, and drops a table whole once
// the clock reaches its slice's end. So an entry is remembered at least until its
// expiry, never less, and at most one slice longer (the spec asks for at least twice
// the timestamp window; longer is allowed and costs memory: with 600 s kept and 60 s
// slices, 5 % on average). A check looks in every table of its shard, about
// keep / slice_ms + 1 of them (11 for the server's 600 s), fetching their probe runs'
// first cache lines together. A shard holds at most kMaxGenerations tables; should
// expiries ever spread wider, a new slice's entries go to the next later slice's
// table (or the latest table takes the new, later slice): kept longer, never shorter.
//
// Tables use linear probing and double when 3/4 full. No entry is ever removed from
// a table, so there is no sweep and no tombstone: the only rebuilds are growth and,
// once a newer slice has started, shrinking the previous one if it is under half full.
// A new slice's table starts at 1.5 times the entries of the slice before it, so at a
// steady rate it never grows: tables end about 2/3 full, ~12 bytes a nonce, 13.3 with
// the over-retention (BM_NonceMemory, docs/benchmarks.md). An idle server drops its
// tables as their slices end (each shard when it is next checked).
//
// Capacity counts entries in tables not yet dropped. At capacity a check first drops
// ended slices in every shard; if that does not make room the check is kFull: refused
// (503), never accepted unchecked. So is one whose table cannot be allocated.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "auth/nonce_store.h"
#include "core/mutex.h"

namespace licensed {

class MemoryNonceStore final : public NonceStore {
 public:
  static constexpr int64_t kDefaultSliceMs = 60'000;
  // At most `max_entries` remembered; at that many, checks of new nonces are kFull
  // until some slices end.
  explicit MemoryNonceStore(size_t max_entries = 20'000'000, size_t shards = 64,
                            int64_t slice_ms = kDefaultSliceMs);
  ~MemoryNonceStore() override;

  // Entries remembered: those in tables not yet dropped, expired or not.
  size_t size() const;
  // Bytes of the slot tables: what the store costs in memory, whatever it holds.
  size_t table_bytes() const;
  // Tables rebuilt so far (grown, or shrunk once their slice stopped filling), for
  // tests and benchmarks.
  size_t rebuilds() const;

 private:
  // Never kStale: what this store forgets at a restart, the restart rule covers
  // (PipelineContext::started_at_seconds).
  NonceVerdict check_and_insert_impl(std::string_view key_id, std::string_view nonce,
                                     UnixMillis now, UnixMillis expires_at,
                                     int64_t dated_seconds) override;

  // The entries of one shard whose expiries fall in one slice.
  struct Generation {
    int64_t slice = 0;
    std::unique_ptr<uint64_t[]> slots;  // fingerprints; 0: empty
    size_t capacity = 0;
    size_t count = 0;
  };
  static constexpr size_t kMaxGenerations = 64;

  struct alignas(64) Shard {
    Mutex mu;
    // [0, live): by slice, ascending
    std::array<Generation, kMaxGenerations> gens GUARDED_BY(mu);
    size_t live GUARDED_BY(mu) = 0;
  };

  struct Located {
    size_t shard;
    uint64_t fingerprint;
  };

  // nullopt only if OpenSSL cannot hash, which callers see as kFull (fail closed).
  std::optional<Located> locate(std::string_view key_id, std::string_view nonce) const;
  int64_t slice_of(UnixMillis expires_at) const;
  // When slice `slice` ends: its table is dropped once the clock reaches this.
  UnixMillis slice_end(int64_t slice) const;
  // Drops the shard's tables whose slice has ended.
  void drop_ended(Shard& shard, UnixMillis now) REQUIRES(shard.mu);
  static bool contains(const Shard& shard, uint64_t fingerprint) REQUIRES(shard.mu);
  // The table for `slice`, made if needed; null if a table cannot be allocated.
  Generation* generation_for(Shard& shard, int64_t slice) REQUIRES(shard.mu);
  // Moves the table's entries into a new one of `capacity` slots. False (the table
  // unchanged) if it cannot be allocated.
  bool resize(Generation& gen, size_t capacity);
  // At capacity: drops the ended slices of every shard. Takes each shard's lock in
  // turn, so the caller must hold none.
  void make_room_everywhere(UnixMillis now);

  size_t max_entries_;
  size_t shard_count_;
  int64_t slice_ms_;
  std::unique_ptr<Shard[]> shards_;
  unsigned char salt_[16] = {};
  bool salted_ = false;           // false: no randomness for the salt; every check is kFull
  std::atomic<size_t> size_{0};   // entries across all shards, for the capacity check
  std::atomic<size_t> slots_{0};  // table slots across all shards
  std::atomic<size_t> rebuilds_{0};
};

}  // namespace licensed
