#include "load/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace licensed::bench {

// Below 128 a value is its own bucket. From there, a value with its top bit at position
// e (e >= 7) keeps its 7 leading bits: m = v >> (e - 6) lies in [64, 128), and the
// bucket is 128 + (e - 7) * 64 + (m - 64). Values in one bucket differ by at most
// 2^(e-6), which is at most 1/64 of any of them.
size_t LatencyHistogram::bucket_of(uint64_t v) {
  if (v < kExactBelow) return static_cast<size_t>(v);
  const int e = std::bit_width(v) - 1;
  const int shift = e - kSubBits;
  const uint64_t m = v >> shift;
  return kExactBelow + static_cast<size_t>(e - kSubBits - 1) * (1u << kSubBits) +
         static_cast<size_t>(m - (1u << kSubBits));
}

uint64_t LatencyHistogram::highest_in_bucket(size_t bucket) {
  if (bucket < kExactBelow) return bucket;
  const size_t rel = bucket - kExactBelow;
  const int e = static_cast<int>(rel >> kSubBits) + kSubBits + 1;
  const int shift = e - kSubBits;
  const uint64_t m = (rel & ((1u << kSubBits) - 1)) + (1u << kSubBits);
  // The top bucket's bound is UINT64_MAX; (m + 1) << shift would overflow to 0.
  if (e == 63 && m == (2u << kSubBits) - 1) return UINT64_MAX;
  return ((m + 1) << shift) - 1;
}

void LatencyHistogram::record(uint64_t nanos) {
  ++buckets_[bucket_of(nanos)];
  ++count_;
  sum_ += nanos;
  min_ = std::min(min_, nanos);
  max_ = std::max(max_, nanos);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

uint64_t LatencyHistogram::percentile(double percent) const {
  if (count_ == 0) return 0;
  const double wanted = std::clamp(percent, 0.0, 100.0) / 100.0 * static_cast<double>(count_);
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(wanted)));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::min(highest_in_bucket(i), max_);
  }
  return max_;
}

}  // namespace licensed::bench
