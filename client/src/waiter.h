// Monotonic time and sleeping for the retry loop, injected so tests of backoff and
// deadlines move time instead of sleeping. Wall-clock time (request timestamps, cache
// age) is the server's licensed::Clock (core/clock.h), injected the same way.
#pragma once

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace licensed::client {

using SteadyTime = std::chrono::steady_clock::time_point;
using Millis = std::chrono::milliseconds;

class Waiter {
 public:
  virtual ~Waiter() = default;
  virtual SteadyTime now() const = 0;
  virtual void sleep_for(Millis d) = 0;
};

class RealWaiter final : public Waiter {
 public:
  SteadyTime now() const override { return std::chrono::steady_clock::now(); }
  void sleep_for(Millis d) override { std::this_thread::sleep_for(d); }
};

// Sleeping advances its time at once and records the wait.
class FakeWaiter final : public Waiter {
 public:
  SteadyTime now() const override {
    std::lock_guard lock(mu_);
    return now_;
  }
  void sleep_for(Millis d) override {
    std::lock_guard lock(mu_);
    now_ += d;
    sleeps_.push_back(d);
  }
  std::vector<Millis> sleeps() const {
    std::lock_guard lock(mu_);
    return sleeps_;
  }

 private:
  mutable std::mutex mu_;
  SteadyTime now_ = std::chrono::steady_clock::now();
  std::vector<Millis> sleeps_;
};

}  // namespace licensed::client
