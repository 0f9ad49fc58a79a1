#include "admin/admin_api.h"

#include <algorithm>

#include "admin/list_page.h"
#include "admin/plan_operations.h"
#include "admin/storefront_operations.h"
#include "admin/support_api.h"
#include "admin/webhook_api.h"
#include "core/license_json.h"
#include "core/request_body.h"
#include "core/text.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

namespace json = boost::json;

// ---- query and cursor -------------------------------------------------------------

std::optional<std::string_view> query_value(const AdminCall& call, std::string_view name) {
  for (const auto& [key, value] : call.query) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

// A list filter's value; an empty one (`?product=&status=`, as docs/protocol.md §18 writes the
// list call) filters nothing.
std::optional<std::string_view> filter_value(const AdminCall& call, std::string_view name) {
  auto value = query_value(call, name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

Result<PageRequest> parse_page(const AdminCall& call) {
  return licensed::parse_page(query_value(call, "limit"), query_value(call, "cursor"),
                              {kDefaultPageLimit, kMaxPageLimit});
}

// ---- body members -----------------------------------------------------------------

const json::value* member(const json::object& body, std::string_view name) {
  const json::value* v = body.if_contains(name);
  return v;
}

ApiError wrong(std::string_view field, std::string_view expected) {
  return errors::malformed(field, std::string(field) + " must be " + std::string(expected));
}

ApiResult<std::string> required_string(const json::object& body, std::string_view name) {
  const json::value* v = member(body, name);
  if (v == nullptr || v->is_null()) {
    return errors::malformed(name, std::string(name) + " is required");
  }
  if (!v->is_string()) return wrong(name, "a string");
  return std::string(v->as_string());
}

ApiResult<int64_t> integer(const json::value& v, std::string_view name, int64_t min) {
  if (!v.is_int64() && !v.is_uint64()) return wrong(name, "a whole number");
  if (v.is_uint64() && v.as_uint64() > static_cast<uint64_t>(INT64_MAX)) {
    return wrong(name, "a whole number");
  }
  const int64_t n = v.is_int64() ? v.as_int64() : static_cast<int64_t>(v.as_uint64());
  if (n < min) return wrong(name, min == 0 ? "at least 0" : "at least 1");
  return n;
}

ApiResult<LicenseStatus> status_of(const json::value& v) {
  if (!v.is_string()) return wrong("status", "ACTIVE, SUSPENDED, REFUNDED or REVOKED");
  const auto status = parse_license_status(std::string_view(v.as_string()));
  if (!status) return wrong("status", "ACTIVE, SUSPENDED, REFUNDED or REVOKED");
  return *status;
}

// null clears; else an RFC 3339 timestamp.
ApiResult<std::optional<UnixMillis>> expiry_of(const json::value& v) {
  if (v.is_null()) return std::optional<UnixMillis>();
  if (!v.is_string()) return wrong("expiresAt", "an RFC 3339 timestamp or null");
  const auto t = parse_timestamp(std::string_view(v.as_string()));
  if (!t) return wrong("expiresAt", "an RFC 3339 timestamp or null");
  return std::optional<UnixMillis>(*t);
}

// null is "never"; else seconds (docs/protocol.md §10).
ApiResult<std::optional<int64_t>> machine_ttl_of(const json::value& v) {
  if (v.is_null()) return std::optional<int64_t>();
  ASSIGN_OR_RETURN(const int64_t seconds, integer(v, "machineTtl", 1));
  if (seconds > kMaxDurationSeconds) {
    return wrong("machineTtl", "at most 100 years (3153600000 seconds)");
  }
  return std::optional<int64_t>(seconds);
}

ApiResult<OfflineRelease> offline_release_of(const json::value& v) {
  const auto release =
      v.is_string() ? parse_offline_release(std::string_view(v.as_string())) : std::nullopt;
  if (!release) return wrong("offlineRelease", "\"expiry\" or \"deactivation\"");
  return *release;
}

// null is the default (no limit, or 3 under offlineRelease "deactivation").
ApiResult<std::optional<int64_t>> max_deactivations_of(const json::value& v) {
  if (v.is_null()) return std::optional<int64_t>();
  ASSIGN_OR_RETURN(const int64_t n, integer(v, "maxDeactivations", 0));
  return std::optional<int64_t>(n);
}

// The seat members of a create or PATCH body (docs/protocol.md §27): maxConcurrent a whole
// number, leaseTtl and maxBorrow DURATIONs; null clears (a create treats it as absent).
struct SeatMembers {
  std::optional<std::optional<int64_t>> max_concurrent;
  std::optional<std::optional<int64_t>> lease_ttl;
  std::optional<std::optional<int64_t>> max_borrow;
};
RequestResult<SeatMembers> seat_members(const json::object& body) {
  SeatMembers m;
  if (const json::value* v = member(body, "maxConcurrent")) {
    if (v->is_null()) {
      m.max_concurrent = std::optional<int64_t>();
    } else {
      ASSIGN_OR_RETURN(const int64_t n, integer(*v, "maxConcurrent", 1));
      m.max_concurrent = std::optional<int64_t>(n);
    }
  }
  if (const json::value* v = member(body, "leaseTtl")) {
    ASSIGN_OR_RETURN(m.lease_ttl, duration_member(*v, "leaseTtl"));
  }
  if (const json::value* v = member(body, "maxBorrow")) {
    ASSIGN_OR_RETURN(m.max_borrow, duration_member(*v, "maxBorrow"));
  }
  return m;
}

// The offline members of a create or PATCH body (docs/protocol.md §21.7): `lease`,
// `release`, `max_deactivations` set for each member given. For a create, null is absent.
struct OfflineMembers {
  std::optional<std::optional<int64_t>> lease;
  std::optional<OfflineRelease> release;
  std::optional<std::optional<int64_t>> max_deactivations;
};
RequestResult<OfflineMembers> offline_members(const json::object& body, bool null_is_absent) {
  OfflineMembers m;
  const auto given = [&](std::string_view name) -> const json::value* {
    const json::value* v = member(body, name);
    return v == nullptr || (null_is_absent && v->is_null()) ? nullptr : v;
  };
  if (const json::value* v = given("offlineLease")) {
    ASSIGN_OR_RETURN(m.lease, duration_member(*v, "offlineLease"));
  }
  if (const json::value* v = given("offlineRelease")) {
    ASSIGN_OR_RETURN(m.release, offline_release_of(*v));
  }
  if (const json::value* v = given("maxDeactivations")) {
    ASSIGN_OR_RETURN(m.max_deactivations, max_deactivations_of(*v));
  }
  return m;
}

// Part of a license key: trimmed and lowercased (keys are lowercase UUIDs), then only hex
// digits and dashes.
ApiResult<std::string> key_part_of(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  std::string part;
  for (const char c : text) {
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (!((lower >= '0' && lower <= '9') || (lower >= 'a' && lower <= 'f') || lower == '-')) {
      return errors::malformed("key", "key is part of a license key: hex digits and dashes");
    }
    part += lower;
  }
  if (part.empty()) return errors::malformed("key", "key is part of a license key");
  return part;
}

// docs/protocol.md §26.2: a query name the route does not know is refused, so a filter a
// client misspells (or one this server does not have) is never silently ignored.
std::optional<ApiError> unknown_query(const AdminCall& call) {
  const auto known = known_query_names(call.route);
  if (!known) return std::nullopt;
  for (const auto& [name, value] : call.query) {
    if (std::find(known->begin(), known->end(), name) == known->end()) {
      return errors::malformed(name, "unknown query parameter " + name);
    }
  }
  return std::nullopt;
}

// ---- routes -----------------------------------------------------------------------

json::object listed_license_json(const License& l, UnixMillis now) {
  return license_json(l, now);
}

RequestResult<AdminAnswer> license_answer(StoreTx& tx, std::string_view key,
                                          const AdminContext& ctx, unsigned status = 200) {
  ASSIGN_OR_RETURN(json::object shown, show_license(tx, key, ctx.now));
  return AdminAnswer{status, std::move(shown)};
}

RequestResult<AdminAnswer> list_products(StoreTx& tx, const AdminCall& call) {
  ASSIGN_OR_RETURN(const PageRequest page, parse_page(call));
  ASSIGN_OR_RETURN(const int64_t after, after_id(page));
  // Products are few: the whole list is read and paged here, by id.
  ASSIGN_OR_RETURN(std::vector<Product> all, tx.list_products());
  std::sort(all.begin(), all.end(), [](const Product& a, const Product& b) { return a.id < b.id; });
  std::vector<Product> rows;
  for (Product& p : all) {
    if (p.id > after && static_cast<int64_t>(rows.size()) <= page.limit) {
      rows.push_back(std::move(p));
    }
  }
  return AdminAnswer{200, page_json(std::move(rows), page.limit, admin_product_json,
                                    [](const Product& p) { return std::to_string(p.id); })};
}

RequestResult<AdminAnswer> create_product_call(StoreTx& tx, const AdminCall& call,
                                               const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
  ASSIGN_OR_RETURN(const std::string slug, required_string(body, "slug"));
  ASSIGN_OR_RETURN(const std::string name, required_string(body, "name"));
  ASSIGN_OR_RETURN(const Product p, create_product(tx, slug, name, ctx));
  return AdminAnswer{201, admin_product_json(p)};
}

RequestResult<AdminAnswer> list_licenses(StoreTx& tx, const AdminCall& call,
                                         const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const PageRequest page, parse_page(call));
  ASSIGN_OR_RETURN(const int64_t after, after_id(page));
  LicenseFilter filter;
  if (const auto slug = filter_value(call, "product")) {
    ASSIGN_OR_RETURN(const auto product, tx.find_product(*slug));
    if (!product) return errors::malformed("product", "unknown product " + std::string(*slug));
    filter.product_id = product->id;
  }
  // The status shown is the effective one (docs/protocol.md §6), so it is what a list is
  // filtered by: ACTIVE leaves expired licenses out, EXPIRED lists only them.
  if (const auto status = filter_value(call, "status")) {
    if (*status == "EXPIRED") {
      filter.stored_status = LicenseStatus::kActive;
      filter.expired = true;
    } else {
      filter.stored_status = parse_license_status(*status);
      if (!filter.stored_status) {
        return errors::malformed("status",
                                 "status is ACTIVE, EXPIRED, SUSPENDED, REFUNDED or REVOKED");
      }
      if (*filter.stored_status == LicenseStatus::kActive) filter.expired = false;
    }
    filter.now = ctx.now;
  }
  if (const auto deleted = filter_value(call, "deleted")) {
    if (*deleted != "true" && *deleted != "false") {
      return errors::malformed("deleted", "deleted is true or false");
    }
    filter.deleted = *deleted == "true";
  }
  // Support's search for a sale (docs/protocol.md §22.10): the buyer's email, the store's order id.
  if (const auto email = filter_value(call, "email")) filter.customer_email = std::string(*email);
  if (const auto order = filter_value(call, "orderId")) filter.order_id = std::string(*order);
  // docs/protocol.md §26.2: part of a key, as a customer reads it out; a machine.
  if (const auto key = filter_value(call, "key")) {
    ASSIGN_OR_RETURN(filter.key_part, key_part_of(*key));
  }
  if (const auto machine = filter_value(call, "machine")) filter.machine = std::string(*machine);
  ASSIGN_OR_RETURN(std::vector<License> rows, tx.list_licenses(filter, after, page.limit + 1));
  // The true total of the search, whatever page this is.
  ASSIGN_OR_RETURN(const int64_t total, tx.count_licenses(filter));
  const UnixMillis now = ctx.now;
  json::object answer = page_json(
      std::move(rows), page.limit, [now](const License& l) { return listed_license_json(l, now); },
      [](const License& l) { return std::to_string(l.id); });
  answer["total"] = total;
  return AdminAnswer{200, std::move(answer)};
}

RequestResult<AdminAnswer> create_license_call(StoreTx& tx, const AdminCall& call,
                                               const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
  LicenseSpec spec;
  ASSIGN_OR_RETURN(spec.product_slug, required_string(body, "product"));
  // Required unless a plan gives it (create_license says so).
  if (const json::value* max = member(body, "max"); max != nullptr && !max->is_null()) {
    ASSIGN_OR_RETURN(spec.max, integer(*max, "max", 0));
  }
  // null for an optional member means absent (docs/protocol.md §4).
  if (const json::value* v = member(body, "expiresAt"); v != nullptr && !v->is_null()) {
    ASSIGN_OR_RETURN(spec.expires_at, expiry_of(*v));
  }
  if (const json::value* v = member(body, "status"); v != nullptr && !v->is_null()) {
    ASSIGN_OR_RETURN(spec.status, status_of(*v));
  }
  if (const json::value* v = member(body, "machineTtl"); v != nullptr && !v->is_null()) {
    ASSIGN_OR_RETURN(spec.machine_ttl_seconds, machine_ttl_of(*v));
  }
  if (const json::value* v = member(body, "plan"); v != nullptr && !v->is_null()) {
    if (!v->is_string()) return wrong("plan", "a plan code");
    spec.plan = std::string(v->as_string());
  }
  if (const json::value* v = member(body, "offlineGrace"); v != nullptr && !v->is_null()) {
    ASSIGN_OR_RETURN(spec.offline_grace_seconds, duration_member(*v, "offlineGrace"));
  }
  if (const json::value* v = member(body, "entitlements"); v != nullptr && !v->is_null()) {
    ASSIGN_OR_RETURN(spec.entitlements, entitlements_from_body(*v));
  }
  ASSIGN_OR_RETURN(const OfflineMembers offline, offline_members(body, true));
  if (offline.lease) spec.offline_lease_seconds = *offline.lease;
  spec.offline_release = offline.release;
  if (offline.max_deactivations) spec.max_deactivations = *offline.max_deactivations;
  ASSIGN_OR_RETURN(const SeatMembers seats, seat_members(body));
  if (seats.max_concurrent) spec.max_concurrent = *seats.max_concurrent;
  if (seats.lease_ttl) spec.lease_ttl_seconds = *seats.lease_ttl;
  if (seats.max_borrow) spec.max_borrow_seconds = *seats.max_borrow;
  ASSIGN_OR_RETURN(const License l, create_license(tx, spec, ctx));
  return license_answer(tx, l.key, ctx, 201);
}

RequestResult<AdminAnswer> patch_license_call(StoreTx& tx, const AdminCall& call,
                                              const AdminContext& ctx) {
  // The key first: an unknown license is 1703 whatever the body says.
  ASSIGN_OR_RETURN(const License existing, find_any_license(tx, call.license_key));
  ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
  LicensePatch patch;
  // Here null is a value: it clears expiresAt and makes machineTtl "never".
  if (const json::value* v = member(body, "status"); v != nullptr) {
    ASSIGN_OR_RETURN(patch.status, status_of(*v));
  }
  if (const json::value* v = member(body, "max"); v != nullptr) {
    ASSIGN_OR_RETURN(patch.max, integer(*v, "max", 0));
  }
  if (const json::value* v = member(body, "expiresAt"); v != nullptr) {
    ASSIGN_OR_RETURN(patch.expires_at, expiry_of(*v));
  }
  if (const json::value* v = member(body, "machineTtl"); v != nullptr) {
    ASSIGN_OR_RETURN(patch.machine_ttl_seconds, machine_ttl_of(*v));
  }
  if (const json::value* v = member(body, "offlineGrace"); v != nullptr) {
    ASSIGN_OR_RETURN(patch.offline_grace_seconds, duration_member(*v, "offlineGrace"));
  }
  if (const json::value* v = member(body, "entitlements"); v != nullptr) {
    ASSIGN_OR_RETURN(patch.entitlements, entitlements_from_body(*v));
  }
  // A plan code of the license's product, or null for none.
  if (const json::value* v = member(body, "plan"); v != nullptr) {
    if (!v->is_null() && !v->is_string()) return wrong("plan", "a plan code or null");
    patch.plan = v->is_null() ? std::optional<std::string>() : std::string(v->as_string());
  }
  ASSIGN_OR_RETURN(const OfflineMembers offline, offline_members(body, false));
  patch.offline_lease_seconds = offline.lease;
  patch.offline_release = offline.release;
  patch.max_deactivations = offline.max_deactivations;
  ASSIGN_OR_RETURN(const SeatMembers seats, seat_members(body));
  patch.max_concurrent = seats.max_concurrent;
  patch.lease_ttl_seconds = seats.lease_ttl;
  patch.max_borrow_seconds = seats.max_borrow;
  AdminContext with_reason = ctx;
  if (const json::value* v = member(body, "reason"); v != nullptr && !v->is_null()) {
    if (!v->is_string()) return wrong("reason", "a string of at most 500 characters");
    with_reason.reason = std::string(v->as_string());
  }
  RETURN_IF_ERROR(patch_license(tx, existing.key, patch, with_reason));
  return license_answer(tx, existing.key, ctx);
}

RequestResult<AdminAnswer> list_activations(StoreTx& tx, const AdminCall& call,
                                            const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License l, find_any_license(tx, call.license_key));
  ASSIGN_OR_RETURN(const PageRequest page, parse_page(call));
  // At most `max` machines (plus stale ones) per license: read them all, page by
  // machine id, the activation's key.
  ASSIGN_OR_RETURN(std::vector<Activation> all, tx.list_activations(l.id));
  std::sort(all.begin(), all.end(),
            [](const Activation& a, const Activation& b) { return a.machine_id < b.machine_id; });
  std::vector<Activation> rows;
  for (Activation& a : all) {
    if ((!page.after || a.machine_id > *page.after) &&
        static_cast<int64_t>(rows.size()) <= page.limit) {
      rows.push_back(std::move(a));
    }
  }
  const auto stale = stale_before(l, ctx.now);
  return AdminAnswer{200, page_json(
                              std::move(rows), page.limit,
                              [stale](const Activation& a) { return activation_json(a, stale); },
                              [](const Activation& a) { return a.machine_id; })};
}

RequestResult<AdminAnswer> list_audit(StoreTx& tx, const AdminCall& call) {
  ASSIGN_OR_RETURN(const License l, find_any_license(tx, call.license_key));
  ASSIGN_OR_RETURN(const PageRequest page, parse_page(call));
  ASSIGN_OR_RETURN(const int64_t after, after_id(page));
  ASSIGN_OR_RETURN(std::vector<AuditEntry> rows,
                   tx.list_audit(l.key, AuditOrder::kOldestFirst, after, page.limit + 1));
  return AdminAnswer{200, page_json(std::move(rows), page.limit, audit_json,
                                    [](const AuditEntry& e) { return std::to_string(e.id); })};
}

// docs/protocol.md §21.7, §21.5: body {"request": "<armoured file>"}.
RequestResult<AdminAnswer> offline_call(StoreTx& tx, const AdminCall& call,
                                        const AdminContext& ctx) {
  if (call.offline == nullptr) return Error::internal("the admin API has no offline keys");
  // The key first: an unknown license is 1703 whatever the body says.
  ASSIGN_OR_RETURN(const License l, find_any_license(tx, call.license_key));
  ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
  ASSIGN_OR_RETURN(const std::string text, required_string(body, "request"));
  if (call.route == AdminRoute::kOfflineActivation) {
    ASSIGN_OR_RETURN(json::object answer,
                     admin_offline_activate(tx, l.key, text, *call.offline, ctx));
    return AdminAnswer{200, std::move(answer)};
  }
  ASSIGN_OR_RETURN(json::object answer,
                   admin_offline_deactivate(tx, l.key, text, *call.offline, ctx));
  return AdminAnswer{200, std::move(answer)};
}

// ---- products and plans (docs/protocol.md §20) -------------------------------------

RequestResult<AdminAnswer> product_call(StoreTx& tx, const AdminCall& call) {
  if (call.route == AdminRoute::kGetProduct) {
    ASSIGN_OR_RETURN(const Product p, find_product_by_slug(tx, call.product_slug));
    return AdminAnswer{200, admin_product_json(p)};
  }
  ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
  ASSIGN_OR_RETURN(const Product p, patch_product(tx, call.product_slug, body));
  return AdminAnswer{200, admin_product_json(p)};
}

// ---- stores (docs/protocol.md §22.1) ----------------------------------------------------------

Result<int64_t> store_id_of(const AdminCall& call) {
  const auto id = parse_storefront_id(call.store_id);
  if (!id) return Error::not_found("store", "no store " + call.store_id);
  return *id;
}

// Store.rejected records, newest first, in pages keyed by id.
RequestResult<AdminAnswer> list_rejections(StoreTx& tx, const AdminCall& call, int64_t id) {
  ASSIGN_OR_RETURN(const PageRequest page, parse_page(call));
  ASSIGN_OR_RETURN(const int64_t before, after_id(page));
  ASSIGN_OR_RETURN(std::vector<AuditEntry> rows,
                   list_store_rejections(tx, id, before, page.limit + 1));
  return AdminAnswer{200, page_json(std::move(rows), page.limit, audit_json,
                                    [](const AuditEntry& e) { return std::to_string(e.id); })};
}

RequestResult<AdminAnswer> store_call(StoreTx& tx, const AdminCall& call, const AdminContext& ctx) {
  if (call.route == AdminRoute::kListStores) {
    ASSIGN_OR_RETURN(json::array items, list_storefronts_json(tx));
    return AdminAnswer{200, json::object{{"items", std::move(items)}, {"nextCursor", nullptr}}};
  }
  if (call.route == AdminRoute::kCreateStore) {
    ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
    ASSIGN_OR_RETURN(const CreatedStorefront created,
                     create_storefront(tx, body, call.public_url, ctx));
    ASSIGN_OR_RETURN(json::object answer, storefront_json(tx, created.storefront));
    // The token's only appearance: inside the URL, in this answer.
    answer["inboundUrl"] = created.inbound_url;
    return AdminAnswer{201, std::move(answer)};
  }
  ASSIGN_OR_RETURN(const int64_t id, store_id_of(call));
  switch (call.route) {
    case AdminRoute::kGetStore: {
      ASSIGN_OR_RETURN(json::object answer, find_storefront_json(tx, id));
      return AdminAnswer{200, std::move(answer)};
    }
    case AdminRoute::kPatchStore: {
      ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
      ASSIGN_OR_RETURN(const Storefront f, patch_storefront(tx, id, body));
      ASSIGN_OR_RETURN(json::object answer, storefront_json(tx, f));
      return AdminAnswer{200, std::move(answer)};
    }
    case AdminRoute::kDeleteStore:
      RETURN_IF_ERROR(remove_storefront(tx, id));
      return AdminAnswer{200, json::object{{"ok", true}}};
    default:
      return list_rejections(tx, call, id);
  }
}

RequestResult<AdminAnswer> plan_call(StoreTx& tx, const AdminCall& call, const AdminContext& ctx) {
  switch (call.route) {
    case AdminRoute::kListPlans: {
      ASSIGN_OR_RETURN(const auto plans, list_plans(tx, call.product_slug));
      json::array items;
      for (const auto& p : plans) items.push_back(plan_json(p));
      return AdminAnswer{200, json::object{{"items", std::move(items)}, {"nextCursor", nullptr}}};
    }
    case AdminRoute::kCreatePlan: {
      ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
      ASSIGN_OR_RETURN(const Plan p, create_plan(tx, call.product_slug, body, ctx));
      return AdminAnswer{201, plan_json(p)};
    }
    case AdminRoute::kPatchPlan: {
      ASSIGN_OR_RETURN(const json::object body, parse_json_object_body(call.body));
      ASSIGN_OR_RETURN(const Plan p, patch_plan(tx, call.product_slug, call.plan_code, body));
      return AdminAnswer{200, plan_json(p)};
    }
    case AdminRoute::kDeletePlan:
      RETURN_IF_ERROR(delete_plan(tx, call.product_slug, call.plan_code));
      return AdminAnswer{200, json::object{{"ok", true}}};
    default: {
      ASSIGN_OR_RETURN(const Plan p, find_plan(tx, call.product_slug, call.plan_code));
      return AdminAnswer{200, plan_json(p)};
    }
  }
}

}  // namespace

