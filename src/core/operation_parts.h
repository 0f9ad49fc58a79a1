// The pieces the License API operations share (core/operations.cpp and
// core/offline_operations.cpp): who may see a license, its lock, audit records, the counts
// the cap rests on, reclaim, the activate answer, and the deactivation quota. Internal to
// core's operations; the surfaces use core/operations.h.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

#include "core/license_tx.h"
#include "core/operations.h"

namespace licensed::op_parts {

// docs/protocol.md §6: deleted and unknown are one answer, and so is a license of a product
// the signing key (or an offline file's own key) is not bound to.
bool visible(const License& license, const OperationContext& ctx);
// The license, locked until this transaction ends; 1703 when it is not visible.
RequestResult<LockedLicense> lock_license(LicenseTx& tx, const LicenseRequest& req,
                                          const OperationContext& ctx);
// A record with the context's actor, ip, key id and request id.
AuditEntry audit_entry(std::string_view action, const License& license, std::string_view machine_id,
                       const OperationContext& ctx);
// Machines holding a slot at `now` (holds_slot): what answers show, and under the lock
// what the cap is checked against.
Result<int64_t> count_fresh(LicenseTx& tx, const License& license, UnixMillis now);
Result<int64_t> count_fresh(LicenseTx& tx, const LockedLicense& license, UnixMillis now);
// The 200 body of a deactivation, online or offline: {"ok", "activations", "max"}.
Result<boost::json::object> deactivation_body(LicenseTx& tx, const LockedLicense& locked,
                                              UnixMillis now);
// docs/protocol.md §10: the next activate deletes what no longer holds a slot, one
// license.reclaim record (actor system) each.
Status reclaim_stale(LicenseTx& tx, const LockedLicense& locked, const OperationContext& ctx);
// validUntil (null when the answer does not allow use) and the entitlements.
void put_grant(boost::json::object& body, const License& license, UnixMillis now, bool usable);
// The 200 body of activate.
boost::json::object activation_body(const License& license, std::string_view effective,
                                    int64_t activations, const Activation& a, UnixMillis now);
// A plan valid from the first activation sets the expiry at that activation.
Result<License> start_validity(LicenseTx& tx, const LockedLicense& locked,
                               const OperationContext& ctx);
// False for a trial license and a machine it was not made for.
Result<bool> trial_machine(LicenseTx& tx, const License& license, std::string_view machine_id,
                           const OperationContext& ctx);

// docs/protocol.md §21.6: 409 1711 when the license's counted deactivations of the last 30
// days have reached its quota (effective_max_deactivations), with its license.limit_reached
// event (docs/protocol.md §25). Under the lock, so concurrent deactivations of one license
// cannot both pass.
RequestResult<Ok> check_deactivation_quota(LicenseTx& tx, const LockedLicense& locked,
                                           std::string_view machine_id,
                                           const OperationContext& ctx);
// Logs a deactivation by ctx.actor: counted for the client and the customer, never for
// the admin or the system.
Status record_deactivation(LicenseTx& tx, const LockedLicense& locked, std::string_view machine_id,
                           const OperationContext& ctx, bool offline);

}  // namespace licensed::op_parts
