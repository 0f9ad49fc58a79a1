// Check 7: remembering a fresh nonce (every accepted request does) and refusing a
// replay, in the sharded in-memory store; one and two threads, and in a store holding
// 600 s of traffic. And what the store costs in memory per remembered nonce.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "auth/memory_nonce_store.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;
constexpr UnixMillis kTenMinutes = 600'000;

// A distinct 32-hex-digit nonce per call: the thread in the first digits, a counter in
// the last 16, written in place (a few ns, included in the figures).
class NonceMaker {
 public:
  explicit NonceMaker(int thread) : text_(32, '0') { text_[0] = static_cast<char>('a' + thread); }
  const std::string& next() { return at(counter_++); }
  // The nonce next() gave as its `v`th.
  const std::string& at(uint64_t v) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = 31; i >= 16; --i, v >>= 4) text_[i] = kHex[v & 0xf];
    return text_;
  }
  uint64_t made() const { return counter_; }

 private:
  std::string text_;
  uint64_t counter_ = 0;
};

void BM_NonceFresh(benchmark::State& state) {
  // Shared by the threads of one run, as the server's store is shared by its network
  // threads. Thread 0 makes it before the loop, whose start is a barrier for all threads.
  static MemoryNonceStore* store = nullptr;
  if (state.thread_index() == 0) {
    delete store;
    store = new MemoryNonceStore(50'000'000);
  }
  NonceMaker nonces(state.thread_index());
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        store->check_and_insert("bench", nonces.next(), kStart, kStart + kTenMinutes));
  }
}
BENCHMARK(BM_NonceFresh)->Threads(1)->Threads(2)->UseRealTime();

void BM_NonceReplay(benchmark::State& state) {
  MemoryNonceStore store;
  NonceMaker nonces(0);
  const std::string nonce = nonces.next();
  (void)store.check_and_insert("bench", nonce, kStart, kStart + kTenMinutes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(store.check_and_insert("bench", nonce, kStart, kStart + kTenMinutes));
  }
}
BENCHMARK(BM_NonceReplay);

// The store in steady state as the server serving status to 1M machines holds it
// (docs/benchmarks.md): 4,500 accepted requests a second, each nonce kept 600 s, so
// 2.7M remembered, spread over every slice of those 600 s. Made once per process (the
// first run fills it: 2.7M checks) and carried on by later runs: every fresh check
// moves the clock on by 1/4,500 s.
class SteadyStore {
 public:
  static constexpr int64_t kPerSecond = 4'500;
  static SteadyStore& instance() {
    static SteadyStore s;
    return s;
  }
  NonceVerdict fresh() {
    const UnixMillis now = clock();
    return store_.check_and_insert("bench", nonces_.next(), now, now + kTenMinutes);
  }
  // A nonce remembered, picked at random: one of the last 2.7M but the oldest second's
  // (whose expiry may have come).
  NonceVerdict replay() {
    pick_ = pick_ * 6364136223846793005u + 1442695040888963407u;
    const uint64_t back = (pick_ >> 33) % ((kTenMinutes / 1000 - 1) * kPerSecond) + 1;
    const UnixMillis now = clock();
    return store_.check_and_insert("bench", nonces_.at(nonces_.made() - back), now,
                                   now + kTenMinutes);
  }

 private:
  SteadyStore() {
    for (int64_t i = 0; i < kTenMinutes * kPerSecond / 1000; ++i) (void)fresh();
  }
  UnixMillis clock() const {
    return kStart + static_cast<int64_t>(nonces_.made()) * 1000 / kPerSecond;
  }
  MemoryNonceStore store_;
  NonceMaker nonces_{0};
  uint64_t pick_ = 1;
};

// Fresh nonces or replays in the steady store; a check that does not answer `expected`
// stops the run.
void BM_NonceSteady(benchmark::State& state, NonceVerdict (SteadyStore::*check)(),
                    NonceVerdict expected) {
  SteadyStore& s = SteadyStore::instance();
  for (auto _ : state) {
    if ((s.*check)() != expected) {
      state.SkipWithError("a wrong verdict");
      return;
    }
  }
}
BENCHMARK_CAPTURE(BM_NonceSteady, fresh, &SteadyStore::fresh, NonceVerdict::kFresh);
BENCHMARK_CAPTURE(BM_NonceSteady, replay, &SteadyStore::replay, NonceVerdict::kReused);

