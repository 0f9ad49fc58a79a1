#include "admin/plan_operations.h"

#include <boost/json/serialize.hpp>

#include "auth/trial_key.h"
#include "core/license_json.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

namespace json = boost::json;

Error refused(std::string_view field, std::string message) {
  return Error::invalid_argument(field, std::move(message));
}

Result<std::optional<int64_t>> count_member(const json::value& v, std::string_view field,
                                            int64_t min) {
  if (v.is_null()) return std::optional<int64_t>();
  const bool whole = v.is_int64() || (v.is_uint64() && v.as_uint64() <= INT64_MAX);
  const int64_t n = v.is_int64() ? v.as_int64() : whole ? static_cast<int64_t>(v.as_uint64()) : 0;
  if (!whole || n < min) {
    return refused(field, std::string(field) + " must be a whole number, at least " +
                              std::to_string(min) + ", or null");
  }
  return std::optional<int64_t>(n);
}

Result<std::string> text_member(const json::value& v, std::string_view field, size_t max) {
  if (!v.is_string() || v.as_string().empty() || v.as_string().size() > max) {
    return refused(field,
                   std::string(field) + " must be a string of 1-" + std::to_string(max) + " bytes");
  }
  return std::string(v.as_string());
}

Result<std::optional<std::string>> value_member(const json::object& o, std::string_view field) {
  const json::value* v = o.if_contains("value");
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!valid_entitlement_value(*v)) {
    return refused(field,
                   "an entitlement value is a string, number or boolean of at most 256 bytes");
  }
  return std::optional<std::string>(json::serialize(*v));
}

Result<std::string> code_member(const json::object& o, std::string_view field) {
  const json::value* v = o.if_contains("code");
  if (v == nullptr || !v->is_string() || !valid_entitlement_code(v->as_string())) {
    return refused(field,
                   "an entitlement code is 1-64 characters of [a-z0-9._-] starting with a "
                   "letter or digit");
  }
  return std::string(v->as_string());
}

Result<std::vector<PlanEntitlement>> plan_entitlements(const json::value& v) {
  constexpr std::string_view kField = "entitlements";
  if (!v.is_array()) return refused(kField, "entitlements must be an array");
  std::vector<PlanEntitlement> out;
  std::vector<Entitlement> check;
  for (const auto& item : v.as_array()) {
    if (!item.is_object()) return refused(kField, "each entitlement is an object");
    const auto& o = item.as_object();
    PlanEntitlement e;
    ASSIGN_OR_RETURN(e.code, code_member(o, kField));
    if (const auto* d = o.if_contains("validFor")) {
      ASSIGN_OR_RETURN(e.valid_for_seconds, duration_member(*d, kField));
    }
    ASSIGN_OR_RETURN(e.value_json, value_member(o, kField));
    check.push_back(Entitlement{e.code, std::nullopt, e.value_json, std::nullopt});
    out.push_back(std::move(e));
  }
  RETURN_IF_ERROR(check_entitlements(check, kField));
  return out;
}

// The plan's members that are durations or counts, by name.
Status plan_numbers(const json::object& body, Plan& p) {
  struct Slot {
    const char* name;
    std::optional<int64_t> Plan::*member;
    bool duration;
  };
  static const Slot kSlots[] = {
      {"max", &Plan::max, false},
      {"validFor", &Plan::valid_for_seconds, true},
      {"machineTtl", &Plan::machine_ttl_seconds, true},
      {"offlineGrace", &Plan::offline_grace_seconds, true},
      {"offlineLease", &Plan::offline_lease_seconds, true},
      {"maxConcurrent", &Plan::max_concurrent, false},
      {"leaseTtl", &Plan::lease_ttl_seconds, true},
      {"maxDeactivations", &Plan::max_deactivations, false},
      {"maxBorrow", &Plan::max_borrow_seconds, true},
  };
  for (const Slot& slot : kSlots) {
    const json::value* v = body.if_contains(slot.name);
    if (v == nullptr) continue;
    if (slot.duration) {
      ASSIGN_OR_RETURN(p.*slot.member, duration_member(*v, slot.name));
    } else {
      ASSIGN_OR_RETURN(p.*slot.member, count_member(*v, slot.name, 0));
    }
  }
  return Ok{};
}

Result<Product> load_product(StoreTx& tx, std::string_view slug) {
  ASSIGN_OR_RETURN(auto product, tx.find_product(slug));
  if (!product) return Error::not_found("product", "unknown product " + std::string(slug));
  return std::move(*product);
}

