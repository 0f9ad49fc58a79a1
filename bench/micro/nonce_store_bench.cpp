// Check 7: remembering a fresh nonce (every accepted request does) and refusing a
// replay, in the sharded in-memory store; one and two threads.
#include <benchmark/benchmark.h>

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
  const std::string& next() {
    static constexpr char kHex[] = "0123456789abcdef";
    uint64_t v = counter_++;
    for (int i = 31; i >= 16; --i, v >>= 4) text_[i] = kHex[v & 0xf];
    return text_;
  }

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

}  // namespace
}  // namespace licensed
