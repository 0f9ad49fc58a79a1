// Offline activation and deactivation through files (docs/protocol.md §21, §21 "Offline
// files"), under the license's lock as activate and deactivate are. The file's signature
// and age were checked before (auth/offline_files.h); this decides what the file does to the
// slots, and leaves the activation file's payload for the surface to sign.
#include <algorithm>

#include "auth/offline_file.h"
#include "core/license_json.h"
#include "core/operation_parts.h"
#include "core/operations.h"
#include "core/timestamp.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

using boost::json::object;
using op_parts::activation_body;
using op_parts::audit_entry;
using op_parts::count_fresh;

// §21.3's payload (auth/offline_file.h writes it): what the plugin needs to run with no
// network until expiresAt.
std::string activation_payload(const License& license, const Activation& a,
                               const OfflineOrigin& origin, UnixMillis now) {
  ActivationPayloadFields f;
  f.id = *a.offline_file_id;
  f.license_key = license.key;
  f.product_slug = license.product.slug;
  f.product_name = license.product.name;
  f.machine_id = a.machine_id;
  f.machine_name = a.machine_name;
  f.status = std::string(effective_status(license, now));
  f.entitlements = entitlements_answer_json(license.entitlements, now);
  f.max = license.max;
  f.license_expires_at_ms = license.expires_at;
  f.issued_at_ms = now;
  f.expires_at_ms = *a.offline_until;
  f.request_timestamp = origin.timestamp;
  f.request_nonce = origin.nonce;
  return write_activation_payload(f);
}

// A new file for `a`: a new id, issued now, ending at the earlier of the license's expiry
// and now + offlineLease.
Status issue_file(Activation& a, const License& license, const OfflineOrigin& origin,
                  const OperationContext& ctx) {
  std::string id = ctx.new_activation_id ? ctx.new_activation_id() : std::string();
  if (id.empty()) return Error::internal("no random bytes for an activation file id");
  UnixMillis until = add_seconds(ctx.now, offline_lease_seconds(license));
  if (license.expires_at) until = std::min(until, *license.expires_at);
  a.offline_file_id = std::move(id);
  a.offline_until = until;
  a.offline_nonce = origin.nonce;
  a.deactivated_at.reset();
  a.last_seen_at = ctx.now;
  a.offline_payload = activation_payload(license, a, origin, ctx.now);
  return Ok{};
}

AuditEntry offline_audit(std::string_view action, const License& license,
                         std::string_view machine_id, const OperationContext& ctx) {
  AuditEntry e = audit_entry(action, license, machine_id, ctx);
  e.offline = true;
  return e;
}

object offline_answer(const License& license, int64_t count, const Activation& a, UnixMillis now) {
  object body = activation_body(license, effective_status(license, now), count, a, now);
  body[kActivationFileMember] = *a.offline_payload;
  return body;
}

// A machine that holds a slot already: the same nonce gets its file again, a new one renews.
RequestResult<object> renew(LicenseTx& tx, const LockedLicense& locked, Activation a,
                            const LicenseRequest& req, const OperationContext& ctx) {
  const License& license = locked.license();
  const OfflineOrigin& origin = *req.offline;
  const bool same_request =
      a.offline_nonce == origin.nonce && a.offline_payload && !a.deactivated();
  const bool was_active = !a.deactivated();
  if (!same_request) {
    if (req.machine_name && !req.machine_name->empty()) a.machine_name = *req.machine_name;
    RETURN_IF_ERROR(issue_file(a, license, origin, ctx));
    RETURN_IF_ERROR(tx.update_offline_activation(locked, a));
  }
  AuditEntry e = offline_audit(was_active ? audit_action::kHeartbeat : audit_action::kActivate,
                               license, a.machine_id, ctx);
  e.refresh = was_active;
  RETURN_IF_ERROR(tx.append_audit(e, license));
  if (was_active && !same_request) {
    // A new file for a machine holding its slot: an offline renewal (docs/protocol.md §25).
    RETURN_IF_ERROR(record_license_event(
        tx, webhook_event::kActivationRenewed, license, ctx.now, ctx.actor,
        {{"machine", object{{"id", a.machine_id},
                            {"offline", true},
                            {"offlineUntil", format_timestamp(*a.offline_until)}}}}));
  }
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, locked, ctx.now));
  return offline_answer(license, count, a, ctx.now);
}

