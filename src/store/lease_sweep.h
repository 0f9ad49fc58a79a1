// The minute sweep of ended leases (docs/protocol.md §27): every lease whose expiresAt has
// passed is deleted, with its lease.released (reason "expired") in the same transaction, so
// a seat that ended is reported without waiting for the next checkout of its license.
// Exactly once across restarts and instances: each license is swept under its lock, and the
// event rides on the deletion of the row (core/lease_operations.h), which only one
// transaction can make, whether the sweep of any instance or a checkout.
#pragma once

#include <chrono>
#include <cstdint>

#include "core/clock.h"
#include "core/periodic_job.h"
#include "core/result.h"
#include "store/store.h"

namespace licensed {

inline constexpr std::chrono::minutes kLeaseSweepInterval{1};

// One round at `now`, a page of licenses per write transaction: answers how many leases it
// released.
Result<int64_t> sweep_ended_leases(Store& store, UnixMillis now);

class LeaseSweep {
 public:
  // One round at once (a lease that ended while no server ran is reported at start), then
  // one every `interval` on a thread of its own, each at the clock's time.
  LeaseSweep(Store& store, const Clock& clock, std::chrono::milliseconds interval);

 private:
  PeriodicJob job_;  // stops (a round under way finishing first) when destroyed
};

}  // namespace licensed
