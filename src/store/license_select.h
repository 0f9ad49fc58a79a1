// The license row as both stores read it: read_license() in sqlite_tx.cpp and pg_tx.cpp
// takes the columns in this order, so the list lives in one place.
#pragma once

#include <string>

namespace licensed {

inline const std::string kSelectLicensesSql =
    "SELECT l.id, l.license_key, l.status, l.expires_at, l.max_activations, l.machine_ttl,"
    " l.created_at, l.deleted_at, p.id, p.slug, p.name, p.default_plan, p.trial_plan,"
    " p.trial_days, l.plan, l.entitlements, l.offline_grace, l.trial, l.valid_for_pending,"
    " l.customer_email, l.customer_name, l.source_provider, l.source_store_id, l.source_order_id,"
    " l.offline_lease, l.offline_release, l.max_deactivations, l.max_concurrent, l.lease_ttl,"
    " l.max_borrow"
    " FROM licenses l JOIN products p ON p.id = l.product_id";

inline const std::string kSelectProductsSql =
    "SELECT id, slug, name, default_plan, trial_plan, trial_days FROM products";
inline const std::string kSelectPlansSql =
    "SELECT id, product_id, code, name, spec, created_at FROM plans";
// The activation row as both stores read it (read_activation), selected or RETURNING.
inline const std::string kActivationColumnsSql =
    "machine_id, machine_name, activated_at, last_seen_at, offline_until, offline_file_id,"
    " offline_nonce, offline_payload, deactivated_at";
inline const std::string kSelectActivationSql =
    "SELECT " + kActivationColumnsSql + " FROM activations";

}  // namespace licensed
