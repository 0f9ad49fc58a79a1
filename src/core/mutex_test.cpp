#include "core/mutex.h"

#include <gtest/gtest.h>

#include <thread>

namespace licensed {
namespace {

TEST(MutexLock, AnotherThreadTakesTheMutexWhileItWaits) {
  Mutex mu;
  std::condition_variable cv;
  bool told = false;
  {
    MutexLock lock(mu);
    // Takes the mutex the wait below must have released, or it never tells.
    std::thread teller([&] {
      MutexLock told_lock(mu);
      told = true;
      cv.notify_all();
    });
    while (!told) lock.wait(cv);
    lock.unlock();
    teller.join();
  }
  EXPECT_TRUE(told);
}

TEST(MutexLock, AWaitUntilADeadlineAlreadyPassedTimesOutHoldingTheMutex) {
  Mutex mu;
  std::condition_variable cv;
  MutexLock lock(mu);
  EXPECT_EQ(lock.wait_until(cv, std::chrono::steady_clock::now() - std::chrono::seconds(1)),
            std::cv_status::timeout);
}

}  // namespace
}  // namespace licensed