Result<License> load_live_license(StoreTx& tx, std::string_view key) {
  ASSIGN_OR_RETURN(License l, find_any_license(tx, key));
  if (l.deleted_at) return Error::conflict("", "license " + l.key + " is deleted");
  return l;
}

Status audit_update(StoreTx& tx, const License& l, const AdminContext& ctx,
                    const json::object& changes) {
  AuditEntry e;
  e.at = ctx.now;
  e.action = std::string(audit_action::kUpdate);
  e.license_key = l.key;
  e.actor = ctx.actor;
  e.actor_name = ctx.actor_name;
  e.ip = ctx.ip;
  e.request_id = ctx.request_id;
  e.reason = ctx.reason;
  e.changes = json::serialize(changes);
  return tx.append_audit(e, l);
}

json::object change(json::value from, json::value to) {
  return json::object{{"from", std::move(from)}, {"to", std::move(to)}};
}

}  // namespace

Result<std::optional<int64_t>> duration_member(const json::value& v, std::string_view field) {
  if (v.is_null()) return std::optional<int64_t>();
  if (v.is_string()) {
    const auto s = parse_duration_seconds(std::string_view(v.as_string()));
    if (s) return std::optional<int64_t>(*s);
  } else if (v.is_int64() && v.as_int64() > 0 && v.as_int64() <= kMaxDurationSeconds) {
    return std::optional<int64_t>(v.as_int64());
  }
  return refused(field, std::string(field) +
                            " must be a duration (90s, 10m, 12h, 365d) or whole seconds, of at "
                            "most 100 years (36500d), or null");
}

Result<Plan> plan_from_body(const json::object& body, Plan p, bool creating) {
  if (creating || body.contains("code")) {
    const json::value* code = body.if_contains("code");
    if (code == nullptr || !code->is_string() || !valid_entitlement_code(code->as_string())) {
      return refused("code",
                     "a plan code is 1-64 characters of [a-z0-9._-] starting with a "
                     "letter or digit");
    }
    p.code = std::string(code->as_string());
  }
  if (creating || body.contains("name")) {
    const json::value* name = body.if_contains("name");
    if (name == nullptr) return refused("name", "name is required");
    ASSIGN_OR_RETURN(p.name, text_member(*name, "name", 200));
  }
  RETURN_IF_ERROR(plan_numbers(body, p));
  if (const json::value* v = body.if_contains("validFrom")) {
    if (v->is_null() || (v->is_string() && v->as_string() == "creation")) {
      p.valid_from_first_activation = false;
    } else if (v->is_string() && v->as_string() == "firstActivation") {
      p.valid_from_first_activation = true;
    } else {
      return refused("validFrom", "validFrom is \"creation\" or \"firstActivation\"");
    }
  }
  if (const json::value* v = body.if_contains("offlineRelease")) {
    const auto release =
        v->is_string() ? parse_offline_release(std::string_view(v->as_string())) : std::nullopt;
    if (!v->is_null() && !release) {
      return refused("offlineRelease", "offlineRelease is \"expiry\", \"deactivation\" or null");
    }
    p.offline_release = release;
  }
  if (const json::value* v = body.if_contains("entitlements")) {
    if (v->is_null()) {
      p.entitlements.clear();
    } else {
      ASSIGN_OR_RETURN(p.entitlements, plan_entitlements(*v));
    }
  }
  return p;
}

Result<std::vector<Entitlement>> entitlements_from_body(const json::value& v) {
  constexpr std::string_view kField = "entitlements";
  if (v.is_null()) return std::vector<Entitlement>();
  if (!v.is_array()) return refused(kField, "entitlements must be an array");
  std::vector<Entitlement> out;
  for (const auto& item : v.as_array()) {
    if (!item.is_object()) return refused(kField, "each entitlement is an object");
    const auto& o = item.as_object();
    Entitlement e;
    ASSIGN_OR_RETURN(e.code, code_member(o, kField));
    if (const auto* t = o.if_contains("expiresAt"); t != nullptr && !t->is_null()) {
      const auto at =
          t->is_string() ? parse_timestamp(std::string_view(t->as_string())) : std::nullopt;
      if (!at)
        return refused(kField, "an entitlement's expiresAt is an RFC 3339 timestamp or null");
      e.expires_at = *at;
    }
    ASSIGN_OR_RETURN(e.value_json, value_member(o, kField));
    out.push_back(std::move(e));
  }
  RETURN_IF_ERROR(check_entitlements(out, kField));
  return out;
}

