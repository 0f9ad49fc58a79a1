#include "auth/memory_nonce_store.h"

#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "auth/request_signature.h"

namespace licensed {
namespace {

constexpr int kExpiryBits = 42;
constexpr uint64_t kExpiryMask = (uint64_t{1} << kExpiryBits) - 1;
// The largest expiry that fits (May 2109) means "never": an expiry past it is kept
// longer than asked, which is safe, rather than shorter.
constexpr uint64_t kNever = kExpiryMask;
constexpr UnixMillis kNeverMillis = std::numeric_limits<UnixMillis>::max();
constexpr UnixMillis kNoExpiry = std::numeric_limits<UnixMillis>::min();

// A table's first size, in slots (256 bytes).
constexpr size_t kMinSlots = 16;
// Tables this small are swept whenever something in them has expired: a pass over
// them costs less than hashing the nonce.
constexpr size_t kSweepAlwaysSlots = 64;

// Rounded up, never down: 0 marks an empty slot, so the earliest expiry written is 1.
uint64_t encode_expiry(UnixMillis at) {
  if (at < 1) return 1;
  if (static_cast<uint64_t>(at) >= kNever) return kNever;
  return static_cast<uint64_t>(at);
}

UnixMillis decode_expiry(uint64_t e) {
  return e == kNever ? kNeverMillis : static_cast<UnixMillis>(e);
}

uint64_t expiry_of(const uint64_t word) {
  return word & kExpiryMask;
}

bool expired(uint64_t expiry, UnixMillis now) {
  return decode_expiry(expiry) <= now;
}

// Where a tag's probe run starts: its high bits scaled to the table (no power-of-two
// size needed, so a table can be sized at exactly twice its live entries).
size_t home_of(uint64_t tag, size_t capacity) {
  return static_cast<size_t>((static_cast<unsigned __int128>(tag) * capacity) >> 64);
}

size_t next_slot(size_t i, size_t capacity) {
  return i + 1 == capacity ? 0 : i + 1;
}

// Occupied slots may fill 3/4 of a table before it is rebuilt.
bool over_load(size_t occupied, size_t capacity) {
  return occupied * 4 > capacity * 3;
}

}  // namespace

MemoryNonceStore::MemoryNonceStore(size_t max_entries, size_t shards)
    : max_entries_(max_entries),
      shard_count_(std::max<size_t>(1, shards)),
      shards_(std::make_unique<Shard[]>(shard_count_)) {
  salted_ = RAND_bytes(salt_, sizeof salt_) == 1;
}

MemoryNonceStore::~MemoryNonceStore() = default;

std::optional<MemoryNonceStore::Located> MemoryNonceStore::locate(std::string_view key_id,
                                                                  std::string_view nonce) const {
  if (!salted_) return std::nullopt;
  // Key ids are [A-Za-z0-9._-] (spec section 2), so a NUL separator makes the pair
  // unambiguous: ("ab", "c") and ("a", "bc") hash differently.
  const size_t n = sizeof salt_ + key_id.size() + 1 + nonce.size();
  std::array<char, 256> small;  // 16 + at most 64 + 1 + 128 bytes: no allocation
  std::string large;
  char* buf = small.data();
  if (n > small.size()) {
    large.resize(n);
    buf = large.data();
  }
  std::memcpy(buf, salt_, sizeof salt_);
  std::memcpy(buf + sizeof salt_, key_id.data(), key_id.size());
  buf[sizeof salt_ + key_id.size()] = '\0';
  std::memcpy(buf + sizeof salt_ + key_id.size() + 1, nonce.data(), nonce.size());

  Sha256Digest md;
  if (!try_sha256(std::string_view(buf, n), md)) return std::nullopt;
  uint64_t w[3];
  std::memcpy(w, md.data(), sizeof w);
  // Independent bits for the shard, the place in its table, and the rest of the tag.
  return Located{static_cast<size_t>(w[0] % shard_count_), Key{w[1], w[2] & ~kExpiryMask}};
}

MemoryNonceStore::Probe MemoryNonceStore::probe(const Shard& shard, const Key& key,
                                                UnixMillis now) {
  Probe p;
  if (shard.capacity == 0) return p;
  size_t i = home_of(key.tag, shard.capacity);
  // Tables are never more than 3/4 occupied, so the run ends at an empty slot; the
  // bound only guards the loop.
  for (size_t n = 0; n < shard.capacity; ++n, i = next_slot(i, shard.capacity)) {
    const Slot& s = shard.slots[i];
    const uint64_t e = expiry_of(s.tag_and_expiry);
    if (e == 0) {
      p.empty = i;
      break;
    }
    if (s.tag == key.tag && (s.tag_and_expiry & ~kExpiryMask) == key.high) {
      p.match = i;
      break;
    }
    if (p.reusable == Probe::kNone && expired(e, now)) p.reusable = i;
  }
  return p;
}

void MemoryNonceStore::put(Shard& shard, size_t slot, const Key& key, uint64_t expiry) {
  shard.slots[slot] = Slot{key.tag, key.high | expiry};
  const UnixMillis at = decode_expiry(expiry);
  shard.earliest = std::min(shard.earliest, at);
  shard.latest = std::max(shard.latest, at);
}

bool MemoryNonceStore::sweep_due(const Shard& shard, UnixMillis now) const {
  if (shard.occupied == 0 || now < shard.earliest) return false;  // nothing has expired
  // A sweep is a pass over the table. It is paid for when the table is tiny, when it
  // empties the table (everything expired: an idle server gives its memory back), or
  // when checks since the last one number a quarter of the table: a busy shard, where
  // something expires every few checks, costs at most four slots' pass per check.
  // Expired entries held meanwhile are reused in place and still counted by size().
  return shard.capacity <= kSweepAlwaysSlots || now >= shard.latest ||
         shard.touches >= shard.capacity / 4;
}

void MemoryNonceStore::place(Shard& shard, const Slot& entry) {
  size_t i = home_of(entry.tag, shard.capacity);
  while (expiry_of(shard.slots[i].tag_and_expiry) != 0) i = next_slot(i, shard.capacity);
  put(shard, i, Key{entry.tag, entry.tag_and_expiry & ~kExpiryMask},
      expiry_of(entry.tag_and_expiry));
}

void MemoryNonceStore::sweep_in_place(Shard& shard, UnixMillis now) {
  // Tables are at most 3/4 occupied, so there is an empty slot to start after. Taking
  // each entry out in turn from there and placing it again from its home slot moves it
  // back, never forward, and never across the start: every entry stays reachable, and
  // expired ones are simply not placed again.
  const size_t cap = shard.capacity;
  size_t start = 0;
  while (expiry_of(shard.slots[start].tag_and_expiry) != 0) ++start;
  for (size_t k = 1, i = next_slot(start, cap); k < cap; ++k, i = next_slot(i, cap)) {
    const Slot entry = shard.slots[i];
    const uint64_t e = expiry_of(entry.tag_and_expiry);
    if (e == 0) continue;
    shard.slots[i] = Slot{0, 0};
    if (!expired(e, now)) place(shard, entry);
  }
}

bool MemoryNonceStore::rebuild(Shard& shard, UnixMillis now, size_t room) {
  size_t live = 0;
  for (size_t i = 0; i < shard.capacity; ++i) {
    const uint64_t e = expiry_of(shard.slots[i].tag_and_expiry);
    if (e != 0 && !expired(e, now)) ++live;
  }
  const size_t needed = live + room;
  // After a rebuild a table is between 1/4 and 1/2 occupied (or at its first size), so
  // at least a quarter of it fills before the load limit calls for the next one.
  const bool keeps_size = shard.capacity >= kMinSlots && needed * 2 <= shard.capacity &&
                          (needed * 4 >= shard.capacity || shard.capacity == kMinSlots);
  const size_t old_capacity = shard.capacity;
  std::unique_ptr<Slot[]> old_table;
  if (!keeps_size) {
    const size_t wanted = std::max(kMinSlots, 2 * needed);
    // Zeroed: every slot empty. No exception on the request path: a failed allocation
    // leaves the shard as it was and the caller fails closed.
    std::unique_ptr<Slot[]> table(new (std::nothrow) Slot[wanted]());
    if (!table) return false;
    old_table = std::exchange(shard.slots, std::move(table));
    shard.capacity = wanted;
  }
  shard.earliest = kNeverMillis;
  shard.latest = kNoExpiry;
  if (keeps_size) {
    sweep_in_place(shard, now);
  } else {
    for (size_t i = 0; i < old_capacity; ++i) {
      const uint64_t e = expiry_of(old_table[i].tag_and_expiry);
      if (e != 0 && !expired(e, now)) place(shard, old_table[i]);
    }
  }
  size_.fetch_sub(shard.occupied - live, std::memory_order_relaxed);
  shard.occupied = live;
  shard.touches = 0;
  slots_.fetch_add(shard.capacity, std::memory_order_relaxed);
  slots_.fetch_sub(old_capacity, std::memory_order_relaxed);
  rebuilds_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void MemoryNonceStore::make_room_everywhere(UnixMillis now) {
  for (size_t i = 0; i < shard_count_; ++i) {
    Shard& shard = shards_[i];
    std::lock_guard lock(shard.mu);
    ++shard.touches;
    if (sweep_due(shard, now)) (void)rebuild(shard, now, 0);
  }
}

NonceVerdict MemoryNonceStore::check_and_insert_impl(std::string_view key_id,
                                                     std::string_view nonce, UnixMillis now,
                                                     UnixMillis expires_at,
                                                     int64_t /*dated_seconds*/) {
  const std::optional<Located> at = locate(key_id, nonce);
  if (!at) return NonceVerdict::kFull;
  const uint64_t expiry = encode_expiry(expires_at);

  // At capacity, room may be waiting in other shards; make it before taking our lock
  // (holding two shard locks at once could deadlock).
  if (size_.load(std::memory_order_relaxed) >= max_entries_) make_room_everywhere(now);

  Shard& shard = shards_[at->shard];
  std::lock_guard lock(shard.mu);
  ++shard.touches;
  if (sweep_due(shard, now)) (void)rebuild(shard, now, 0);

  Probe p = probe(shard, at->key, now);
  if (p.match != Probe::kNone) {
    if (!expired(expiry_of(shard.slots[p.match].tag_and_expiry), now)) {
      return NonceVerdict::kReused;
    }
    put(shard, p.match, at->key, expiry);  // expired: remembered afresh in place
    return NonceVerdict::kFresh;
  }
  if (p.reusable != Probe::kNone) {
    // Takes the place of an expired entry: no more slots occupied than before.
    put(shard, p.reusable, at->key, expiry);
    return NonceVerdict::kFresh;
  }

  // A new slot. Reserve it first so concurrent inserts into other shards cannot
  // overshoot the capacity.
  if (size_.fetch_add(1, std::memory_order_relaxed) >= max_entries_) {
    size_.fetch_sub(1, std::memory_order_relaxed);
    return NonceVerdict::kFull;
  }
  if (p.empty == Probe::kNone || over_load(shard.occupied + 1, shard.capacity)) {
    if (rebuild(shard, now, 1)) p = probe(shard, at->key, now);  // absent: finds an empty slot
    if (p.empty == Probe::kNone) {
      size_.fetch_sub(1, std::memory_order_relaxed);
      return NonceVerdict::kFull;
    }
  }
  put(shard, p.empty, at->key, expiry);
  ++shard.occupied;
  return NonceVerdict::kFresh;
}

size_t MemoryNonceStore::size() const {
  return size_.load(std::memory_order_relaxed);
}

size_t MemoryNonceStore::table_bytes() const {
  return slots_.load(std::memory_order_relaxed) * sizeof(Slot);
}

size_t MemoryNonceStore::rebuilds() const {
  return rebuilds_.load(std::memory_order_relaxed);
}

}  // namespace licensed
