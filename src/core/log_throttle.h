// Keeps a log line that repeats for every request (every write while the disk is full,
// every refusal while the store queue is full) from flooding the log and slowing the
// server down while it is already in trouble: the first one is written, then at most one
// per period, each saying how many were left out since the last.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/mutex.h"

namespace licensed {

class LogThrottle {
 public:
  static constexpr int64_t kDefaultPeriodMs = 5'000;
  explicit LogThrottle(int64_t period_ms = kDefaultPeriodMs) : period_ms_(period_ms) {}

  // The number of lines left out since the last one written when this one should be
  // written now, nullopt when it should be left out. Thread-safe.
  std::optional<uint64_t> admit(UnixMillis now) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (written_ && now - last_ms_ < period_ms_) {
      ++left_out_;
      return std::nullopt;
    }
    written_ = true;
    last_ms_ = now;
    const uint64_t n = left_out_;
    left_out_ = 0;
    return n;
  }

 private:
  const int64_t period_ms_;
  Mutex mu_;
  bool written_ GUARDED_BY(mu_) = false;
  UnixMillis last_ms_ GUARDED_BY(mu_) = 0;
  uint64_t left_out_ GUARDED_BY(mu_) = 0;
};

// What a line admitted by a throttle adds about those left out before it: nothing for
// none, else " (N more like it since the last report)".
inline std::string left_out_note(uint64_t left_out) {
  if (left_out == 0) return {};
  return " (" + std::to_string(left_out) + " more like it since the last report)";
}

}  // namespace licensed
