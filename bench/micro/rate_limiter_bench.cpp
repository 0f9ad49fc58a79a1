// Checks 3 and 9: one GCRA admit under a shard lock. One hot bucket (every request of
// a client IP), many buckets (a key per license), and two threads on many buckets (the
// server's two network threads; shards keep them apart).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "ratelimit/memory_rate_limiter.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;

std::vector<std::string> bucket_keys(size_t n) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; ++i)
    keys.push_back("6f1c1b1e-8a57-4d5c-9b1e-" + std::to_string(100000000000 + i));
  return keys;
}

void BM_RateLimiterOneBucket(benchmark::State& state) {
  MemoryRateLimiter limiter(RateSpec{1'000'000'000, 1000});
  UnixMillis now = kStart;
  for (auto _ : state) benchmark::DoNotOptimize(limiter.admit("127.0.0.1", now++ / 1000));
}
BENCHMARK(BM_RateLimiterOneBucket);

void BM_RateLimiterManyBuckets(benchmark::State& state) {
  static MemoryRateLimiter limiter(RateSpec{120, 60'000});
  const auto keys = bucket_keys(static_cast<size_t>(state.range(0)));
  size_t i = state.thread_index() * 7919;
  UnixMillis now = kStart;
  for (auto _ : state) {
    benchmark::DoNotOptimize(limiter.admit(keys[i++ % keys.size()], now));
    now += 1;
  }
}
BENCHMARK(BM_RateLimiterManyBuckets)->Arg(10'000)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace licensed