json::object admin_product_json(const Product& p) {
  json::object o = product_json(p);
  o["defaultPlan"] = p.default_plan ? json::value(*p.default_plan) : json::value(nullptr);
  if (p.trial) {
    o["trial"] = json::object{{"plan", p.trial->plan}, {"days", p.trial->days}};
  } else {
    o["trial"] = nullptr;
  }
  return o;
}

Result<Product> find_product_by_slug(StoreTx& tx, std::string_view slug) {
  return load_product(tx, slug);
}

Result<Plan> create_plan(StoreTx& tx, std::string_view product_slug, const json::object& body,
                         const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const Product product, load_product(tx, product_slug));
  ASSIGN_OR_RETURN(Plan p, plan_from_body(body, Plan{}, true));
  ASSIGN_OR_RETURN(const auto existing, tx.find_plan(product.id, p.code));
  if (existing) return Error::conflict("code", "plan " + p.code + " already exists");
  p.product_id = product.id;
  p.created_at = ctx.now;
  return tx.insert_plan(p);
}

Result<std::vector<Plan>> list_plans(StoreTx& tx, std::string_view product_slug) {
  ASSIGN_OR_RETURN(const Product product, load_product(tx, product_slug));
  return tx.list_plans(product.id);
}

Result<Plan> find_plan(StoreTx& tx, std::string_view product_slug, std::string_view code) {
  ASSIGN_OR_RETURN(const Product product, load_product(tx, product_slug));
  ASSIGN_OR_RETURN(auto plan, tx.find_plan(product.id, code));
  if (!plan) return Error::not_found("plan", "unknown plan " + std::string(code));
  return std::move(*plan);
}

Result<Plan> patch_plan(StoreTx& tx, std::string_view product_slug, std::string_view code,
                        const json::object& body) {
  ASSIGN_OR_RETURN(Plan existing, find_plan(tx, product_slug, code));
  if (body.contains("code") && body.at("code") != json::value(existing.code)) {
    return refused("code", "a plan's code cannot change");
  }
  ASSIGN_OR_RETURN(Plan p, plan_from_body(body, existing, false));
  RETURN_IF_ERROR(tx.update_plan(p));
  return p;
}

Status delete_plan(StoreTx& tx, std::string_view product_slug, std::string_view code) {
  ASSIGN_OR_RETURN(const Product product, load_product(tx, product_slug));
  ASSIGN_OR_RETURN(const Plan plan, find_plan(tx, product_slug, code));
  if (product.default_plan == plan.code || (product.trial && product.trial->plan == plan.code)) {
    return Error::conflict("code", "plan " + plan.code + " is the product's default or trial plan");
  }
  // A store's sale of a mapped item would fail (and be retried by the provider) forever.
  ASSIGN_OR_RETURN(const auto stores, tx.list_storefronts());
  for (const auto& store : stores) {
    ASSIGN_OR_RETURN(const auto mappings, tx.list_sku_mappings(store.id));
    for (const auto& m : mappings) {
      if (m.product_id == product.id && m.plan == plan.code) {
        return Error::conflict("code", "plan " + plan.code + " is mapped by store " +
                                           std::to_string(store.id) + " (item " + m.item_id + ")");
      }
    }
  }
  return tx.delete_plan(plan.id);
}

Result<Product> patch_product(StoreTx& tx, std::string_view slug, const json::object& body) {
  ASSIGN_OR_RETURN(Product p, load_product(tx, slug));
  if (const json::value* v = body.if_contains("defaultPlan")) {
    if (v->is_null()) {
      p.default_plan.reset();
    } else {
      if (!v->is_string()) return refused("defaultPlan", "defaultPlan is a plan code or null");
      ASSIGN_OR_RETURN(const auto plan, tx.find_plan(p.id, v->as_string()));
      if (!plan) return refused("defaultPlan", "no plan " + std::string(v->as_string()));
      p.default_plan = plan->code;
    }
  }
  if (const json::value* v = body.if_contains("trial")) {
    if (v->is_null()) {
      p.trial.reset();
    } else {
      const auto* o = v->if_object();
      const auto* plan_code = o ? o->if_contains("plan") : nullptr;
      const auto* days = o ? o->if_contains("days") : nullptr;
      if (plan_code == nullptr || !plan_code->is_string() || days == nullptr) {
        return refused("trial", "trial is {\"plan\": CODE, \"days\": N} or null");
      }
      ASSIGN_OR_RETURN(const auto n, count_member(*days, "trial", 1));
      if (!n || *n > 3650) return refused("trial", "trial days are 1-3650");
      ASSIGN_OR_RETURN(const auto plan, tx.find_plan(p.id, plan_code->as_string()));
      if (!plan) return refused("trial", "no plan " + std::string(plan_code->as_string()));
      p.trial = TrialOffer{plan->code, *n};
    }
  }
  RETURN_IF_ERROR(tx.update_product(p));
  return p;
}