// Heap bytes in use (glibc's own accounting: small blocks plus mmapped ones), which
// counts every allocation exactly, whatever the allocator later reuses.
size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

size_t resident_bytes() {
  long pages = 0;
  long resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// A server at 10,000 accepted requests per second for `seconds`, on the store as
// main.cpp makes it, nonces kept ten minutes: after 600 s it holds 6M nonces, and from
// then on as many expire as arrive. `each(check)` runs every check and returns false to
// stop; returns the nonces still remembered at the end.
template <typename Check>
int64_t simulate_traffic(MemoryNonceStore& store, int64_t seconds, Check each) {
  constexpr int64_t kPerSecond = 10'000;
  const int64_t total = seconds * kPerSecond;
  NonceMaker nonces(0);
  for (int64_t i = 0; i < total; ++i) {
    const UnixMillis now = kStart + i * 1000 / kPerSecond;
    const std::string& nonce = nonces.next();
    if (!each([&] { return store.check_and_insert("bench", nonce, now, now + kTenMinutes); })) {
      break;
    }
  }
  return std::min(total, kTenMinutes * kPerSecond / 1000);
}

// Heap and resident bytes per nonce still remembered after `state.range(0)` seconds of
// that traffic. Run each size in a process of its own
// (--benchmark_filter=NonceMemory/600/), so the resident figure starts from a clean heap.
void BM_NonceMemory(benchmark::State& state) {
  for (auto _ : state) {
    const size_t heap_before = heap_in_use();
    const size_t rss_before = resident_bytes();
    auto store = std::make_unique<MemoryNonceStore>();
    bool refused = false;
    const int64_t remembered = simulate_traffic(*store, state.range(0), [&](auto check) {
      refused = check() != NonceVerdict::kFresh;
      return !refused;
    });
    if (refused) {
      state.SkipWithError("a fresh nonce was refused");
      return;
    }
    const double heap = static_cast<double>(heap_in_use() - heap_before);
    const double rss = static_cast<double>(resident_bytes() - rss_before);
    state.counters["remembered"] = static_cast<double>(remembered);
    state.counters["heap_MiB"] = heap / (1024 * 1024);
    state.counters["rss_MiB"] = rss / (1024 * 1024);
    state.counters["heap_B_per_nonce"] = heap / static_cast<double>(remembered);
    state.counters["rss_B_per_nonce"] = rss / static_cast<double>(remembered);
  }
}
BENCHMARK(BM_NonceMemory)->Arg(100)->Arg(600)->Arg(1200)->Iterations(1)->Unit(benchmark::kSecond);

std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// The pauses the same traffic sees: a check that rebuilt its shard's table held that
// shard's lock meanwhile. In this thread's CPU time, so preemption does not count
// (on a virtual machine, time the hypervisor takes may still).
void BM_NonceRebuildPauses(benchmark::State& state) {
  for (auto _ : state) {
    MemoryNonceStore store;
    std::chrono::nanoseconds longest{};
    std::chrono::nanoseconds sum{};
    size_t rebuilds = 0;
    simulate_traffic(store, state.range(0), [&](auto check) {
      const size_t before = store.rebuilds();
      const std::chrono::nanoseconds started = thread_cpu_time();
      const bool fresh = check() == NonceVerdict::kFresh;
      if (store.rebuilds() != before) {
        const std::chrono::nanoseconds took = thread_cpu_time() - started;
        longest = std::max(longest, took);
        sum += took;
        ++rebuilds;
      }
      return fresh;
    });
    state.counters["rebuilds"] = static_cast<double>(rebuilds);
    state.counters["mean_rebuild_ms"] =
        rebuilds == 0 ? 0.0
                      : std::chrono::duration<double, std::milli>(sum).count() /
                            static_cast<double>(rebuilds);
    state.counters["longest_rebuild_ms"] =
        std::chrono::duration<double, std::milli>(longest).count();
  }
}
BENCHMARK(BM_NonceRebuildPauses)->Arg(1200)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace licensed
