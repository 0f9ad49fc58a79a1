// Drops the nonces the store remembers (those of requests dated ahead of the server's
// clock, docs/protocol.md §3.4) once they expired, every `interval`, on a thread of its own.
// Without it the table would grow with every such request until the next start.
#pragma once

#include <chrono>
#include <condition_variable>
#include <thread>

#include "core/clock.h"
#include "core/mutex.h"
#include "store/store.h"

namespace licensed {

class RememberedNoncePurge {
 public:
  RememberedNoncePurge(Store& store, const Clock& clock, std::chrono::milliseconds interval);
  // Stops the thread; a purge under way finishes first.
  ~RememberedNoncePurge();
  RememberedNoncePurge(const RememberedNoncePurge&) = delete;
  RememberedNoncePurge& operator=(const RememberedNoncePurge&) = delete;

 private:
  void run();

  Store& store_;
  const Clock& clock_;
  const std::chrono::milliseconds interval_;
  Mutex mu_;
  std::condition_variable wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace licensed
