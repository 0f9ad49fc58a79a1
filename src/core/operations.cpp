#include "core/operations.h"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "core/license_json.h"
#include "core/operation_parts.h"
#include "core/timestamp.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

using boost::json::object;

using op_parts::activation_body;
using op_parts::audit_entry;
using op_parts::count_fresh;
using op_parts::lock_license;
using op_parts::put_grant;
using op_parts::reclaim_stale;
using op_parts::start_validity;
using op_parts::trial_machine;
using op_parts::visible;

RequestResult<License> load_license(LicenseTx& tx, const LicenseRequest& req,
                                    const OperationContext& ctx) {
  ASSIGN_OR_RETURN(auto found, tx.find_license(req.license_key));
  if (!found || !visible(*found, ctx)) return errors::not_found();
  return std::move(*found);
}

// A known machine is refreshed before the cap is looked at, so lowering max never locks
// out a machine that already holds a slot.
RequestResult<object> refresh_known(LicenseTx& tx, const LockedLicense& locked, Activation existing,
                                    const LicenseRequest& req, const OperationContext& ctx) {
  const License& license = locked.license();
  existing.last_seen_at = ctx.now;
  if (req.machine_name) {
    existing.machine_name =
        req.machine_name->empty() ? std::nullopt : std::optional<std::string>(*req.machine_name);
  }
  RETURN_IF_ERROR(tx.update_activation(license.id, existing));
  AuditEntry e = audit_entry(audit_action::kHeartbeat, license, existing.machine_id, ctx);
  e.refresh = true;
  RETURN_IF_ERROR(tx.append_audit(e));
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, locked, ctx.now));
  return activation_body(license, effective_status(license, ctx.now), count, existing, ctx.now);
}

// An offline machine deactivated under offlineRelease "expiry" still holds its slot until
// its file's end (docs/protocol.md §21.5), so activating it again takes no new slot: it is
// an offline activation again, with the same end, and a license.activate record.
RequestResult<object> reactivate(LicenseTx& tx, const LockedLicense& locked, Activation existing,
                                 const LicenseRequest& req, const OperationContext& ctx) {
  const License& license = locked.license();
  existing.deactivated_at.reset();
  existing.last_seen_at = ctx.now;
  if (req.machine_name) {
    existing.machine_name =
        req.machine_name->empty() ? std::nullopt : std::optional<std::string>(*req.machine_name);
  }
  RETURN_IF_ERROR(tx.update_offline_activation(locked, existing));
  RETURN_IF_ERROR(tx.append_audit(
      audit_entry(audit_action::kActivate, license, existing.machine_id, ctx), license));
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, locked, ctx.now));
  return activation_body(license, effective_status(license, ctx.now), count, existing, ctx.now);
}

// The cap. The count and the insert both take the LockedLicense, so they run under the
// license's row lock: no other activation of this license can commit between them, and
// `count` is still true when this one commits.
RequestResult<object> take_slot(LicenseTx& tx, const LockedLicense& locked,
                                const LicenseRequest& req, const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, locked, ctx.now));
  ASSIGN_OR_RETURN(const bool own_machine,
                   trial_machine(tx, locked.license(), *req.machine_id, ctx));
  if (count >= locked->max || !own_machine) {
    // Kept though the answer is a refusal: the License API commits its refusals.
    RETURN_IF_ERROR(
        record_limit_reached(tx, locked.license(), *req.machine_id, 1705, ctx.now, ctx.actor));
    return errors::limit_reached(count, locked->max,
                                 ctx.dashboard_url ? *ctx.dashboard_url : std::nullopt);
  }
  ASSIGN_OR_RETURN(const License license, start_validity(tx, locked, ctx));
  Activation a;
  a.machine_id = *req.machine_id;
  if (req.machine_name && !req.machine_name->empty()) a.machine_name = *req.machine_name;
  a.activated_at = ctx.now;
  a.last_seen_at = ctx.now;
  RETURN_IF_ERROR(tx.insert_activation(locked, a));
  RETURN_IF_ERROR(
      tx.append_audit(audit_entry(audit_action::kActivate, license, a.machine_id, ctx), license));
  return activation_body(license, effective_status(license, ctx.now), count + 1, a, ctx.now);
}

