// Monotonic time and sleeping for the retry loop, injected so tests of backoff and
// deadlines move time instead of sleeping. Wall-clock time (request timestamps, cache
// age) is the server's licensed::Clock (core/clock.h), injected the same way.
#pragma once

#include <chrono>
#include <condition_variable>
#include <stop_token>
#include <vector>

#include "core/mutex.h"

namespace licensed::client {

using SteadyTime = std::chrono::steady_clock::time_point;
using Millis = std::chrono::milliseconds;

class Waiter {
 public:
  virtual ~Waiter() = default;
  virtual SteadyTime now() const = 0;
  // Sleeps `d`, or less when `stop` is requested (a cancelled call wakes at once).
  virtual void sleep_for(Millis d, std::stop_token stop = {}) = 0;
};

class RealWaiter final : public Waiter {
 public:
  SteadyTime now() const override { return std::chrono::steady_clock::now(); }
  void sleep_for(Millis d, std::stop_token stop = {}) override {
    // Nothing notifies cv: only the deadline or a stop request ends the sleep.
    const SteadyTime deadline = now() + d;
    Mutex mu;
    std::condition_variable_any cv;
    MutexLock lock(mu);
    while (!stop.stop_requested() && now() < deadline) lock.wait_until(cv, stop, deadline);
  }
};

// Sleeping advances its time at once and records the wait.
class FakeWaiter final : public Waiter {
 public:
  SteadyTime now() const override {
    MutexLock lock(mu_);
    return now_;
  }
  void sleep_for(Millis d, std::stop_token = {}) override {
    MutexLock lock(mu_);
    now_ += d;
    sleeps_.push_back(d);
  }
  std::vector<Millis> sleeps() const {
    MutexLock lock(mu_);
    return sleeps_;
  }

 private:
  mutable Mutex mu_;
  SteadyTime now_ GUARDED_BY(mu_) = std::chrono::steady_clock::now();
  std::vector<Millis> sleeps_ GUARDED_BY(mu_);
};

}  // namespace licensed::client
