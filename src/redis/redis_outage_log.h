// What a Redis-backed part says while Redis is down: a warning on the first failure and
// then at most one every few seconds (with how many were left out), a count for
// /metrics, and one line when Redis answers again. Cheap on the hot path: a success
// while Redis is up is one atomic load. Called from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/log_throttle.h"

namespace licensed {

class RedisOutageLog {
 public:
  // `what` is the work that needs Redis ("nonce checks"), `consequence` what happens to
  // requests meanwhile ("refused with 503 (fail closed)").
  RedisOutageLog(std::string what, std::string consequence, const Clock& clock);

  void failed(std::string_view cause);
  void succeeded();
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  const std::string what_;
  const std::string consequence_;
  const Clock& clock_;
  LogThrottle throttle_;
  std::atomic<bool> down_{false};
  std::atomic<uint64_t> failures_{0};
};

}  // namespace licensed
