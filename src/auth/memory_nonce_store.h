// Nonces of one server instance, in memory, in flat tables: no allocation per nonce.
//
// Each (key id, nonce) becomes a salted SHA-256 digest. The salt is 16 random bytes
// drawn when the store is made, so a client, who can grind nonces against plain
// SHA-256, cannot aim many nonces at one shard or one probe run. Of the digest, 6 bits
// (with 64 shards) pick the shard and 86 are kept in a 16-byte slot with the expiry:
//
//   word 0: 64 digest bits, which also place the entry in its shard's table;
//   word 1: 22 more digest bits above a 42-bit expiry in Unix milliseconds.
//
// Why 86 + 6 bits are enough. A replay always matches: the same strings give the same
// digest. A wrong match can only refuse a fresh nonce (401 nonce_reused, the client
// retries with another); it never accepts a replay. It needs a remembered entry of the
// same shard with the same 86 stored bits: at the default capacity, 20M entries or
// 312,500 per shard, the odds per check are at most 312,500 / 2^86 = 4e-21, so
// 10,000 checks a second for a century (3e13 checks) refuse a fresh nonce with
// probability about 1e-7.
//
// Why the expiry is exact, and rounded only where that is safe. 42 bits of
// milliseconds reach May 2109, so every expiry a server asks for is kept to the
// millisecond, as the conformance tests check: no entry is forgotten earlier than
// asked, nor later. Only what cannot be written is rounded, and always up: an expiry
// past 2109 is kept forever (until a restart, which the restart rule covers), and
// one before 1970 is written as 1 ms after the epoch. (Units of seconds relative to a
// base, as first planned, would have kept 96 digest bits, but rounding a 200 ms
// expiry up to a second changes verdicts the tests pin down.)
//
// Tables use linear probing. An expired slot is reused by the next insert that passes
// it. A rebuild drops expired entries: in place while the table stays 2 to 4 times
// the live ones, else into a new table of twice the live ones. It happens
// when occupied slots would pass 3/4 of the table, or when something has expired and
// the pass is paid for (see sweep_due). Tables start empty and grow, so an idle server
// holds almost nothing, and shrink again when traffic falls.
//
// Capacity counts occupied slots, expired ones not yet dropped included. At capacity
// every check visits each shard and drops what expired there once that is paid for:
// at once in a small table or one whose entries have all expired, within capacity/4
// visits in a large one. Until then a new nonce whose probe run holds no expired slot
// is kFull: refused (503), never accepted unchecked.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include "auth/nonce_store.h"

namespace licensed {

class MemoryNonceStore final : public NonceStore {
 public:
  // At most `max_entries` remembered; at that many, checks of new nonces are kFull
  // until some expire.
  explicit MemoryNonceStore(size_t max_entries = 20'000'000, size_t shards = 64);
  ~MemoryNonceStore() override;

  // Entries remembered, expired ones not yet dropped included.
  size_t size() const;
  // Bytes of the slot tables: what the store costs in memory, whatever it holds.
  size_t table_bytes() const;
  // Table rebuilds so far (growing, shrinking or dropping expired entries), for tests.
  size_t rebuilds() const;

 private:
  // Never kStale: what this store forgets at a restart, the restart rule covers
  // (PipelineContext::started_at_seconds).
  NonceVerdict check_and_insert_impl(std::string_view key_id, std::string_view nonce,
                                     UnixMillis now, UnixMillis expires_at,
                                     int64_t dated_seconds) override;

  struct Slot {
    uint64_t tag;
    uint64_t tag_and_expiry;
  };
  static_assert(sizeof(Slot) == 16);

  // What an entry is known by in its shard: the slot's two words, expiry left out.
  struct Key {
    uint64_t tag;
    uint64_t high;  // the 22 digest bits of word 1, in place
  };
  struct Located {
    size_t shard;
    Key key;
  };

  struct alignas(64) Shard {
    std::mutex mu;
    std::unique_ptr<Slot[]> slots;
    size_t capacity = 0;  // slots
    size_t occupied = 0;  // non-empty slots: live entries and expired ones not yet dropped
    size_t touches = 0;   // checks since the last rebuild
    // No entry expires before `earliest` (a lower bound) nor after `latest`.
    UnixMillis earliest = std::numeric_limits<UnixMillis>::max();
    UnixMillis latest = std::numeric_limits<UnixMillis>::min();
  };

  // Where a key is, or could go, in its shard's table.
  struct Probe {
    static constexpr size_t kNone = SIZE_MAX;
    size_t match = kNone;     // the key's slot, live or expired
    size_t reusable = kNone;  // the first expired slot before the end of the run
    size_t empty = kNone;     // the empty slot that ends the run
  };

  // nullopt only if OpenSSL cannot hash, which callers see as kFull (fail closed).
  std::optional<Located> locate(std::string_view key_id, std::string_view nonce) const;
  static Probe probe(const Shard& shard, const Key& key, UnixMillis now);
  // Writes the key with its expiry into `slot` and widens the shard's expiry bounds.
  static void put(Shard& shard, size_t slot, const Key& key, uint64_t expiry);
  // Puts a live entry, known absent, at the first empty slot from its home.
  static void place(Shard& shard, const Slot& entry);
  // Drops expired entries without a new table; the caller resets the expiry bounds.
  static void sweep_in_place(Shard& shard, UnixMillis now);
  bool sweep_due(const Shard& shard, UnixMillis now) const;
  // Drops the shard's expired entries and sizes its table for the live ones and `room`
  // more: in place when the size stays, else into a new table. False (the shard
  // unchanged) if a new table cannot be allocated.
  bool rebuild(Shard& shard, UnixMillis now, size_t room);
  // At capacity: drops what has expired in every shard where that is due. Takes each
  // shard's lock in turn, so the caller must hold none.
  void make_room_everywhere(UnixMillis now);

  size_t max_entries_;
  size_t shard_count_;
  std::unique_ptr<Shard[]> shards_;
  unsigned char salt_[16] = {};
  bool salted_ = false;           // false: no randomness for the salt; every check is kFull
  std::atomic<size_t> size_{0};   // occupied slots across all shards, for the capacity check
  std::atomic<size_t> slots_{0};  // table slots across all shards
  std::atomic<size_t> rebuilds_{0};
};

}  // namespace licensed
