// A mutex the thread-safety analysis knows (core/thread_annotations.h), and the scoped
// lock that holds it. libstdc++'s std::mutex carries no annotations, so a field
// GUARDED_BY a std::mutex could not be checked; this wraps one and adds them. Waiting on
// a condition variable goes through the lock, so the wait's loop stays in the function
// that holds it, where the analysis sees the guarded fields it reads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <utility>

#include "core/thread_annotations.h"

namespace licensed {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds `mu` from construction to destruction, like std::unique_lock: it may give it
// back early (unlock) and take it again (lock), and waits release it meanwhile.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void unlock() RELEASE() { lock_.unlock(); }
  void lock() ACQUIRE() { lock_.lock(); }

  // Sleeps until `cv` is notified (or wakes spuriously: callers loop on their
  // condition), the mutex released meanwhile and held again on return.
  void wait(std::condition_variable& cv) { cv.wait(lock_); }
  // As wait(), but returns std::cv_status::timeout once `deadline` has passed.
  template <class Clock, class Duration>
  std::cv_status wait_until(std::condition_variable& cv,
                            const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv.wait_until(lock_, deadline);
  }
  // As wait_until(), on a condition_variable_any, and also woken by a stop request on
  // `stop` (returning at once, without sleeping, when one was made already). Sleeps at
  // most once: callers loop on their condition, their deadline and `stop`.
  template <class Clock, class Duration>
  std::cv_status wait_until(std::condition_variable_any& cv, std::stop_token stop,
                            const std::chrono::time_point<Clock, Duration>& deadline) {
    // The standard's stop_token waits loop on a predicate; this one is false before the
    // sleep and true after it, so the loop (with the guarded reads) stays the caller's.
    bool slept = false;
    cv.wait_until(lock_, std::move(stop), deadline,
                  [&slept] { return std::exchange(slept, true); });
    return Clock::now() < deadline ? std::cv_status::no_timeout : std::cv_status::timeout;
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace licensed
