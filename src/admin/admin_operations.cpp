#include "admin/admin_operations.h"

#include <openssl/rand.h>

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <charconv>

#include "admin/admin_leases.h"
#include "admin/plan_operations.h"
#include "auth/request_signature.h"
#include "core/license_json.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

// `field`: the member of an admin API body the refusal is about ("" when none).
Error refused(std::string_view field, std::string message) {
  return Error::invalid_argument(field, std::move(message));
}

Error unknown_license() {
  return Error::not_found(subjects::kLicenseKey, "unknown license key");
}

Result<License> load_any(StoreTx& tx, std::string_view key) {
  const auto normalised = normalise_license_key(key);
  if (!normalised) return unknown_license();
  ASSIGN_OR_RETURN(auto found, tx.find_license(*normalised));
  if (!found) return unknown_license();
  return std::move(*found);
}

// Changes are refused on a deleted license; reads still see it.
Result<License> load_live(StoreTx& tx, std::string_view key) {
  ASSIGN_OR_RETURN(License l, load_any(tx, key));
  if (l.deleted_at) return Error::conflict("", "license " + l.key + " is deleted");
  return l;
}

AuditEntry audit_entry(std::string_view action, const License& l, const AdminContext& ctx) {
  AuditEntry e;
  e.at = ctx.now;
  e.action = std::string(action);
  e.license_key = l.key;
  e.actor = ctx.actor;
  e.actor_name = ctx.actor_name;
  e.ip = ctx.ip;
  e.request_id = ctx.request_id;
  e.reason = ctx.reason;
  e.source = ctx.source;
  return e;
}

Status audit(StoreTx& tx, std::string_view action, const License& l, const AdminContext& ctx,
             std::optional<std::string> machine_id = std::nullopt) {
  AuditEntry e = audit_entry(action, l, ctx);
  e.machine_id = std::move(machine_id);
  return tx.append_audit(e, l);
}

// An audit record of one field's change, `changes` being {"<field>": {"from", "to"}}
// (docs/protocol.md §17) in the answers' own spelling of the field and its values.
Status audit_change(StoreTx& tx, std::string_view action, const License& l, const AdminContext& ctx,
                    std::string_view field, boost::json::value from, boost::json::value to) {
  AuditEntry e = audit_entry(action, l, ctx);
  boost::json::object change{{"from", std::move(from)}, {"to", std::move(to)}};
  e.changes = boost::json::serialize(boost::json::object{{field, std::move(change)}});
  return tx.append_audit(e, l);
}