// ---- trials (docs/protocol.md §20) -------------------------------------------------

object trial_body(const License& license, int64_t activations, const Activation& a,
                  UnixMillis now) {
  const std::string_view effective = effective_status(license, now);
  object body = activation_body(license, effective, activations, a, now);
  body["trial"] = true;
  return body;
}

// The product whose trial is asked for, when it offers trials to this signing key.
RequestResult<Product> trial_product(LicenseTx& tx, const LicenseRequest& req,
                                     const OperationContext& ctx) {
  ASSIGN_OR_RETURN(auto product, tx.find_product(req.product));
  const auto* bound = ctx.bound_products;
  const bool allowed =
      product && (bound == nullptr || bound->empty() ||
                  std::find(bound->begin(), bound->end(), product->slug) != bound->end());
  if (!allowed || !product->trial || ctx.trial_identity == nullptr) return errors::not_found();
  return std::move(*product);
}

// An existing trial: its machine is activated again, whatever the license's status.
RequestResult<object> answer_trial(LicenseTx& tx, const std::string& key, const LicenseRequest& req,
                                   const OperationContext& ctx) {
  ASSIGN_OR_RETURN(auto locked, tx.lock_license(key));
  if (!locked || locked->license().deleted_at) return errors::not_found();
  const License& license = locked->license();
  ASSIGN_OR_RETURN(auto existing, tx.find_activation(license.id, *req.machine_id));
  Activation a;
  if (existing) {
    a = std::move(*existing);
    a.last_seen_at = ctx.now;
    if (req.machine_name) {
      a.machine_name =
          req.machine_name->empty() ? std::nullopt : std::optional<std::string>(*req.machine_name);
    }
    RETURN_IF_ERROR(tx.update_activation(license.id, a));
    AuditEntry e = audit_entry(audit_action::kHeartbeat, license, a.machine_id, ctx);
    e.refresh = true;
    RETURN_IF_ERROR(tx.append_audit(e));
  } else {
    a.machine_id = *req.machine_id;
    if (req.machine_name && !req.machine_name->empty()) a.machine_name = *req.machine_name;
    a.activated_at = ctx.now;
    a.last_seen_at = ctx.now;
    RETURN_IF_ERROR(tx.insert_activation(*locked, a));
    RETURN_IF_ERROR(
        tx.append_audit(audit_entry(audit_action::kActivate, license, a.machine_id, ctx), license));
  }
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, *locked, ctx.now));
  return trial_body(license, count, a, ctx.now);
}

// A new trial: a license from the trial plan, `trial: true`, one machine, `days` long, this
// machine activated on it; recorded by the machine's (and the email's) HMAC.
RequestResult<object> start_trial(LicenseTx& tx, const Product& product,
                                  const std::string& machine_hmac,
                                  const std::optional<std::string>& email_hmac,
                                  const LicenseRequest& req, const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const auto plan, tx.find_plan(product.id, product.trial->plan));
  if (!plan) return errors::not_found();
  NewLicense n = license_from_plan(*plan, ctx.now);
  n.key = ctx.new_license_key ? ctx.new_license_key() : std::string();
  if (n.key.empty()) return Error::internal("no random bytes for a license key");
  n.product_id = product.id;
  n.trial = true;
  n.max = 1;
  n.expires_at = ctx.now + product.trial->days * 86'400'000;
  n.valid_for_pending_seconds.reset();
  for (auto& e : n.entitlements) {
    if (e.pending_seconds) e.expires_at = add_seconds(ctx.now, *e.pending_seconds);
    e.pending_seconds.reset();
  }
  ASSIGN_OR_RETURN(const License license, tx.insert_license(n));
  AuditEntry created = audit_entry(audit_action::kCreate, license, "", ctx);
  created.machine_id.reset();
  RETURN_IF_ERROR(tx.append_audit(created, license));
  RETURN_IF_ERROR(record_license_event(tx, webhook_event::kTrialStarted, license, ctx.now,
                                       Actor::kClient,
                                       {{"machine", object{{"id", *req.machine_id}}}}));
  RETURN_IF_ERROR(tx.insert_trial(product.id, machine_hmac, license.key, ctx.now));
  if (email_hmac) {
    RETURN_IF_ERROR(tx.insert_trial_email(product.id, *email_hmac, license.key, ctx.now));
  }
  return answer_trial(tx, license.key, req, ctx);
}

}  // namespace

