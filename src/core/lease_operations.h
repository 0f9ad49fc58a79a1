// The end of leases (docs/protocol.md §27): a lease whose expiresAt has passed is released,
// reported by lease.released with reason "expired", by whichever comes first of the minute
// sweep (store/lease_sweep.h) and a checkout or checkin of its license. Both paths go
// through release_ended_leases, and a row is deleted once, so each ended lease is reported
// exactly once. A machine going away (deactivated, freed, reclaimed) releases its leases with
// reason "deactivated" through report_machine_leases.
#pragma once

#include <cstdint>
#include <vector>

#include "core/license_tx.h"
#include "core/result.h"

namespace licensed {

// Deletes the license's leases that ended at or before `now` and writes, in this transaction,
// one lease.released (reason "expired", actor system, the machine and the lease) for each.
// No audit record: docs/protocol.md §17 names no action for an ending lease, which is no
// accepted change but time passing (a renewal writes none either). Under the license's lock, so
// it cannot interleave with a checkout of the same license. Answers how many it released.
Result<int64_t> release_ended_leases(LicenseTx& tx, const LockedLicense& license, UnixMillis now);

// The leases a machine's going away deleted (LicenseTx::delete_activation,
// delete_stale_activations, release_machine_leases), each reported by one lease.released in
// this transaction: reason "deactivated" and `actor` (the audit record's) for a lease live at
// `now`; reason "expired" and actor system for one that had already ended, as the sweep or a
// checkout would have reported it, so the reason does not hang on which of them came first.
// `machine`: the row as it was when it is already deleted (a reclaim), else null (read here).
Status report_machine_leases(LicenseTx& tx, const License& license, const Activation* machine,
                             const std::vector<Lease>& leases, UnixMillis now, Actor actor);

}  // namespace licensed
