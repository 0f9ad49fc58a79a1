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

// A table's smallest size, in slots (128 bytes).
constexpr size_t kMinSlots = 16;

// Where a fingerprint's probe run starts: its high bits scaled to the table (no
// power-of-two size needed, so a table can be sized to what it holds).
size_t home_of(uint64_t fingerprint, size_t capacity) {
  return static_cast<size_t>((static_cast<unsigned __int128>(fingerprint) * capacity) >> 64);
}

size_t next_slot(size_t i, size_t capacity) {
  return i + 1 == capacity ? 0 : i + 1;
}

// Tables are at most 3/4 full, so every probe run ends at an empty slot.
bool over_load(size_t count, size_t capacity) {
  return count * 4 > capacity * 3;
}

// A table for `count` entries and half as many more, 2/3 full: room for the next
// slice at a steady rate, or for late arrivals in a finished one.
size_t fitted(size_t count) {
  return std::max(kMinSlots, count + count / 2);
}

// Puts a fingerprint, known absent, at the first empty slot from its home.
void place(uint64_t* slots, size_t capacity, uint64_t fingerprint) {
  size_t i = home_of(fingerprint, capacity);
  while (slots[i] != 0) i = next_slot(i, capacity);
  slots[i] = fingerprint;
}

// Zeroed: every slot empty. No exception on the request path: null if it cannot be had.
std::unique_ptr<uint64_t[]> new_table(size_t capacity) {
  return std::unique_ptr<uint64_t[]>(new (std::nothrow) uint64_t[capacity]());
}

}  // namespace

MemoryNonceStore::MemoryNonceStore(size_t max_entries, size_t shards, int64_t slice_ms)
    : max_entries_(max_entries),
      shard_count_(std::max<size_t>(1, shards)),
      slice_ms_(std::max<int64_t>(1, slice_ms)),
      shards_(std::make_unique<Shard[]>(shard_count_)) {
  salted_ = RAND_bytes(salt_, sizeof salt_) == 1;
}

MemoryNonceStore::~MemoryNonceStore() = default;

std::optional<MemoryNonceStore::Located> MemoryNonceStore::locate(std::string_view key_id,
                                                                  std::string_view nonce) const {
  if (!salted_) return std::nullopt;
  // Key ids are [A-Za-z0-9._-] (docs/protocol.md §3.1), so a NUL separator makes the pair
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
  uint64_t w[2];
  std::memcpy(w, md.data(), sizeof w);
  // Independent bits for the shard and the fingerprint (which also places the entry
  // in its tables).
  return Located{static_cast<size_t>(w[0] % shard_count_), w[1] == 0 ? 1 : w[1]};
}

int64_t MemoryNonceStore::slice_of(UnixMillis expires_at) const {
  // Rounded up; division truncates towards zero, which is up for negative times.
  return expires_at / slice_ms_ + (expires_at % slice_ms_ > 0 ? 1 : 0);
}

UnixMillis MemoryNonceStore::slice_end(int64_t slice) const {
  // Past what UnixMillis holds: the end of time, when nothing is dropped.
  if (slice > std::numeric_limits<UnixMillis>::max() / slice_ms_) {
    return std::numeric_limits<UnixMillis>::max();
  }
  return slice * slice_ms_;
}

void MemoryNonceStore::drop_ended(Shard& shard, UnixMillis now) {
  size_t ended = 0;
  while (ended < shard.live && slice_end(shard.gens[ended].slice) <= now) {
    Generation& g = shard.gens[ended];
    size_.fetch_sub(g.count, std::memory_order_relaxed);
    slots_.fetch_sub(g.capacity, std::memory_order_relaxed);
    g = Generation{};
    ++ended;
  }
  if (ended == 0) return;
  std::move(shard.gens.begin() + static_cast<ptrdiff_t>(ended),
            shard.gens.begin() + static_cast<ptrdiff_t>(shard.live), shard.gens.begin());
  shard.live -= ended;
}

bool MemoryNonceStore::contains(const Shard& shard, uint64_t fingerprint) {
  // The runs are in different tables: fetch all their first cache lines at once rather
  // than wait for each miss in turn.
  std::array<size_t, kMaxGenerations> homes;
  for (size_t g = 0; g < shard.live; ++g) {
    homes[g] = home_of(fingerprint, shard.gens[g].capacity);
    __builtin_prefetch(&shard.gens[g].slots[homes[g]]);
  }
  for (size_t g = 0; g < shard.live; ++g) {
    const Generation& gen = shard.gens[g];
    // The bound only guards the loop: a table is never full.
    for (size_t n = 0, i = homes[g]; n < gen.capacity; ++n, i = next_slot(i, gen.capacity)) {
      const uint64_t s = gen.slots[i];
      if (s == fingerprint) return true;
      if (s == 0) break;
    }
  }
  return false;
}