RequestResult<std::optional<object>> trial(LicenseTx& tx, const LicenseRequest& req,
                                           const OperationContext& ctx, TrialMode mode) {
  ASSIGN_OR_RETURN(const Product product, trial_product(tx, req, ctx));
  RETURN_IF_ERROR(tx.lock_product_trials(product.id));
  const std::string machine_hmac = ctx.trial_identity->machine(*req.machine_id);
  ASSIGN_OR_RETURN(const auto key, tx.find_trial(product.id, machine_hmac));
  if (key) {
    ASSIGN_OR_RETURN(object body, answer_trial(tx, *key, req, ctx));
    return std::optional<object>(std::move(body));
  }
  if (mode == TrialMode::kFindOnly) return std::optional<object>();
  std::optional<std::string> email_hmac;
  if (req.email) {
    email_hmac = ctx.trial_identity->email(*req.email);
    ASSIGN_OR_RETURN(const auto used, tx.find_trial_email(product.id, *email_hmac));
    if (used) return errors::trial_used();
  }
  ASSIGN_OR_RETURN(object body, start_trial(tx, product, machine_hmac, email_hmac, req, ctx));
  return std::optional<object>(std::move(body));
}

// Runs under the license's row lock, from lock_license to the end of the transaction:
// the reclaim, the count and the insert the cap rests on take the LockedLicense it
// returns, so they cannot run without that lock.
RequestResult<object> activate(LicenseTx& tx, const LicenseRequest& req,
                               const OperationContext& ctx) {
  ASSIGN_OR_RETURN(const LockedLicense locked, lock_license(tx, req, ctx));
  const std::string_view effective = effective_status(locked.license(), ctx.now);
  if (effective != "ACTIVE") return errors::inactive(effective);
  RETURN_IF_ERROR(reclaim_stale(tx, locked, ctx));
  ASSIGN_OR_RETURN(auto existing, tx.find_activation(locked->id, *req.machine_id));
  if (existing && existing->deactivated()) {
    return reactivate(tx, locked, std::move(*existing), req, ctx);
  }
  if (existing) return refresh_known(tx, locked, std::move(*existing), req, ctx);
  return take_slot(tx, locked, req, ctx);
}

RequestResult<object> heartbeat(LicenseTx& tx, const LicenseRequest& req,
                                const OperationContext& ctx) {
  ASSIGN_OR_RETURN(License license, load_license(tx, req, ctx));
  const std::string_view effective = effective_status(license, ctx.now);
  if (effective != "ACTIVE") return errors::inactive(effective);
  ASSIGN_OR_RETURN(auto existing, tx.find_activation(license.id, *req.machine_id));
  if (!existing || existing->deactivated()) return errors::machine_not_activated();
  existing->last_seen_at = ctx.now;
  RETURN_IF_ERROR(tx.update_activation(license.id, *existing));
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, license, ctx.now));
  object body;
  body["ok"] = true;
  body["licenseKey"] = license.key;  // answers name what they answer (docs/protocol.md §13.7)
  body["machineId"] = *req.machine_id;
  body["status"] = effective;
  body["expiresAt"] = optional_timestamp_json(license.expires_at);
  body["lastSeenAt"] = format_timestamp(existing->last_seen_at);
  body["activations"] = count;
  body["max"] = license.max;
  put_grant(body, license, ctx.now, true);
  return body;
}

