// The license row as both stores read it: read_license() in sqlite_tx.cpp and pg_tx.cpp
// takes the columns in this order, so the list lives in one place.
#pragma once

#include <string>

namespace licensed {

inline const std::string kSelectLicensesSql =
    "SELECT l.id, l.license_key, l.status, l.expires_at, l.max_activations, l.machine_ttl,"
    " l.created_at, l.deleted_at, p.id, p.slug, p.name"
    " FROM licenses l JOIN products p ON p.id = l.product_id";

}  // namespace licensed
