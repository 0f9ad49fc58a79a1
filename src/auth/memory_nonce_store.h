// Nonces of one server instance, in memory. Each entry is a 128-bit digest of
// (key id, nonce), not the strings: a 128-char nonce costs the same as a 16-char one,
// and a collision needs ~2^64 entries, far beyond any capacity.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "auth/nonce_store.h"

namespace licensed {

class MemoryNonceStore final : public NonceStore {
 public:
  explicit MemoryNonceStore(size_t max_entries = 20'000'000, size_t shards = 64);

  // Entries remembered, expired ones not yet evicted included.
  size_t size() const;

 private:
  // Never kStale: what this store forgets at a restart, the restart rule covers
  // (PipelineContext::started_at_seconds).
  NonceVerdict check_and_insert_impl(std::string_view key_id, std::string_view nonce,
                                     UnixMillis now, UnixMillis expires_at,
                                     int64_t dated_seconds) override;

  struct Digest {
    uint64_t hi;
    uint64_t lo;
    bool operator==(const Digest&) const = default;
  };
  struct DigestHash {
    // The digest is already uniformly distributed.
    size_t operator()(const Digest& d) const noexcept { return static_cast<size_t>(d.lo); }
  };
  struct Pending {
    UnixMillis expires_at;
    Digest digest;
  };

  // Entries map to their own expiry, so a verdict is exact even when the FIFO is not
  // perfectly ordered; the FIFO (insertion order, which is expiry order up to races
  // between threads) lets eviction look only at its front.
  struct alignas(64) Shard {
    mutable std::mutex mu;
    std::unordered_map<Digest, UnixMillis, DigestHash> expiry;
    std::deque<Pending> fifo;
  };

  // nullopt only if OpenSSL cannot hash, which callers see as kFull (fail closed).
  static std::optional<Digest> digest_of(std::string_view key_id, std::string_view nonce);
  Shard& shard_for(const Digest& d);
  // Drops expired entries from the front of the shard's FIFO. Caller holds shard.mu.
  void evict_expired(Shard& shard, UnixMillis now);
  void evict_everywhere(UnixMillis now);

  size_t max_entries_;
  size_t shard_count_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<size_t> size_{0};  // entries across all shards, for the capacity check
};

}  // namespace licensed
