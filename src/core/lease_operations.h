// The end of leases (docs/protocol.md §27): a lease whose expiresAt has passed is released,
// reported by lease.released with reason "expired", by whichever comes first of the minute
// sweep (store/lease_sweep.h) and a checkout or checkin of its license. Both paths go
// through release_ended_leases, and a row is deleted once, so each ended lease is reported
// exactly once.
#pragma once

#include <cstdint>

#include "core/license_tx.h"
#include "core/result.h"

namespace licensed {

// Deletes the license's leases that ended at or before `now` and writes, in this transaction,
// one lease.released (reason "expired", actor system, the machine and the lease) for each.
// No audit record: docs/protocol.md §17 names no action for an ending lease, which is no
// accepted change but time passing (a renewal writes none either). Under the license's lock, so
// it cannot interleave with a checkout of the same license. Answers how many it released.
Result<int64_t> release_ended_leases(LicenseTx& tx, const LockedLicense& license, UnixMillis now);

}  // namespace licensed