// A machine new to the license: the cap, as activate's take_slot.
RequestResult<object> take_offline_slot(LicenseTx& tx, const LockedLicense& locked,
                                        const LicenseRequest& req, const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, locked, ctx.now));
  ASSIGN_OR_RETURN(const bool own_machine,
                   op_parts::trial_machine(tx, locked.license(), *req.machine_id, ctx));
  if (count >= locked->max || !own_machine) {
    // Kept though the answer is a refusal: refusals are committed.
    RETURN_IF_ERROR(
        record_limit_reached(tx, locked.license(), *req.machine_id, 1705, ctx.now, ctx.actor));
    return errors::limit_reached(count, locked->max,
                                 ctx.dashboard_url ? *ctx.dashboard_url : std::nullopt);
  }
  ASSIGN_OR_RETURN(const License license, op_parts::start_validity(tx, locked, ctx));
  Activation a;
  a.machine_id = *req.machine_id;
  if (req.machine_name && !req.machine_name->empty()) a.machine_name = *req.machine_name;
  a.activated_at = ctx.now;
  RETURN_IF_ERROR(issue_file(a, license, *req.offline, ctx));
  RETURN_IF_ERROR(tx.insert_activation(locked, a));
  RETURN_IF_ERROR(
      tx.append_audit(offline_audit(audit_action::kActivate, license, a.machine_id, ctx), license));
  return offline_answer(license, count + 1, a, ctx.now);
}

// docs/protocol.md §21.2: a request older than the machine's latest deactivation cannot undo it.
RequestResult<Ok> check_not_undone(LicenseTx& tx, const License& license,
                                   const LicenseRequest& req) {
  ASSIGN_OR_RETURN(const auto latest, tx.latest_deactivation(license.id, *req.machine_id));
  if (latest && req.offline->timestamp * 1000 < *latest) {
    return errors::offline_request_refused(
        "too_old", "the request is older than this machine's latest deactivation");
  }
  return Ok{};
}

}  // namespace

RequestResult<object> offline_activate(LicenseTx& tx, const LicenseRequest& req,
                                       const OperationContext& ctx) {
  if (!req.offline || !req.machine_id) return Error::internal("offline_activate: no request file");
  ASSIGN_OR_RETURN(const LockedLicense locked, op_parts::lock_license(tx, req, ctx));
  const std::string_view effective = effective_status(locked.license(), ctx.now);
  if (effective != "ACTIVE") return errors::inactive(effective);
  RETURN_IF_ERROR(check_not_undone(tx, locked.license(), req));
  RETURN_IF_ERROR(op_parts::reclaim_stale(tx, locked, ctx));
  ASSIGN_OR_RETURN(auto existing, tx.find_activation(locked->id, *req.machine_id));
  if (existing) return renew(tx, locked, std::move(*existing), req, ctx);
  return take_offline_slot(tx, locked, req, ctx);
}

RequestResult<object> offline_deactivate(LicenseTx& tx, const LicenseRequest& req,
                                         const OperationContext& ctx) {
  if (!req.offline || !req.machine_id) {
    return Error::internal("offline_deactivate: no deactivation file");
  }
  // Allowed whatever the status, as deactivate is.
  ASSIGN_OR_RETURN(const LockedLicense locked, op_parts::lock_license(tx, req, ctx));
  const License& license = locked.license();
  ASSIGN_OR_RETURN(auto existing, tx.find_activation(license.id, *req.machine_id));
  const bool latest = existing && existing->offline() && !existing->deactivated() &&
                      existing->offline_file_id == req.offline->activation_id;
  if (!latest) return errors::machine_not_activated();
  const bool frees = license.offline_release == OfflineRelease::kDeactivation;
  if (frees) {
    // Support's frees never count and are never refused (docs/protocol.md §21.6).
    if (ctx.actor != Actor::kAdmin) {
      RETURN_IF_ERROR(op_parts::check_deactivation_quota(tx, locked, *req.machine_id, ctx));
    }
    ASSIGN_OR_RETURN(const bool removed,
                     tx.delete_activation(locked, *req.machine_id, ctx.now, ctx.actor));
    if (!removed) return errors::machine_not_activated();
    RETURN_IF_ERROR(op_parts::record_deactivation(tx, locked, *req.machine_id, ctx, true));
  } else {
    // "expiry": a deactivation file can be forged, so the slot stays counted until the
    // file's end; the machine is no longer activated, and nothing is counted.
    existing->deactivated_at = ctx.now;
    RETURN_IF_ERROR(tx.update_offline_activation(locked, *existing));
    // A deactivated machine holds no seat (docs/protocol.md §21): its leases are released,
    // reason "deactivated", the machine as it now is (deactivatedAt set).
    RETURN_IF_ERROR(tx.release_machine_leases(locked, existing->machine_id, ctx.now, ctx.actor));
    RETURN_IF_ERROR(tx.append_deactivation(locked, *req.machine_id, ctx.now, false, true));
  }
  RETURN_IF_ERROR(tx.append_audit(
      offline_audit(audit_action::kDeactivate, license, *req.machine_id, ctx), license));
  ASSIGN_OR_RETURN(object body, op_parts::deactivation_body(tx, locked, ctx.now));
  return body;
}

}  // namespace licensed
