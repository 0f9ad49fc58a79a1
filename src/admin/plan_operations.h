// Plans, entitlements and trials as the vendor manages them (docs/protocol.md §20), shared
// by the admin command line and the admin API. Bodies are JSON objects: the API's as
// sent, the command line's built from its flags, so both are checked by the same rules
// (kInvalidArgument naming the member, nothing written).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "admin/admin_operations.h"
#include "core/plan.h"

namespace licensed {

// A DURATION ("90s", "10m", "12h", "365d") or whole seconds; null when the member allows it.
Result<std::optional<int64_t>> duration_member(const boost::json::value& v, std::string_view field);
// A plan from an admin body: every member of docs/protocol.md §20's plan object; `base`
// `p` holds the members a PATCH leaves alone (a create passes an empty plan).
Result<Plan> plan_from_body(const boost::json::object& body, Plan p, bool creating);
// `entitlements` of a license body: [{"code", "expiresAt"?, "value"?}].
Result<std::vector<Entitlement>> entitlements_from_body(const boost::json::value& v);

// The admin view of a product: slug, name, defaultPlan and trial.
boost::json::object admin_product_json(const Product& product);

Result<Plan> create_plan(StoreTx& tx, std::string_view product_slug,
                         const boost::json::object& body, const AdminContext& ctx);
Result<std::vector<Plan>> list_plans(StoreTx& tx, std::string_view product_slug);
Result<Plan> find_plan(StoreTx& tx, std::string_view product_slug, std::string_view code);
Result<Plan> patch_plan(StoreTx& tx, std::string_view product_slug, std::string_view code,
                        const boost::json::object& body);
// Refused (kConflict) while the plan is its product's defaultPlan or trial plan, or a
// store's mapping names it.
Status delete_plan(StoreTx& tx, std::string_view product_slug, std::string_view code);

// PATCH of a product: `defaultPlan` (a plan code or null) and `trial` ({"plan", "days"} or
// null), each checked against the product's plans.
Result<Product> patch_product(StoreTx& tx, std::string_view slug, const boost::json::object& body);
Result<Product> find_product_by_slug(StoreTx& tx, std::string_view slug);

// Adds or changes one entitlement: `expires_at` given (an inner nullopt: never) replaces
// the expiry, `value_json` given replaces the value. Audited license.update with changes.
Result<License> entitle_license(StoreTx& tx, std::string_view key, std::string_view code,
                                std::optional<std::optional<UnixMillis>> expires_at,
                                std::optional<std::string> value_json, const AdminContext& ctx);
// kNotFound (subject "code") when the license has no such entitlement.
Result<License> unentitle_license(StoreTx& tx, std::string_view key, std::string_view code,
                                  const AdminContext& ctx);
// Replaces the whole list (the admin API's PATCH).
Result<License> set_license_entitlements(StoreTx& tx, std::string_view key,
                                         std::vector<Entitlement> list, const AdminContext& ctx);
Result<License> set_license_offline_grace(StoreTx& tx, std::string_view key,
                                          std::optional<int64_t> seconds, const AdminContext& ctx);

// Forgets the trial of (product, machine), so that machine may start another; audited
// trial.reset on the trial's license. kNotFound when there is none.
Status reset_trial(StoreTx& tx, std::string_view product_slug, std::string_view machine_id,
                   const AdminContext& ctx);

}  // namespace licensed
