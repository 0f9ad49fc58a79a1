// The events webhooks report (docs/protocol.md §25): their catalogue, which accepted change each
// audit action is, and the body a receiver gets. The events themselves are written by the change's
// own transaction (LicenseTx::append_audit and the explicit record_* calls below), beside
// its audit record, so a committed change is never left unreported.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/license.h"
#include "core/result.h"

namespace licensed {

class LicenseTx;

namespace webhook_event {
inline constexpr std::string_view kLicenseCreated = "license.created";
inline constexpr std::string_view kLicenseUpdated = "license.updated";
inline constexpr std::string_view kLicenseDeleted = "license.deleted";
inline constexpr std::string_view kLicenseRestored = "license.restored";
inline constexpr std::string_view kActivationCreated = "activation.created";
inline constexpr std::string_view kActivationDeleted = "activation.deleted";
inline constexpr std::string_view kActivationReclaimed = "activation.reclaimed";
inline constexpr std::string_view kActivationRenewed = "activation.renewed";
inline constexpr std::string_view kLimitReached = "license.limit_reached";
inline constexpr std::string_view kLeaseCreated = "lease.created";
inline constexpr std::string_view kLeaseReleased = "lease.released";
inline constexpr std::string_view kTrialStarted = "trial.started";
inline constexpr std::string_view kOrderFulfilled = "store.order_fulfilled";
inline constexpr std::string_view kOrderRefunded = "store.order_refunded";
inline constexpr std::string_view kExpiringSoon = "license.expiring_soon";
inline constexpr std::string_view kExpired = "license.expired";
inline constexpr std::string_view kEntitlementExpired = "license.entitlement_expired";
inline constexpr std::string_view kOfflineExpiring = "activation.offline_expiring";
}  // namespace webhook_event

// lease.released's `reason` (docs/protocol.md §25.2): a client's checkin, the end of the lease
// (the minute sweep, or a checkout or checkin of the license that finds it ended first), its
// machine going away, or an admin release.
namespace lease_release_reason {
inline constexpr std::string_view kCheckin = "checkin";
inline constexpr std::string_view kExpired = "expired";
inline constexpr std::string_view kDeactivated = "deactivated";
inline constexpr std::string_view kAdmin = "admin";
}  // namespace lease_release_reason

// Every type of docs/protocol.md §25.2, in its order. An endpoint subscribes to some of them or to
// "*".
const std::vector<std::string_view>& webhook_event_types();
bool is_webhook_event_type(std::string_view type);

// The event an accepted change reports, by its audit record; nullopt for records no event
// reports (a repeat activation, trial.reset, store.rejected).
std::optional<std::string_view> event_type_of(const AuditEntry& entry);

// `{"type", "timestamp", "data"}`, serialised once: the exact bytes every attempt signs.
std::string webhook_body(std::string_view type, UnixMillis at, boost::json::object data);

// `data` of a license event: the license (docs/protocol.md §6, entitlements included) as it is
// after the change, and the actor; the machine for activation events.
boost::json::object license_event_data(const License& license, UnixMillis at, Actor actor);

// The event of an audited change (called by LicenseTx::append_audit): `license` is the
// license after the change.
Status record_audited_event(LicenseTx& tx, const AuditEntry& entry, const License& license);

// Events no audit record reports, each in the transaction of what it reports.
// license.limit_reached (a 1705, 1710 or 1711 answered to `actor`): at most one per license
// per hour (a mark in the store decides).
Status record_limit_reached(LicenseTx& tx, const License& license, std::string_view machine_id,
                            int64_t code, UnixMillis now, Actor actor);
// lease.released of a lease no audit record reports (one that ended, or one its machine's
// going away took): `data` adds the machine (its row in this transaction, else the id),
// `reason` and `lease` {"sessionId", "expiresAt", "borrowed"}.
Status record_lease_released(LicenseTx& tx, const License& license, const Lease& lease,
                             std::string_view reason, UnixMillis at, Actor actor);
// The same with the machine as it was, for one whose row a reclaim has already deleted.
Status record_lease_released(LicenseTx& tx, const License& license, const Activation& machine,
                             const Lease& lease, std::string_view reason, UnixMillis at,
                             Actor actor);
// Any other event of one license, with extra members in `data` (an order, a trial).
Status record_license_event(LicenseTx& tx, std::string_view type, const License& license,
                            UnixMillis at, Actor actor, const boost::json::object& extra = {});

}  // namespace licensed