bool changes_data(AdminRoute route) {
  switch (route) {
    case AdminRoute::kListProducts:
    case AdminRoute::kListLicenses:
    case AdminRoute::kGetLicense:
    case AdminRoute::kListActivations:
    case AdminRoute::kListAudit:
    case AdminRoute::kGetProduct:
    case AdminRoute::kListPlans:
    case AdminRoute::kGetPlan:
    case AdminRoute::kListStores:
    case AdminRoute::kGetStore:
    case AdminRoute::kListStoreRejections:
    case AdminRoute::kListWebhooks:
    case AdminRoute::kGetWebhook:
    case AdminRoute::kListWebhookDeliveries:
    case AdminRoute::kTokenInfo:
    case AdminRoute::kListRefusals:
    case AdminRoute::kStatsLicenses:
    case AdminRoute::kStatsActivations:
    case AdminRoute::kStatsRefusals:
    case AdminRoute::kStatsTrials:
    case AdminRoute::kStatsNearestCap:
    case AdminRoute::kListLeases:
      return false;
    case AdminRoute::kPatchProduct:
    case AdminRoute::kCreatePlan:
    case AdminRoute::kPatchPlan:
    case AdminRoute::kDeletePlan:
    case AdminRoute::kCreateProduct:
    case AdminRoute::kCreateLicense:
    case AdminRoute::kPatchLicense:
    case AdminRoute::kDeleteLicense:
    case AdminRoute::kRestoreLicense:
    case AdminRoute::kRemoveActivation:
    case AdminRoute::kCreateStore:
    case AdminRoute::kPatchStore:
    case AdminRoute::kDeleteStore:
    case AdminRoute::kCreateWebhook:
    case AdminRoute::kPatchWebhook:
    case AdminRoute::kDeleteWebhook:
    case AdminRoute::kRotateWebhookSecret:
    case AdminRoute::kRetryWebhookDelivery:
    case AdminRoute::kOfflineActivation:
    case AdminRoute::kOfflineDeactivation:
    case AdminRoute::kReleaseLease:
      return true;
  }
  return true;
}