boost::json::value optional_json(const std::optional<int64_t>& v) {
  return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

boost::json::value timestamp_json(const std::optional<UnixMillis>& t) {
  return t ? boost::json::value(format_timestamp(*t)) : boost::json::value(nullptr);
}

bool valid_slug(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string generate_license_key() {
  uint8_t b[16];
  if (RAND_bytes(b, sizeof b) != 1) return {};
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10xx
  const std::string hex = to_hex(b, sizeof b);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

std::optional<std::string> normalise_license_key(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  std::string out(text);
  for (size_t i = 0; i < out.size(); ++i) {
    char& c = out[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return std::nullopt;
      continue;
    }
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  if (out[14] != '4') return std::nullopt;
  if (out[19] != '8' && out[19] != '9' && out[19] != 'a' && out[19] != 'b') return std::nullopt;
  return out;
}

Result<Product> create_product(StoreTx& tx, std::string_view slug, std::string_view name,
                               const AdminContext& ctx) {
  if (!valid_slug(slug)) return refused("slug", "a product slug is 1-64 chars of [a-z0-9._-]");
  if (name.empty() || name.size() > 200) return refused("name", "a product name is 1-200 bytes");
  ASSIGN_OR_RETURN(auto existing, tx.find_product(slug));
  if (existing) return Error::conflict("slug", "product " + std::string(slug) + " already exists");
  return tx.insert_product(slug, name, ctx.now);
}

namespace {

// The plan a license is made from: the one asked for, else the product's default.
Result<std::optional<Plan>> plan_for(StoreTx& tx, const Product& product, const LicenseSpec& spec) {
  const auto code = spec.plan ? spec.plan : product.default_plan;
  if (!code) return std::optional<Plan>();
  ASSIGN_OR_RETURN(auto plan, tx.find_plan(product.id, *code));
  if (!plan) return refused("plan", "product " + product.slug + " has no plan " + *code);
  return plan;
}

// The spec's own entitlements over the plan's: same code replaced, others added.
void merge_entitlements(std::vector<Entitlement>& into, const std::vector<Entitlement>& given) {
  for (const auto& e : given) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const Entitlement& x) { return x.code == e.code; });
    if (it == into.end()) {
      into.push_back(e);
    } else {
      *it = e;
    }
  }
}

}  // namespace

Result<License> create_license(StoreTx& tx, const LicenseSpec& spec, const AdminContext& ctx) {
  if (spec.max && *spec.max < 0) return refused("max", "max must be >= 0");
  if (spec.machine_ttl_seconds && *spec.machine_ttl_seconds <= 0) {
    return refused("machineTtl", "machineTtl must be > 0 seconds, or null for never");
  }
  if (spec.offline_grace_seconds && *spec.offline_grace_seconds <= 0) {
    return refused("offlineGrace", "offlineGrace must be > 0 seconds");
  }
  if (spec.offline_lease_seconds && *spec.offline_lease_seconds <= 0) {
    return refused("offlineLease", "offlineLease must be > 0 seconds");
  }
  if (spec.max_deactivations && *spec.max_deactivations < 0) {
    return refused("maxDeactivations", "maxDeactivations must be >= 0");
  }
  if (spec.entitlements) RETURN_IF_ERROR(check_entitlements(*spec.entitlements, "entitlements"));
  ASSIGN_OR_RETURN(auto product, tx.find_product(spec.product_slug));
  if (!product) return refused("product", "unknown product " + spec.product_slug);
  ASSIGN_OR_RETURN(const auto plan, plan_for(tx, *product, spec));
  if (!spec.max && !(plan && plan->max))
    return refused("max", "max is required (no plan gives it)");
  NewLicense n = plan ? license_from_plan(*plan, ctx.now) : NewLicense{};
  n.key = spec.key.empty() ? generate_license_key() : spec.key;
  if (n.key.empty()) return Error::internal("no random bytes for a license key");
  n.product_id = product->id;
  n.status = spec.status;
  if (spec.expires_at) {
    n.expires_at = spec.expires_at;
    n.valid_for_pending_seconds.reset();
  }
  if (spec.max) n.max = *spec.max;
  if (spec.machine_ttl_seconds) n.machine_ttl_seconds = spec.machine_ttl_seconds;
  if (spec.offline_grace_seconds) n.offline_grace_seconds = spec.offline_grace_seconds;
  if (spec.offline_lease_seconds) n.offline_lease_seconds = spec.offline_lease_seconds;
  if (spec.offline_release) n.offline_release = *spec.offline_release;
  if (spec.max_deactivations) n.max_deactivations = spec.max_deactivations;
  if (spec.max_concurrent) n.max_concurrent = spec.max_concurrent;
  if (spec.lease_ttl_seconds) n.lease_ttl_seconds = spec.lease_ttl_seconds;
  if (spec.max_borrow_seconds) n.max_borrow_seconds = spec.max_borrow_seconds;
  RETURN_IF_ERROR(check_seat_field(SeatField::kMaxConcurrent, n.max_concurrent));
  RETURN_IF_ERROR(check_seat_field(SeatField::kLeaseTtl, n.lease_ttl_seconds));
  RETURN_IF_ERROR(check_seat_field(SeatField::kMaxBorrow, n.max_borrow_seconds));
  if (spec.entitlements) merge_entitlements(n.entitlements, *spec.entitlements);
  n.created_at = ctx.now;
  ASSIGN_OR_RETURN(License l, tx.insert_license(n));
  RETURN_IF_ERROR(audit(tx, audit_action::kCreate, l, ctx));
  return l;
}

boost::json::object activation_json(const Activation& a, std::optional<UnixMillis> stale_before) {
  boost::json::object m = machine_json(a);
  m["stale"] = stale_before && a.last_seen_at < *stale_before;
  return m;
}

Result<License> find_any_license(StoreTx& tx, std::string_view key) {
  return load_any(tx, key);
}

Result<boost::json::object> show_license(StoreTx& tx, std::string_view key, UnixMillis now) {
  ASSIGN_OR_RETURN(License l, load_any(tx, key));
  ASSIGN_OR_RETURN(const auto activations, tx.list_activations(l.id));
  boost::json::object o = license_json(l, now);
  const auto stale = stale_before(l, now);
  boost::json::array list;
  int64_t fresh = 0;
  for (const auto& a : activations) {
    boost::json::object m = activation_json(a, stale);
    if (!m["stale"].as_bool()) ++fresh;
    list.push_back(std::move(m));
  }
  o["activationCount"] = fresh;
  o["activations"] = std::move(list);
  return o;
}

Status check_reason(const std::optional<std::string>& reason) {
  if (!reason) return Ok{};
  if (count_code_points(*reason) > kMaxReasonCharacters) {
    return refused(
        "reason", "reason must be at most " + std::to_string(kMaxReasonCharacters) + " characters");
  }
  // Kept and shown as text: no terminal escapes, and no NUL (libpq would cut it there).
  if (has_control_char(*reason))
    return refused("reason", "reason must not hold control characters");
  return Ok{};
}

Result<License> set_license_status(StoreTx& tx, std::string_view key, LicenseStatus status,
                                   const AdminContext& ctx) {
  RETURN_IF_ERROR(check_reason(ctx.reason));
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const LicenseStatus from = l.status;
  l.status = status;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(tx.clear_status_cause(l.key));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kStatus, l, ctx, "status",
                               boost::json::value(to_string(from)),
                               boost::json::value(to_string(status))));
  return l;
}

