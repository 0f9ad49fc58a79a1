#include "redis/redis_workers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace licensed {
namespace {

constexpr auto kGuard = std::chrono::seconds(30);  // against a hang, never a measurement

TEST(RedisWorkers, AJobRunsOnAWorkerNotOnTheCaller) {
  RedisWorkers workers(2);
  std::promise<std::thread::id> ran_on;
  workers.submit([&ran_on] { ran_on.set_value(std::this_thread::get_id()); });
  auto future = ran_on.get_future();
  ASSERT_EQ(future.wait_for(kGuard), std::future_status::ready);
  EXPECT_NE(future.get(), std::this_thread::get_id());
}

// A queued job belongs to a parked request, which waits for its answer: stopping runs it.
TEST(RedisWorkers, StoppingRunsTheJobsAlreadyQueuedInOrder) {
  RedisWorkers workers(1);
  std::promise<void> go;
  std::shared_future<void> released = go.get_future().share();
  std::vector<int> ran;  // only the one worker writes it; read after stop() joined it
  workers.submit([&ran, released] {
    released.wait();
    ran.push_back(1);
  });
  workers.submit([&ran] { ran.push_back(2); });
  workers.submit([&ran] { ran.push_back(3); });
  std::thread stopping([&workers] { workers.stop(); });
  go.set_value();
  stopping.join();
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
}

TEST(RedisWorkers, AJobGivenAfterStoppingRunsOnTheCaller) {
  RedisWorkers workers(1);
  workers.stop();
  std::thread::id ran_on;
  workers.submit([&ran_on] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace licensed
