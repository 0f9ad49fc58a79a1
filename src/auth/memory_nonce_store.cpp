#include "auth/memory_nonce_store.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "auth/request_signature.h"

namespace licensed {

MemoryNonceStore::MemoryNonceStore(size_t max_entries, size_t shards)
    : max_entries_(max_entries),
      shard_count_(std::max<size_t>(1, shards)),
      shards_(std::make_unique<Shard[]>(shard_count_)) {}

std::optional<MemoryNonceStore::Digest> MemoryNonceStore::digest_of(std::string_view key_id,
                                                                    std::string_view nonce) {
  // Key ids are [A-Za-z0-9._-] (spec section 2), so a NUL separator makes the pair
  // unambiguous: ("ab", "c") and ("a", "bc") hash differently.
  const size_t n = key_id.size() + 1 + nonce.size();
  std::array<char, 256> small;  // headers are at most 64 + 1 + 128 bytes: no allocation
  std::string large;
  char* buf = small.data();
  if (n > small.size()) {
    large.resize(n);
    buf = large.data();
  }
  std::memcpy(buf, key_id.data(), key_id.size());
  buf[key_id.size()] = '\0';
  std::memcpy(buf + key_id.size() + 1, nonce.data(), nonce.size());

  Sha256Digest md;
  if (!try_sha256(std::string_view(buf, n), md)) return std::nullopt;
  Digest d;
  std::memcpy(&d.hi, md.data(), sizeof d.hi);
  std::memcpy(&d.lo, md.data() + sizeof d.hi, sizeof d.lo);
  return d;
}

MemoryNonceStore::Shard& MemoryNonceStore::shard_for(const Digest& d) {
  // hi picks the shard, lo the bucket inside it: independent bits of the digest.
  return shards_[d.hi % shard_count_];
}

void MemoryNonceStore::evict_expired(Shard& shard, UnixMillis now) {
  // Only the front is looked at. Callers pass expires_at = now + a constant, so the
  // FIFO is in expiry order up to thread races of a few ms; an entry queued behind a
  // slightly later one is evicted a few ms late, never early, and verdicts read each
  // entry's own expiry, so they are exact regardless.
  while (!shard.fifo.empty() && shard.fifo.front().expires_at <= now) {
    const Pending& p = shard.fifo.front();
    auto it = shard.expiry.find(p.digest);
    // A different expiry means the digest was re-inserted after this record expired;
    // the newer record owns the entry.
    if (it != shard.expiry.end() && it->second == p.expires_at) {
      shard.expiry.erase(it);
      size_.fetch_sub(1, std::memory_order_relaxed);
    }
    shard.fifo.pop_front();
  }
}

void MemoryNonceStore::evict_everywhere(UnixMillis now) {
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mu);
    evict_expired(shards_[i], now);
  }
}

NonceVerdict MemoryNonceStore::check_and_insert_impl(std::string_view key_id,
                                                     std::string_view nonce, UnixMillis now,
                                                     UnixMillis expires_at,
                                                     int64_t /*dated_seconds*/) {
  const std::optional<Digest> digest = digest_of(key_id, nonce);
  if (!digest) return NonceVerdict::kFull;

  // At capacity, room may be waiting in other shards; make it before taking our lock
  // (holding two shard locks at once could deadlock).
  if (size_.load(std::memory_order_relaxed) >= max_entries_) evict_everywhere(now);

  Shard& shard = shard_for(*digest);
  std::lock_guard lock(shard.mu);
  evict_expired(shard, now);

  auto it = shard.expiry.find(*digest);
  if (it != shard.expiry.end()) {
    if (it->second > now) return NonceVerdict::kReused;
    // Expired but not yet evicted (queued behind a later expiry): take it over.
    it->second = expires_at;
    shard.fifo.push_back(Pending{expires_at, *digest});
    return NonceVerdict::kFresh;
  }

  // Reserve a slot first so concurrent inserts into other shards cannot overshoot.
  if (size_.fetch_add(1, std::memory_order_relaxed) >= max_entries_) {
    size_.fetch_sub(1, std::memory_order_relaxed);
    return NonceVerdict::kFull;
  }
  shard.expiry.emplace(*digest, expires_at);
  shard.fifo.push_back(Pending{expires_at, *digest});
  return NonceVerdict::kFresh;
}

size_t MemoryNonceStore::size() const {
  return size_.load(std::memory_order_relaxed);
}

}  // namespace licensed