Result<PageRequest> admin_page_of(const AdminCall& call) {
  return parse_page(call);
}

RequestResult<AdminAnswer> run_admin_call(StoreTx& tx, const AdminCall& call,
                                          const AdminContext& ctx) {
  if (auto bad = unknown_query(call)) return *bad;
  switch (call.route) {
    case AdminRoute::kListProducts:
      return list_products(tx, call);
    case AdminRoute::kCreateProduct:
      return create_product_call(tx, call, ctx);
    case AdminRoute::kListLicenses:
      return list_licenses(tx, call, ctx);
    case AdminRoute::kCreateLicense:
      return create_license_call(tx, call, ctx);
    case AdminRoute::kGetLicense:
      return license_answer(tx, call.license_key, ctx);
    case AdminRoute::kPatchLicense:
      return patch_license_call(tx, call, ctx);
    case AdminRoute::kDeleteLicense: {
      ASSIGN_OR_RETURN(const License l, delete_license(tx, call.license_key, ctx));
      return license_answer(tx, l.key, ctx);
    }
    case AdminRoute::kRestoreLicense: {
      ASSIGN_OR_RETURN(const License l, restore_license(tx, call.license_key, ctx));
      return license_answer(tx, l.key, ctx);
    }
    case AdminRoute::kListActivations:
      return list_activations(tx, call, ctx);
    case AdminRoute::kRemoveActivation:
      // A NUL from %00 would end the id early in libpq's text parameters: refuse what no
      // client could have activated instead of matching a prefix.
      if (auto bad = check_machine_id_text(call.machine_id)) return *bad;
      RETURN_IF_ERROR(remove_activation(tx, call.license_key, call.machine_id, ctx));
      return license_answer(tx, call.license_key, ctx);
    case AdminRoute::kListAudit:
      return list_audit(tx, call);
    case AdminRoute::kListLeases: {
      ASSIGN_OR_RETURN(json::array items, list_license_leases(tx, call.license_key, ctx.now));
      return AdminAnswer{200, json::object{{"items", std::move(items)}, {"nextCursor", nullptr}}};
    }
    case AdminRoute::kReleaseLease:
      if (auto bad = check_machine_id_text(call.machine_id)) return *bad;
      if (auto bad = check_machine_id_text(call.session_id)) return *bad;
      RETURN_IF_ERROR(release_lease(tx, call.license_key, call.machine_id, call.session_id, ctx));
      return AdminAnswer{200, json::object{{"ok", true}, {"released", true}}};
    case AdminRoute::kGetProduct:
    case AdminRoute::kPatchProduct:
      return product_call(tx, call);
    case AdminRoute::kListPlans:
    case AdminRoute::kCreatePlan:
    case AdminRoute::kGetPlan:
    case AdminRoute::kPatchPlan:
    case AdminRoute::kDeletePlan:
      return plan_call(tx, call, ctx);
    case AdminRoute::kListStores:
    case AdminRoute::kCreateStore:
    case AdminRoute::kGetStore:
    case AdminRoute::kPatchStore:
    case AdminRoute::kDeleteStore:
    case AdminRoute::kListStoreRejections:
      return store_call(tx, call, ctx);
    case AdminRoute::kListWebhooks:
    case AdminRoute::kCreateWebhook:
    case AdminRoute::kGetWebhook:
    case AdminRoute::kPatchWebhook:
    case AdminRoute::kDeleteWebhook:
    case AdminRoute::kRotateWebhookSecret:
    case AdminRoute::kListWebhookDeliveries:
    case AdminRoute::kRetryWebhookDelivery:
      return webhook_call(tx, call, ctx);
    case AdminRoute::kOfflineActivation:
    case AdminRoute::kOfflineDeactivation:
      return offline_call(tx, call, ctx);
    case AdminRoute::kListRefusals:
      return list_refusals_call(tx, call, ctx);
    case AdminRoute::kStatsLicenses:
    case AdminRoute::kStatsActivations:
    case AdminRoute::kStatsRefusals:
    case AdminRoute::kStatsTrials:
    case AdminRoute::kStatsNearestCap:
      return stats_call(tx, call, ctx);
    case AdminRoute::kTokenInfo:
      // The handler answers it: only it knows the token.
      return Error::internal("the token's own route reached the admin calls");
  }
  return Error::internal("no admin call for this route");
}

}  // namespace licensed
