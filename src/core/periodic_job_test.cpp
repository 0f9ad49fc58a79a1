#include "core/periodic_job.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace licensed {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(PeriodicJob, RunsItsWorkEveryIntervalUntilDestroyed) {
  std::atomic<int> runs{0};
  auto job = std::make_unique<PeriodicJob>(milliseconds(5), [&runs] { ++runs; });
  const auto deadline = steady_clock::now() + std::chrono::seconds(10);
  while (runs.load() < 3 && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_GE(runs.load(), 3);
  job.reset();
  const int after_stop = runs.load();
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(runs.load(), after_stop) << "ran after it was destroyed";
}

TEST(PeriodicJob, StopsAtOnceWithoutWaitingOutItsInterval) {
  std::atomic<int> runs{0};
  const auto started = steady_clock::now();
  {
    const PeriodicJob job(std::chrono::hours(1), [&runs] { ++runs; });
  }
  EXPECT_LT(steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(runs.load(), 0) << "the first run comes one interval after the start";
}

}  // namespace
}  // namespace licensed
