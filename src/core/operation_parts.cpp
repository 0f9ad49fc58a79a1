// The pieces the License API operations share (operations.cpp, offline_operations.cpp): the
// license's visibility and lock, audit records, counts, reclaim, the activate answer, and
// the deactivation quota. Internal to core.
#include "core/operation_parts.h"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "core/license_json.h"
#include "core/timestamp.h"
#include "core/webhook_event.h"

namespace licensed::op_parts {

using boost::json::object;

// docs/protocol.md §6: deleted and unknown are one answer, and so is a license of a product
// the signing key is not bound to.
bool visible(const License& license, const OperationContext& ctx) {
  if (license.deleted_at) return false;
  // An offline file's own key is bound as the outer request's is (docs/protocol.md §21.2).
  for (const auto* bound : {ctx.bound_products, ctx.inner_bound_products}) {
    if (bound != nullptr && !bound->empty() &&
        std::find(bound->begin(), bound->end(), license.product.slug) == bound->end()) {
      return false;
    }
  }
  return true;
}

// load_license for activate(): the row stays locked until this transaction ends.
RequestResult<LockedLicense> lock_license(LicenseTx& tx, const LicenseRequest& req,
                                          const OperationContext& ctx) {
  ASSIGN_OR_RETURN(auto found, tx.lock_license(req.license_key));
  if (!found || !visible(found->license(), ctx)) return errors::not_found();
  return std::move(*found);
}

AuditEntry audit_entry(std::string_view action, const License& license, std::string_view machine_id,
                       const OperationContext& ctx) {
  AuditEntry e;
  e.at = ctx.now;
  e.action = std::string(action);
  e.license_key = license.key;
  e.machine_id = std::string(machine_id);
  e.actor = ctx.actor;
  if (!ctx.actor_name.empty()) e.actor_name = std::string(ctx.actor_name);
  e.ip = std::string(ctx.ip);
  e.key_id = std::string(ctx.key_id);
  e.request_id = std::string(ctx.request_id);
  return e;
}

// Machines holding a slot: those not stale at `now`. What answers show.
Result<int64_t> count_fresh(LicenseTx& tx, const License& license, UnixMillis now) {
  return tx.count_activations(license.id, freshness(license, now));
}

// The same count under the license's lock, the one the cap is checked against.
Result<int64_t> count_fresh(LicenseTx& tx, const LockedLicense& license, UnixMillis now) {
  return tx.count_activations(license, freshness(license.license(), now));
}

Result<boost::json::object> deactivation_body(LicenseTx& tx, const LockedLicense& locked,
                                              UnixMillis now) {
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, locked, now));
  boost::json::object body;
  body["ok"] = true;
  body["activations"] = count;
  body["max"] = locked->max;
  return body;
}

// docs/protocol.md §10: stale machines are reclaimed by the next activate, under its lock,
// with one audit record each. All of them: the activating machine too when it is stale,
// which then activates anew (it held no slot, so it meets the cap like any other).
// Offline activations past their end are stale whatever machineTtl says (§21.4).
Status reclaim_stale(LicenseTx& tx, const LockedLicense& locked, const OperationContext& ctx) {
  const License& license = locked.license();
  ASSIGN_OR_RETURN(const auto reclaimed,
                   tx.delete_stale_activations(locked, freshness(license, ctx.now)));
  for (const auto& machine_id : reclaimed) {
    AuditEntry e = audit_entry(audit_action::kReclaim, license, machine_id, ctx);
    e.actor = Actor::kSystem;
    e.actor_name.reset();
    RETURN_IF_ERROR(tx.append_audit(e, license));
  }
  return Ok{};
}

// What every 200 answer says of the grant (docs/protocol.md §20): validUntil, null when the
// answer does not allow use, and the entitlements.
void put_grant(object& body, const License& license, UnixMillis now, bool usable) {
  body["validUntil"] = usable ? boost::json::value(format_timestamp(valid_until(license, now)))
                              : boost::json::value(nullptr);
  body["entitlements"] = entitlements_answer_json(license.entitlements, now);
}

