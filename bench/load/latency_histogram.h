// Latencies of one run in log-linear buckets (the HDR histogram's layout): exact below
// 128 ns, then 64 linear buckets per power of two, so any recorded value is known to
// within 1/64 (1.6 %) in 30 KiB, whatever the run's length. Each load thread records
// into its own histogram and the report merges them, so recording takes no lock.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace licensed::bench {

class LatencyHistogram {
 public:
  void record(uint64_t nanos);
  void merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_) / count_; }
  // The smallest recorded value's bucket bound that at least `percent` of the values
  // do not exceed (the bucket's highest value, capped by the true maximum), in ns.
  // 0 when nothing was recorded.
  uint64_t percentile(double percent) const;

  // Bucket layout, exposed for tests.
  static size_t bucket_of(uint64_t nanos);
  static uint64_t highest_in_bucket(size_t bucket);

 private:
  static constexpr int kSubBits = 6;                       // 64 sub-buckets per power of two
  static constexpr uint64_t kExactBelow = 2u << kSubBits;  // 128: one bucket per value
  static constexpr size_t kBuckets = kExactBelow + (64 - kSubBits - 1) * (1u << kSubBits);

  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace licensed::bench
