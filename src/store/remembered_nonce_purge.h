// Drops the nonces the store remembers (those of requests dated ahead of the server's
// clock, docs/protocol.md §3.4) once they expired, every `interval`, on a thread of its own.
// Without it the table would grow with every such request until the next start.
#pragma once

#include <chrono>

#include "core/clock.h"
#include "core/periodic_job.h"
#include "store/store.h"

namespace licensed {

class RememberedNoncePurge {
 public:
  RememberedNoncePurge(Store& store, const Clock& clock, std::chrono::milliseconds interval);

 private:
  PeriodicJob job_;  // stops (a purge under way finishing first) when destroyed
};

}  // namespace licensed
