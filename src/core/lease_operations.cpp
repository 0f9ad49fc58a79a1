// Concurrent seats (docs/protocol.md §27): checkout and checkin, under the license's row lock
// as activate is, so the count of live leases and the insert that follows cannot be
// interleaved with another checkout of the same license, on one instance or several.
#include "core/lease_operations.h"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "core/license_json.h"
#include "core/operation_parts.h"
#include "core/operations.h"
#include "core/timestamp.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

using boost::json::object;
using op_parts::audit_entry;
using op_parts::lock_license;

std::string session_of(const LicenseRequest& req) {
  return req.session_id ? *req.session_id : *req.machine_id;
}

// borrowFor: a DURATION no longer than the license's maxBorrow (null: no borrowing).
RequestResult<std::optional<int64_t>> borrow_seconds(const License& license,
                                                     const LicenseRequest& req) {
  if (!req.borrow_for) return std::optional<int64_t>();
  const auto seconds = parse_duration_seconds(*req.borrow_for);
  if (!seconds) return errors::malformed("borrowFor", "borrowFor must be a DURATION like 3d");
  if (!license.max_borrow_seconds) {
    return errors::malformed("borrowFor", "this license does not allow borrowing");
  }
  if (*seconds > *license.max_borrow_seconds) {
    return errors::malformed("borrowFor", "borrowFor is longer than this license's maxBorrow (" +
                                              std::to_string(*license.max_borrow_seconds) + "s)");
  }
  return std::optional<int64_t>(*seconds);
}

// The seat cap: 1710 with retryAfter up to the end of the earliest live lease.
RequestResult<Ok> check_seat_cap(LicenseTx& tx, const LockedLicense& locked, UnixMillis now) {
  if (!locked->max_concurrent) return Ok{};
  ASSIGN_OR_RETURN(const auto leases, tx.list_leases(locked->id, now));
  const auto count = static_cast<int64_t>(leases.size());
  if (count < *locked->max_concurrent) return Ok{};
  UnixMillis earliest = leases.front().expires_at;
  for (const auto& l : leases) earliest = std::min(earliest, l.expires_at);
  const int64_t wait = (earliest - now + 999) / 1000;
  return errors::concurrency_limit(count, *locked->max_concurrent, wait);
}

// The lease file's payload (docs/protocol.md §27): what the SDK runs on offline until
// expiresAt. The surface signs and armours it (auth/lease_file.h).
RequestResult<std::string> lease_payload(const License& license, const Activation& a,
                                         const Lease& lease, const OperationContext& ctx) {
  std::string id = ctx.new_activation_id ? ctx.new_activation_id() : std::string();
  if (id.empty()) return Error::internal("no random bytes for a lease file id");
  object machine;
  machine["id"] = a.machine_id;
  machine["name"] = a.machine_name ? boost::json::value(*a.machine_name) : nullptr;
  object p;
  p["id"] = id;
  p["licenseKey"] = license.key;
  p["product"] = product_json(license.product);
  p["machine"] = std::move(machine);
  p["sessionId"] = lease.session_id;
  p["entitlements"] = entitlements_answer_json(license.entitlements, ctx.now);
  p["issuedAt"] = format_timestamp(ctx.now);
  p["expiresAt"] = format_timestamp(lease.expires_at);
  return boost::json::serialize(p);
}

object checkout_body(const License& license, const Lease& lease, int64_t leases, UnixMillis now) {
  object body;
  body["ok"] = true;
  body["licenseKey"] = license.key;  // answers name what they answer (docs/protocol.md §21)
  body["machineId"] = lease.machine_id;
  body["lease"] = {{"sessionId", lease.session_id},
                   {"expiresAt", format_timestamp(lease.expires_at)}};
  body["leases"] = leases;
  body["maxConcurrent"] = optional_int_json(license.max_concurrent);
  body["leaseTtl"] = lease_ttl_seconds(license);
  body["status"] = effective_status(license, now);
  body["expiresAt"] = optional_timestamp_json(license.expires_at);
  body["validUntil"] = format_timestamp(valid_until(license, now, lease.expires_at));
  body["entitlements"] = entitlements_answer_json(license.entitlements, now);
  return body;
}

// A renewal never moves the end earlier; a borrow sets it to now + borrowFor.
Lease renewed(Lease lease, const License& license, std::optional<int64_t> borrow, UnixMillis now) {
  if (borrow) {
    lease.expires_at = add_seconds(now, *borrow);
    lease.borrowed = true;
  } else {
    lease.expires_at = std::max(lease.expires_at, add_seconds(now, lease_ttl_seconds(license)));
  }
  return lease;
}

RequestResult<Lease> take_or_renew(LicenseTx& tx, const LockedLicense& locked, const Activation& a,
                                   const std::string& session, std::optional<int64_t> borrow,
                                   const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const auto existing, tx.find_lease(locked, a.machine_id, session, ctx.now));
  if (existing) {  // a renewal: no audit record
    Lease lease = renewed(*existing, locked.license(), borrow, ctx.now);
    RETURN_IF_ERROR(tx.put_lease(locked, lease));
    return lease;
  }
  if (auto cap = check_seat_cap(tx, locked, ctx.now); !cap.ok()) {
    // Committed with the refusal, as a 1705's (docs/protocol.md §25.2: license.limit_reached).
    RETURN_IF_ERROR(
        record_limit_reached(tx, locked.license(), a.machine_id, 1710, ctx.now, ctx.actor));
    return cap.error();
  }
  Lease lease;
  lease.machine_id = a.machine_id;
  lease.session_id = session;
  lease.created_at = ctx.now;
  lease.expires_at = add_seconds(ctx.now, borrow ? *borrow : lease_ttl_seconds(locked.license()));
  lease.borrowed = borrow.has_value();
  RETURN_IF_ERROR(tx.put_lease(locked, lease));
  RETURN_IF_ERROR(
      tx.append_audit(audit_entry(audit_action::kCheckout, locked.license(), a.machine_id, ctx)));
  return lease;
}

}  // namespace