Result<License> set_license_max(StoreTx& tx, std::string_view key, int64_t max,
                                const AdminContext& ctx) {
  if (max < 0) return refused("max", "max must be >= 0");
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const int64_t from = l.max;
  l.max = max;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "max", from, max));
  return l;
}

Result<License> set_license_machine_ttl(StoreTx& tx, std::string_view key,
                                        std::optional<int64_t> ttl_seconds,
                                        const AdminContext& ctx) {
  if (ttl_seconds && *ttl_seconds <= 0) {
    return refused("machineTtl", "machineTtl must be > 0 seconds, or null for never");
  }
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const auto from = l.machine_ttl_seconds;
  l.machine_ttl_seconds = ttl_seconds;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "machineTtl", optional_json(from),
                               optional_json(ttl_seconds)));
  return l;
}

Result<License> delete_license(StoreTx& tx, std::string_view key, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  l.deleted_at = ctx.now;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit(tx, audit_action::kDelete, l, ctx));
  return l;
}

Result<License> set_license_expiry(StoreTx& tx, std::string_view key,
                                   std::optional<UnixMillis> expires_at, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const auto from = l.expires_at;
  l.expires_at = expires_at;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "expiresAt", timestamp_json(from),
                               timestamp_json(expires_at)));
  return l;
}

Result<License> set_license_offline_lease(StoreTx& tx, std::string_view key,
                                          std::optional<int64_t> seconds, const AdminContext& ctx) {
  if (seconds && *seconds <= 0) return refused("offlineLease", "offlineLease must be > 0 seconds");
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const int64_t from = offline_lease_seconds(l);
  l.offline_lease_seconds = seconds;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "offlineLease", from,
                               offline_lease_seconds(l)));
  return l;
}

Result<License> set_license_offline_release(StoreTx& tx, std::string_view key,
                                            OfflineRelease release, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const OfflineRelease from = l.offline_release;
  l.offline_release = release;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "offlineRelease",
                               boost::json::value(to_string(from)),
                               boost::json::value(to_string(release))));
  return l;
}

