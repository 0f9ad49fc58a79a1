// The threads that wait on Redis for requests, so that network threads never do: a
// request that needs Redis parks, its call runs here (blocking, with the client's
// timeouts), and its continuation is handed back to the request's own network thread
// (http/resume.h), as a store job's is. One slow answer then holds one worker, never a
// network thread and every connection on it.
//
// Jobs start in the order given. The queue needs no bound of its own: a request waits
// on one Redis call at a time, so there are at most about as many jobs as open
// connections, which the server caps. Called from many threads at once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace licensed {

class RedisWorkers {
 public:
  explicit RedisWorkers(size_t threads);
  // stop().
  ~RedisWorkers();
  RedisWorkers(const RedisWorkers&) = delete;
  RedisWorkers& operator=(const RedisWorkers&) = delete;

  // Runs `job` on a worker. After stop(), on the caller, so every job still runs once.
  void submit(std::function<void()> job) EXCLUDES(mu_);
  // Runs the jobs already queued, then ends the threads and joins them. Idempotent.
  void stop() EXCLUDES(mu_);

 private:
  void run() EXCLUDES(mu_);

  Mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;  // started by the constructor, joined by stop()
};

}  // namespace licensed