bool MemoryNonceStore::resize(Generation& gen, size_t capacity) {
  std::unique_ptr<uint64_t[]> table = new_table(capacity);
  if (!table) return false;
  for (size_t i = 0; i < gen.capacity; ++i) {
    if (gen.slots[i] != 0) place(table.get(), capacity, gen.slots[i]);
  }
  slots_.fetch_add(capacity, std::memory_order_relaxed);
  slots_.fetch_sub(gen.capacity, std::memory_order_relaxed);
  gen.slots = std::move(table);
  gen.capacity = capacity;
  rebuilds_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

MemoryNonceStore::Generation* MemoryNonceStore::generation_for(Shard& shard, int64_t slice) {
  // Almost always the latest slice: look from the back.
  size_t pos = shard.live;
  while (pos > 0 && shard.gens[pos - 1].slice >= slice) --pos;
  if (pos < shard.live && shard.gens[pos].slice == slice) return &shard.gens[pos];

  if (shard.live == kMaxGenerations) {
    // No table to spare: the next later slice keeps the entry, or else the latest
    // table moves to this later slice. Either way it is kept longer, never shorter.
    Generation& g = shard.gens[std::min(pos, shard.live - 1)];
    g.slice = std::max(g.slice, slice);
    return &g;
  }

  const bool latest = pos == shard.live;
  // A new latest slice starts where the one before it ended up, so a steady rate
  // never grows it.
  const size_t capacity = latest && pos > 0 ? fitted(shard.gens[pos - 1].count) : kMinSlots;
  std::unique_ptr<uint64_t[]> table = new_table(capacity);
  if (!table) return nullptr;
  std::move_backward(shard.gens.begin() + static_cast<ptrdiff_t>(pos),
                     shard.gens.begin() + static_cast<ptrdiff_t>(shard.live),
                     shard.gens.begin() + static_cast<ptrdiff_t>(shard.live + 1));
  ++shard.live;
  shard.gens[pos] = Generation{slice, std::move(table), capacity, 0};
  slots_.fetch_add(capacity, std::memory_order_relaxed);

  if (latest && pos > 0) {
    // The slice before has (almost) stopped filling: if it grew and ended up under
    // half full, it shrinks to fit. If that cannot be allocated it stays as it is.
    Generation& before = shard.gens[pos - 1];
    if (before.count * 2 < before.capacity && fitted(before.count) < before.capacity) {
      (void)resize(before, fitted(before.count));
    }
  }
  return &shard.gens[pos];
}

void MemoryNonceStore::make_room_everywhere(UnixMillis now) {
  for (size_t i = 0; i < shard_count_; ++i) {
    Shard& shard = shards_[i];
    MutexLock lock(shard.mu);
    drop_ended(shard, now);
  }
}

NonceVerdict MemoryNonceStore::check_and_insert_impl(std::string_view key_id,
                                                     std::string_view nonce, UnixMillis now,
                                                     UnixMillis expires_at,
                                                     int64_t /*dated_seconds*/) {
  const std::optional<Located> at = locate(key_id, nonce);
  if (!at) return NonceVerdict::kFull;

  // At capacity, room may be waiting in other shards; make it before taking our lock
  // (holding two shard locks at once could deadlock).
  if (size_.load(std::memory_order_relaxed) >= max_entries_) make_room_everywhere(now);

  Shard& shard = shards_[at->shard];
  MutexLock lock(shard.mu);
  drop_ended(shard, now);
  if (contains(shard, at->fingerprint)) return NonceVerdict::kReused;

  const int64_t slice = slice_of(expires_at);
  // Its slice has ended already: it would be dropped at once, so there is nothing to
  // remember.
  if (slice_end(slice) <= now) return NonceVerdict::kFresh;

  // Reserve the entry first so concurrent inserts into other shards cannot overshoot
  // the capacity.
  if (size_.fetch_add(1, std::memory_order_relaxed) >= max_entries_) {
    size_.fetch_sub(1, std::memory_order_relaxed);
    return NonceVerdict::kFull;
  }
  Generation* gen = generation_for(shard, slice);
  if (gen == nullptr ||
      (over_load(gen->count + 1, gen->capacity) && !resize(*gen, 2 * gen->capacity))) {
    size_.fetch_sub(1, std::memory_order_relaxed);
    return NonceVerdict::kFull;
  }
  place(gen->slots.get(), gen->capacity, at->fingerprint);
  ++gen->count;
  return NonceVerdict::kFresh;
}

size_t MemoryNonceStore::size() const {
  return size_.load(std::memory_order_relaxed);
}

size_t MemoryNonceStore::table_bytes() const {
  return slots_.load(std::memory_order_relaxed) * sizeof(uint64_t);
}

size_t MemoryNonceStore::rebuilds() const {
  return rebuilds_.load(std::memory_order_relaxed);
}

}  // namespace licensed