Result<License> set_license_max_deactivations(StoreTx& tx, std::string_view key,
                                              std::optional<int64_t> max, const AdminContext& ctx) {
  if (max && *max < 0) return refused("maxDeactivations", "maxDeactivations must be >= 0");
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  const auto from = effective_max_deactivations(l);
  l.max_deactivations = max;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "maxDeactivations",
                               optional_json(from), optional_json(effective_max_deactivations(l))));
  return l;
}

Result<License> set_license_plan(StoreTx& tx, std::string_view key,
                                 const std::optional<std::string>& plan, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  if (plan) {
    ASSIGN_OR_RETURN(const auto found, tx.find_plan(l.product.id, *plan));
    if (!found) return refused("plan", "product " + l.product.slug + " has no plan " + *plan);
  }
  const auto from = l.plan;
  l.plan = plan;
  RETURN_IF_ERROR(tx.update_license(l));
  const auto text = [](const std::optional<std::string>& v) {
    return v ? boost::json::value(*v) : boost::json::value(nullptr);
  };
  RETURN_IF_ERROR(audit_change(tx, audit_action::kUpdate, l, ctx, "plan", text(from), text(plan)));
  return l;
}

Result<License> patch_license(StoreTx& tx, std::string_view key, const LicensePatch& patch,
                              const AdminContext& ctx) {
  if (!patch.status && !patch.max && !patch.expires_at && !patch.machine_ttl_seconds &&
      !patch.entitlements && !patch.offline_grace_seconds && !patch.offline_lease_seconds &&
      !patch.max_concurrent && !patch.lease_ttl_seconds && !patch.max_borrow_seconds &&
      !patch.offline_release && !patch.max_deactivations && !patch.plan) {
    return refused("",
                   "nothing to change: give status, max, expiresAt, machineTtl, plan, "
                   "offlineGrace, offlineLease, offlineRelease, maxDeactivations, maxConcurrent, "
                   "leaseTtl, maxBorrow or entitlements");
  }
  if (patch.entitlements) RETURN_IF_ERROR(check_entitlements(*patch.entitlements, "entitlements"));
  RETURN_IF_ERROR(check_reason(ctx.reason));
  // Each change is its own audit record, all in the caller's one transaction.
  ASSIGN_OR_RETURN(License l, load_live(tx, key));
  if (patch.status) {
    ASSIGN_OR_RETURN(l, set_license_status(tx, key, *patch.status, ctx));
  }
  if (patch.plan) {
    ASSIGN_OR_RETURN(l, set_license_plan(tx, key, *patch.plan, ctx));
  }
  if (patch.max) {
    ASSIGN_OR_RETURN(l, set_license_max(tx, key, *patch.max, ctx));
  }
  if (patch.expires_at) {
    ASSIGN_OR_RETURN(l, set_license_expiry(tx, key, *patch.expires_at, ctx));
  }
  if (patch.machine_ttl_seconds) {
    ASSIGN_OR_RETURN(l, set_license_machine_ttl(tx, key, *patch.machine_ttl_seconds, ctx));
  }
  if (patch.offline_grace_seconds) {
    ASSIGN_OR_RETURN(l, set_license_offline_grace(tx, key, *patch.offline_grace_seconds, ctx));
  }
  if (patch.offline_lease_seconds) {
    ASSIGN_OR_RETURN(l, set_license_offline_lease(tx, key, *patch.offline_lease_seconds, ctx));
  }
  if (patch.offline_release) {
    ASSIGN_OR_RETURN(l, set_license_offline_release(tx, key, *patch.offline_release, ctx));
  }
  if (patch.max_deactivations) {
    ASSIGN_OR_RETURN(l, set_license_max_deactivations(tx, key, *patch.max_deactivations, ctx));
  }
  if (patch.entitlements) {
    ASSIGN_OR_RETURN(l, set_license_entitlements(tx, key, *patch.entitlements, ctx));
  }
  const std::pair<SeatField, const std::optional<std::optional<int64_t>>*> seats[] = {
      {SeatField::kMaxConcurrent, &patch.max_concurrent},
      {SeatField::kLeaseTtl, &patch.lease_ttl_seconds},
      {SeatField::kMaxBorrow, &patch.max_borrow_seconds}};
  for (const auto& [field, value] : seats) {
    if (!*value) continue;
    ASSIGN_OR_RETURN(l, set_license_seat_field(tx, key, field, **value, ctx));
  }
  return l;
}