RequestResult<object> status(LicenseTx& tx, const LicenseRequest& req,
                             const OperationContext& ctx) {
  ASSIGN_OR_RETURN(License license, load_license(tx, req, ctx));
  const std::string_view effective = effective_status(license, ctx.now);
  ASSIGN_OR_RETURN(const int64_t count, count_fresh(tx, license, ctx.now));
  bool valid = effective == "ACTIVE";
  object body;
  body["ok"] = true;
  body["valid"] = false;             // placed here so members keep the contract's order
  body["licenseKey"] = license.key;  // answers name what they answer (docs/protocol.md §13.7)
  body["product"] = product_json(license.product);
  body["status"] = effective;
  body["expiresAt"] = optional_timestamp_json(license.expires_at);
  body["activations"] = count;
  body["max"] = license.max;
  body["machineTtl"] = optional_int_json(license.machine_ttl_seconds);
  ASSIGN_OR_RETURN(const int64_t leases, tx.count_leases(license.id, ctx.now));
  body["leases"] = leases;  // docs/protocol.md §27
  body["maxConcurrent"] = optional_int_json(license.max_concurrent);
  if (req.machine_id) {
    ASSIGN_OR_RETURN(auto existing, tx.find_activation(license.id, *req.machine_id));
    if (existing && existing->deactivated()) existing.reset();  // §21.5: no longer activated
    object machine;
    machine["id"] = *req.machine_id;
    machine["activated"] = existing.has_value();
    machine["lastSeenAt"] =
        optional_timestamp_json(existing ? std::optional(existing->last_seen_at) : std::nullopt);
    body["machine"] = std::move(machine);
    valid = valid && existing.has_value();
  } else {
    body["machine"] = nullptr;
  }
  body["valid"] = valid;
  put_grant(body, license, ctx.now, valid);
  return body;
}

// 1703, 1707, then 1711 (docs/protocol.md §21.2). Under the license's lock, so the quota stays
// exact when deactivations of one license race. An offline activation is freed only through
// a deactivation file (§21.5): here it is 1707.
RequestResult<object> deactivate(LicenseTx& tx, const LicenseRequest& req,
                                 const OperationContext& ctx) {
  // Allowed whatever the status, so a customer can always tidy up.
  ASSIGN_OR_RETURN(const LockedLicense locked, lock_license(tx, req, ctx));
  const License& license = locked.license();
  ASSIGN_OR_RETURN(const auto existing, tx.find_activation(license.id, *req.machine_id));
  if (!existing || existing->offline()) return errors::machine_not_activated();
  RETURN_IF_ERROR(op_parts::check_deactivation_quota(tx, locked, *req.machine_id, ctx));
  ASSIGN_OR_RETURN(const bool removed,
                   tx.delete_activation(locked, *req.machine_id, ctx.now, ctx.actor));
  if (!removed) return errors::machine_not_activated();
  RETURN_IF_ERROR(op_parts::record_deactivation(tx, locked, *req.machine_id, ctx, false));
  RETURN_IF_ERROR(tx.append_audit(
      audit_entry(audit_action::kDeactivate, license, *req.machine_id, ctx), license));
  ASSIGN_OR_RETURN(object body, op_parts::deactivation_body(tx, locked, ctx.now));
  return body;
}

RequestResult<object> run_operation(Endpoint endpoint, LicenseTx& tx, const LicenseRequest& req,
                                    const OperationContext& ctx) {
  switch (endpoint) {
    case Endpoint::kActivate:
      return activate(tx, req, ctx);
    case Endpoint::kHeartbeat:
      return heartbeat(tx, req, ctx);
    case Endpoint::kStatus:
      return status(tx, req, ctx);
    case Endpoint::kDeactivate:
      return deactivate(tx, req, ctx);
    case Endpoint::kOfflineActivate:
      return offline_activate(tx, req, ctx);
    case Endpoint::kOfflineDeactivate:
      return offline_deactivate(tx, req, ctx);
    case Endpoint::kCheckout:
      return checkout(tx, req, ctx);
    case Endpoint::kCheckin:
      return checkin(tx, req, ctx);
    case Endpoint::kTrial: {
      ASSIGN_OR_RETURN(auto answer, trial(tx, req, ctx, TrialMode::kCreate));
      if (!answer) return Error::internal("trial: created nothing");
      return std::move(*answer);
    }
  }
  return Error::internal("no operation for this endpoint");
}

bool must_roll_back(const RequestResult<object>& outcome) {
  return !outcome.ok() && outcome.error().failure() != nullptr;
}

}  // namespace licensed