object activation_body(const License& license, std::string_view effective, int64_t activations,
                       const Activation& a, UnixMillis now) {
  object body;
  body["ok"] = true;
  body["licenseKey"] = license.key;  // answers name what they answer (docs/protocol.md §13.7)
  body["product"] = product_json(license.product);
  body["status"] = effective;
  body["expiresAt"] = optional_timestamp_json(license.expires_at);
  body["activations"] = activations;
  body["max"] = license.max;
  body["machine"] = machine_json(a);
  put_grant(body, license, now, effective == "ACTIVE");
  return body;
}

// A plan valid from the first activation (docs/protocol.md §20): that activation sets the
// expiry (and that of the plan's entitlements), under the license's lock, audited as a
// license.update by the system.
Result<License> start_validity(LicenseTx& tx, const LockedLicense& locked,
                               const OperationContext& ctx) {
  License l = locked.license();
  bool entitlements_pending = false;
  for (const auto& e : l.entitlements) entitlements_pending |= e.pending_seconds.has_value();
  if (!l.valid_for_pending_seconds && !entitlements_pending) return l;
  boost::json::object changes;
  if (l.valid_for_pending_seconds) {
    const auto from = l.expires_at;
    l.expires_at = add_seconds(ctx.now, *l.valid_for_pending_seconds);
    l.valid_for_pending_seconds.reset();
    changes["expiresAt"] = boost::json::object{{"from", optional_timestamp_json(from)},
                                               {"to", optional_timestamp_json(l.expires_at)}};
  }
  if (entitlements_pending) {
    boost::json::value from = entitlements_record_json(l.entitlements);
    for (auto& e : l.entitlements) {
      if (!e.pending_seconds) continue;
      e.expires_at = add_seconds(ctx.now, *e.pending_seconds);
      e.pending_seconds.reset();
    }
    changes["entitlements"] = boost::json::object{{"from", std::move(from)},
                                                  {"to", entitlements_record_json(l.entitlements)}};
  }
  RETURN_IF_ERROR(tx.update_license(l));
  AuditEntry e = audit_entry(audit_action::kUpdate, l, "", ctx);
  e.machine_id.reset();
  e.actor = Actor::kSystem;
  e.actor_name.reset();
  e.changes = boost::json::serialize(changes);
  RETURN_IF_ERROR(tx.append_audit(e, l));
  return l;
}

// A trial license serves only the machine it was made for (docs/protocol.md §20).
Result<bool> trial_machine(LicenseTx& tx, const License& license, std::string_view machine_id,
                           const OperationContext& ctx) {
  if (!license.trial) return true;
  if (ctx.trial_identity == nullptr) return false;
  ASSIGN_OR_RETURN(const auto key,
                   tx.find_trial(license.product.id, ctx.trial_identity->machine(machine_id)));
  return key && *key == license.key;
}

RequestResult<Ok> check_deactivation_quota(LicenseTx& tx, const LockedLicense& locked,
                                           std::string_view machine_id,
                                           const OperationContext& ctx) {
  const UnixMillis now = ctx.now;
  const auto max = effective_max_deactivations(locked.license());
  if (!max) return Ok{};
  ASSIGN_OR_RETURN(const auto times,
                   tx.counted_deactivations_since(locked, now - kDeactivationWindowMillis + 1));
  const auto used = static_cast<int64_t>(times.size());
  if (used < *max) return Ok{};
  // The wait until enough counted ones leave the window for one more to fit.
  const size_t leaving = times.size() - static_cast<size_t>(*max);
  const UnixMillis frees_at = times[leaving] + kDeactivationWindowMillis;
  const int64_t wait = (frees_at - now + 999) / 1000;
  // Kept though the answer is a refusal: refusals are committed.
  RETURN_IF_ERROR(record_limit_reached(tx, locked.license(), machine_id, 1711, now, ctx.actor));
  return errors::deactivation_limit(used, *max, wait);
}

Status record_deactivation(LicenseTx& tx, const LockedLicense& locked, std::string_view machine_id,
                           const OperationContext& ctx, bool offline) {
  const bool counted = ctx.actor == Actor::kClient || ctx.actor == Actor::kCustomer;
  return tx.append_deactivation(locked, machine_id, ctx.now, counted, offline);
}

}  // namespace licensed::op_parts
