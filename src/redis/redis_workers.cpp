#include "redis/redis_workers.h"

#include <algorithm>

namespace licensed {

RedisWorkers::RedisWorkers(size_t threads) {
  threads_.reserve(std::max<size_t>(threads, 1));
  for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i) {
    threads_.emplace_back([this] { run(); });
  }
}

RedisWorkers::~RedisWorkers() {
  stop();
}

void RedisWorkers::submit(std::function<void()> job) {
  {
    MutexLock lock(mu_);
    if (!stopping_) {
      jobs_.push_back(std::move(job));
      wake_.notify_one();
      return;
    }
  }
  job();
}

void RedisWorkers::stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void RedisWorkers::run() {
  MutexLock lock(mu_);
  for (;;) {
    while (jobs_.empty() && !stopping_) lock.wait(wake_);
    // What was queued before stop() still runs: its request is waiting for the answer.
    if (jobs_.empty()) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what it holds (a parked request) goes before the lock is taken
    lock.lock();
  }
}

}  // namespace licensed
