#include "ratelimit/memory_rate_limiter.h"

#include <algorithm>

namespace licensed {
namespace {

// A shard is swept once it has had as many new buckets as it kept at its last sweep
// (and at least this many): a sweep costs O(size) and size is then at most twice the
// buckets kept plus this floor, so sweeping is amortised O(1) per admit and the map
// stays within about twice the buckets live over the last period.
constexpr size_t kMinInsertsBetweenSweeps = 256;

}  // namespace

MemoryRateLimiter::MemoryRateLimiter(RateSpec spec, size_t shards)
    : spec_{std::max<int64_t>(1, spec.count), std::max<int64_t>(1, spec.period_ms)},
      interval_{spec_.period_ms / spec_.count, spec_.period_ms % spec_.count},
      shard_count_(std::max<size_t>(1, shards)),
      shards_(std::make_unique<Shard[]>(shard_count_)) {}

bool MemoryRateLimiter::is_past(const Instant& t, UnixMillis now) const {
  return t.ms < now || (t.ms == now && t.frac == 0);
}

MemoryRateLimiter::Instant MemoryRateLimiter::plus_interval(const Instant& t) const {
  Instant r{t.ms + interval_.ms, t.frac + interval_.frac};
  if (r.frac >= spec_.count) {
    r.frac -= spec_.count;
    ++r.ms;
  }
  return r;
}

MemoryRateLimiter::Shard& MemoryRateLimiter::shard_for(std::string_view key) const {
  // Remix so the shard index does not correlate with the map's own bucket choice.
  const uint64_t h = static_cast<uint64_t>(KeyHash{}(key)) * 0x9E3779B97F4A7C15ULL;
  return shards_[(h >> 32) % shard_count_];
}

MemoryRateLimiter::Instant MemoryRateLimiter::next_tat(const Instant* current,
                                                       UnixMillis now) const {
  // A TAT in the past means the bucket is full again: the same as no entry.
  const Instant tat = current != nullptr && !is_past(*current, now) ? *current : Instant{now, 0};
  return plus_interval(tat);
}

RateDecision MemoryRateLimiter::decide(const Instant& next, UnixMillis now) const {
  // GCRA with burst N: admit when the new TAT is at most one period ahead of now.
  const int64_t limit_ms = now + spec_.period_ms;
  if (next.ms < limit_ms || (next.ms == limit_ms && next.frac == 0)) return {true, 0};
  // Refused: the bucket admits one request once next - period <= now, which is
  // (next.ms - limit_ms) whole ms plus a fraction; round that up to seconds.
  const int64_t wait_ms = next.ms - limit_ms + (next.frac > 0 ? 1 : 0);
  return refused_for_ms(wait_ms);
}

RateDecision MemoryRateLimiter::admit(std::string_view bucket_key, UnixMillis now) {
  Shard& shard = shard_for(bucket_key);
  MutexLock lock(shard.mu);
  auto it = shard.tat.find(bucket_key);
  const Instant next = next_tat(it != shard.tat.end() ? &it->second : nullptr, now);
  const RateDecision d = decide(next, now);
  if (!d.allowed) return d;
  if (it != shard.tat.end()) {
    it->second = next;
  } else {
    shard.tat.emplace(std::string(bucket_key), next);
    ++shard.inserts_since_sweep;
    maybe_sweep(shard, now);
  }
  return d;
}

RateDecision MemoryRateLimiter::peek(std::string_view bucket_key, UnixMillis now) const {
  Shard& shard = shard_for(bucket_key);
  MutexLock lock(shard.mu);
  const auto it = shard.tat.find(bucket_key);
  return decide(next_tat(it != shard.tat.end() ? &it->second : nullptr, now), now);
}

void MemoryRateLimiter::maybe_sweep(Shard& shard, UnixMillis now) {
  if (shard.inserts_since_sweep < std::max(kMinInsertsBetweenSweeps, shard.size_after_sweep)) {
    return;
  }
  std::erase_if(shard.tat, [&](const auto& entry) { return is_past(entry.second, now); });
  shard.inserts_since_sweep = 0;
  shard.size_after_sweep = shard.tat.size();
}

size_t MemoryRateLimiter::size() const {
  size_t n = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    const Shard& shard = shards_[i];
    MutexLock lock(shard.mu);
    n += shard.tat.size();
  }
  return n;
}

}  // namespace licensed
