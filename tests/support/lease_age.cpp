#include "support/lease_age.h"

#include <algorithm>
#include <stdexcept>

#include "support/store_sql.h"

namespace bb {

void AgeLeases(const std::string& store, const std::string& license_key,
               std::chrono::milliseconds by) {
  // StoreSql runs plain SQL text: the key goes in only if it is a UUID the test made.
  const bool uuid_like =
      !license_key.empty() && std::all_of(license_key.begin(), license_key.end(), [](char c) {
        return c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
               (c >= 'A' && c <= 'F');
      });
  if (!uuid_like) throw std::runtime_error("not a license key: " + license_key);
  const std::string changed =
      StoreSql(store, "UPDATE leases SET expires_at = expires_at - " + std::to_string(by.count()) +
                          " WHERE license_id = (SELECT id FROM licenses WHERE license_key = '" +
                          license_key + "') RETURNING 1");
  if (changed.empty()) throw std::runtime_error("no lease of " + license_key);
}

}  // namespace bb