Result<int64_t> release_ended_leases(LicenseTx& tx, const LockedLicense& license, UnixMillis now) {
  ASSIGN_OR_RETURN(const auto ended, tx.take_ended_leases(license, now));
  for (const Lease& lease : ended) {
    RETURN_IF_ERROR(record_lease_released(tx, license.license(), lease,
                                          lease_release_reason::kExpired, now, Actor::kSystem));
  }
  return static_cast<int64_t>(ended.size());
}

Status report_machine_leases(LicenseTx& tx, const License& license, const Activation* machine,
                             const std::vector<Lease>& leases, UnixMillis now, Actor actor) {
  for (const Lease& lease : leases) {
    const bool ended = lease.expires_at <= now;  // take_ended_leases' boundary
    const std::string_view reason =
        ended ? lease_release_reason::kExpired : lease_release_reason::kDeactivated;
    const Actor by = ended ? Actor::kSystem : actor;
    if (machine != nullptr) {
      RETURN_IF_ERROR(record_lease_released(tx, license, *machine, lease, reason, now, by));
    } else {
      RETURN_IF_ERROR(record_lease_released(tx, license, lease, reason, now, by));
    }
  }
  return Ok{};
}

Result<bool> renews_a_live_lease(LicenseTx& tx, const LicenseRequest& req, UnixMillis now) {
  if (!req.machine_id) return false;
  ASSIGN_OR_RETURN(const auto license, tx.find_license(req.license_key));
  if (!license) return false;
  ASSIGN_OR_RETURN(const auto leases, tx.list_leases(license->id, now));
  const std::string session = session_of(req);
  return std::any_of(leases.begin(), leases.end(), [&](const Lease& l) {
    return l.machine_id == *req.machine_id && l.session_id == session;
  });
}

// 1703, 1704, 1707, then borrowFor (1702), then the cap (1710), all under the license's lock.
RequestResult<object> checkout(LicenseTx& tx, const LicenseRequest& req,
                               const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const LockedLicense locked, lock_license(tx, req, ctx));
  const License& license = locked.license();
  const std::string_view effective = effective_status(license, ctx.now);
  if (effective != "ACTIVE") return errors::inactive(effective);
  ASSIGN_OR_RETURN(auto activation, tx.find_activation(license.id, *req.machine_id));
  if (!activation || activation->deactivated()) return errors::machine_not_activated();
  ASSIGN_OR_RETURN(const auto borrow, borrow_seconds(license, req));
  RETURN_IF_ERROR(release_ended_leases(tx, locked, ctx.now));
  ASSIGN_OR_RETURN(const Lease lease,
                   take_or_renew(tx, locked, *activation, session_of(req), borrow, ctx));
  activation->last_seen_at = ctx.now;  // a checkout is a heartbeat too (§21)
  RETURN_IF_ERROR(tx.update_activation(license.id, *activation));
  ASSIGN_OR_RETURN(const int64_t count, tx.count_leases(license.id, ctx.now));
  object body = checkout_body(license, lease, count, ctx.now);
  if (borrow) {
    ASSIGN_OR_RETURN(const std::string payload, lease_payload(license, *activation, lease, ctx));
    body[kLeaseFileMember] = payload;
  }
  return body;
}

// 1703, else 200 whatever the status or activation. A client's checkin of a borrowed lease
// answers released but leaves the seat counted until the lease file's end (docs/protocol.md
// §21): the file keeps working offline, so only an admin release frees it early.
RequestResult<object> checkin(LicenseTx& tx, const LicenseRequest& req,
                              const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const LockedLicense locked, lock_license(tx, req, ctx));
  const License& license = locked.license();
  const std::string session = session_of(req);
  ASSIGN_OR_RETURN(const auto lease, tx.find_lease(locked, *req.machine_id, session, ctx.now));
  RETURN_IF_ERROR(release_ended_leases(tx, locked, ctx.now));
  bool released = false;
  if (lease) {
    const AuditEntry audit = audit_entry(audit_action::kCheckin, license, *req.machine_id, ctx);
    if (lease->borrowed) {
      // The row, and the seat, stay until the lease file's end: lease.released is written
      // when the row goes (reason "expired", or "admin"), so the record alone here, or one
      // borrowed lease would be reported released twice.
      RETURN_IF_ERROR(tx.insert_audit(audit));
    } else {
      RETURN_IF_ERROR(tx.delete_lease(locked, *req.machine_id, session));
      RETURN_IF_ERROR(tx.append_audit(audit));  // with lease.released, reason "checkin"
    }
    released = true;
  }
  ASSIGN_OR_RETURN(const int64_t count, tx.count_leases(license.id, ctx.now));
  object body;
  body["ok"] = true;
  body["released"] = released;
  body["leases"] = count;
  body["maxConcurrent"] = optional_int_json(license.max_concurrent);
  return body;
}

}  // namespace licensed
