// GCRA (the generic cell rate algorithm) in process memory: one theoretical arrival
// time (TAT) per bucket instead of a token count and a refill timer, so a bucket costs
// one map entry and an admit is a few integer operations under one shard's lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/mutex.h"
#include "ratelimit/rate_limiter.h"
#include "ratelimit/rate_spec.h"

namespace licensed {

class MemoryRateLimiter final : public RateLimiter {
 public:
  // `spec.count` >= 1 and `spec.period_ms` >= 1, as parse_rate_spec guarantees.
  explicit MemoryRateLimiter(RateSpec spec, size_t shards = 64);

  RateDecision admit(std::string_view bucket_key, UnixMillis now) override;
  // What admit would answer at `now`, counting nothing: a caller that counts only
  // failures (wrong admin tokens) asks first, so an empty bucket refuses every attempt.
  RateDecision peek(std::string_view bucket_key, UnixMillis now) const;

  // Buckets currently remembered; swept ones are not counted.
  size_t size() const;

 private:
  // An instant as ms + frac/count ms, 0 <= frac < count: the emission interval
  // period/count is then exact (600/1m or 7/1s do not drift) in integer arithmetic.
  struct Instant {
    int64_t ms;
    int64_t frac;
  };

  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  struct alignas(64) Shard {
    mutable Mutex mu;
    std::unordered_map<std::string, Instant, KeyHash, std::equal_to<>> tat GUARDED_BY(mu);
    size_t inserts_since_sweep GUARDED_BY(mu) = 0;
    size_t size_after_sweep GUARDED_BY(mu) = 0;
  };

  bool is_past(const Instant& t, UnixMillis now) const;
  Instant plus_interval(const Instant& t) const;
  // The TAT after admitting one more at `now`, from the bucket's current one (if any).
  Instant next_tat(const Instant* current, UnixMillis now) const;
  // Admitted when `next` is at most one period ahead of now; else the refusal.
  RateDecision decide(const Instant& next, UnixMillis now) const;
  void maybe_sweep(Shard& shard, UnixMillis now) REQUIRES(shard.mu);
  Shard& shard_for(std::string_view key) const;

  RateSpec spec_;
  Instant interval_;  // the emission interval, period/count
  size_t shard_count_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace licensed
