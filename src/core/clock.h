// Time is injected: operations, the nonce cache and the limiter read a Clock, so tests
// move time instead of sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace licensed {

// Milliseconds since the Unix epoch.
using UnixMillis = int64_t;

// The whole Unix second `ms` falls in (rounded down, also before 1970).
inline int64_t unix_seconds(UnixMillis ms) {
  return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
}

// `t` moved by `seconds` (negative moves back), saturating at the ends of UnixMillis.
// Durations come from admins, plans and stored rows; an overflow would be undefined
// behaviour and, in practice, a date thousands of years off in a signed answer.
inline UnixMillis add_seconds(UnixMillis t, int64_t seconds) {
  constexpr UnixMillis kMax = INT64_MAX;
  constexpr UnixMillis kMin = INT64_MIN;
  UnixMillis ms = 0;
  UnixMillis sum = 0;
  if (__builtin_mul_overflow(seconds, 1000, &ms)) return seconds > 0 ? kMax : kMin;
  if (__builtin_add_overflow(t, ms, &sum)) return ms > 0 ? kMax : kMin;
  return sum;
}

// The longest duration an admin may set (on a license, a plan or an entitlement): 100
// years. Anything longer is a typo or an attack, and stays far from overflow when added
// to a time.
inline constexpr int64_t kMaxDurationSeconds = int64_t{36500} * 86400;

// The system clock in Unix milliseconds, without a Clock.
inline UnixMillis system_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Read from many threads at once: implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual UnixMillis now_ms() const = 0;
  int64_t now_seconds() const { return unix_seconds(now_ms()); }
};

class SystemClock final : public Clock {
 public:
  UnixMillis now_ms() const override { return system_now_ms(); }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(UnixMillis start) : now_(start) {}
  UnixMillis now_ms() const override { return now_.load(); }
  void set(UnixMillis t) { now_.store(t); }
  void advance_ms(int64_t d) { now_.fetch_add(d); }

 private:
  std::atomic<UnixMillis> now_;
};

}  // namespace licensed