Result<License> set_license_entitlements(StoreTx& tx, std::string_view key,
                                         std::vector<Entitlement> list, const AdminContext& ctx) {
  RETURN_IF_ERROR(check_entitlements(list, "entitlements"));
  ASSIGN_OR_RETURN(License l, load_live_license(tx, key));
  json::value from = entitlements_record_json(l.entitlements);
  l.entitlements = std::move(list);
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_update(
      tx, l, ctx,
      json::object{{"entitlements", change(from, entitlements_record_json(l.entitlements))}}));
  return l;
}

Result<License> entitle_license(StoreTx& tx, std::string_view key, std::string_view code,
                                std::optional<std::optional<UnixMillis>> expires_at,
                                std::optional<std::string> value_json, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License l, load_live_license(tx, key));
  std::vector<Entitlement> list = l.entitlements;
  auto it =
      std::find_if(list.begin(), list.end(), [&](const Entitlement& e) { return e.code == code; });
  if (it == list.end()) {
    list.push_back(Entitlement{std::string(code), std::nullopt, std::nullopt, std::nullopt});
    it = list.end() - 1;
  }
  if (expires_at) {
    it->expires_at = *expires_at;
    it->pending_seconds.reset();
  }
  if (value_json) it->value_json = std::move(value_json);
  return set_license_entitlements(tx, key, std::move(list), ctx);
}

Result<License> unentitle_license(StoreTx& tx, std::string_view key, std::string_view code,
                                  const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License l, load_live_license(tx, key));
  std::vector<Entitlement> list = l.entitlements;
  const auto before = list.size();
  std::erase_if(list, [&](const Entitlement& e) { return e.code == code; });
  if (list.size() == before) {
    return Error::not_found("code",
                            "license " + l.key + " has no entitlement " + std::string(code));
  }
  return set_license_entitlements(tx, key, std::move(list), ctx);
}

Result<License> set_license_offline_grace(StoreTx& tx, std::string_view key,
                                          std::optional<int64_t> seconds, const AdminContext& ctx) {
  if (seconds && *seconds <= 0) return refused("offlineGrace", "offlineGrace must be > 0");
  ASSIGN_OR_RETURN(License l, load_live_license(tx, key));
  const int64_t from = offline_grace_seconds(l);
  l.offline_grace_seconds = seconds;
  RETURN_IF_ERROR(tx.update_license(l));
  RETURN_IF_ERROR(audit_update(
      tx, l, ctx, json::object{{"offlineGrace", change(from, offline_grace_seconds(l))}}));
  return l;
}

Status reset_trial(StoreTx& tx, std::string_view product_slug, std::string_view machine_id,
                   const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const Product product, load_product(tx, product_slug));
  ASSIGN_OR_RETURN(const auto key, stored_trial_key(tx, ctx.now));
  ASSIGN_OR_RETURN(const auto keys, tx.delete_trial(product.id, key->machine(machine_id)));
  if (keys.empty()) {
    return Error::not_found(subjects::kMachineId, "no trial of " + product.slug + " for machine " +
                                                      std::string(machine_id));
  }
  for (const auto& license_key : keys) {
    AuditEntry e;
    e.at = ctx.now;
    e.action = std::string(audit_action::kTrialReset);
    e.license_key = license_key;
    e.machine_id = std::string(machine_id);
    e.actor = ctx.actor;
    e.actor_name = ctx.actor_name;
    e.ip = ctx.ip;
    e.request_id = ctx.request_id;
    e.reason = ctx.reason;
    RETURN_IF_ERROR(tx.append_audit(e));
  }
  return Ok{};
}

}  // namespace licensed