Result<License> restore_license(StoreTx& tx, std::string_view key, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(License l, load_any(tx, key));
  if (!l.deleted_at) return Error::conflict("", "license " + l.key + " is not deleted");
  const auto from = l.deleted_at;
  l.deleted_at = std::nullopt;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(
      audit_change(tx, audit_action::kUpdate, l, ctx, "deletedAt", timestamp_json(from), nullptr));
  return l;
}

namespace {

// docs/protocol.md §21.6 for a customer's free: the quota, as the License API's 1711.
Status check_customer_quota(StoreTx& tx, const LockedLicense& locked, UnixMillis now) {
  const auto max = effective_max_deactivations(locked.license());
  if (!max) return Ok{};
  ASSIGN_OR_RETURN(const auto times,
                   tx.counted_deactivations_since(locked, now - kDeactivationWindowMillis + 1));
  if (static_cast<int64_t>(times.size()) < *max) return Ok{};
  const UnixMillis frees_at =
      times[times.size() - static_cast<size_t>(*max)] + kDeactivationWindowMillis;
  return Error::rate_limited(subjects::kMachineId,
                             std::max<int64_t>(1, (frees_at - now + 999) / 1000),
                             "this license's deactivations for the last 30 days are used up");
}

}  // namespace

// Under the license's lock, so the deactivation log and the quota stay exact. An admin
// frees any machine, offline ones too, and is never counted; a customer frees only online
// machines (an offline one needs its deactivation file, docs/protocol.md §21.4) within the
// quota, and is counted.
Status remove_activation(StoreTx& tx, std::string_view key, std::string_view machine_id,
                         const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License live, load_live(tx, key));  // unknown or deleted, as before
  ASSIGN_OR_RETURN(auto locked, tx.lock_license(live.key));
  if (!locked) return Error::internal("remove activation: the license went away");
  const License& l = locked->license();
  ASSIGN_OR_RETURN(const auto existing, tx.find_activation(l.id, machine_id));
  const bool customer = ctx.actor == Actor::kCustomer;
  if (!existing || (customer && existing->deactivated())) {
    return Error::not_found(subjects::kMachineId, "machine " + std::string(machine_id) +
                                                      " is not activated on license " + l.key);
  }
  if (customer && existing->offline()) {
    return Error::conflict(subjects::kMachineId,
                           "an offline machine is freed with its deactivation file");
  }
  if (customer) RETURN_IF_ERROR(check_customer_quota(tx, *locked, ctx.now));
  ASSIGN_OR_RETURN(const bool removed,
                   tx.delete_activation(*locked, machine_id, ctx.now, ctx.actor));
  if (!removed) return Error::internal("remove activation: the row went away under the lock");
  RETURN_IF_ERROR(tx.append_deactivation(*locked, machine_id, ctx.now, customer, false));
  return audit(tx, audit_action::kDeactivate, l, ctx, std::string(machine_id));
}

Result<boost::json::array> license_audit(StoreTx& tx, std::string_view key) {
  ASSIGN_OR_RETURN(License l, load_any(tx, key));
  boost::json::array out;
  int64_t after = 0;
  for (;;) {
    ASSIGN_OR_RETURN(const auto page, tx.list_audit(l.key, AuditOrder::kOldestFirst, after, 1000));
    for (const auto& e : page) out.push_back(audit_json(e));
    if (page.size() < 1000) break;
    after = page.back().id;
  }
  return out;
}

}  // namespace licensed
