// What a customer may do from the dashboard, over the same operations the admin API
// uses: see their license (product, status, expiry, machines with masked ids, audit
// records) and free a slot (audit `license.deactivate`, actor `customer`). A deleted
// license answers exactly as an unknown key (1703), as everywhere a customer looks.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "admin/admin_operations.h"
#include "core/result.h"
#include "store/store_tx.h"

namespace licensed {

// The first 4 and last 4 code points with an ellipsis between; ids of 8 code points
// or fewer keep only their first 2. Enough for a customer to recognise a machine,
// too little to impersonate it.
std::string mask_machine_id(std::string_view machine_id);

// A stable, opaque name for one machine of a license: the first 32 hex digits of the
// SHA-256 of its id. The dashboard deactivates by it, so full ids never reach the page.
std::string machine_handle(std::string_view machine_id);

// The live license of that key (normalised); 1703 when unknown or deleted.
Result<License> find_customer_license(StoreTx& tx, std::string_view key);

// {"licenseKey", "product", "status", "expiresAt", "max", "activationCount",
//  "activations": [{"handle", "machineId" (masked), "name", "activatedAt", "lastSeenAt",
//  "stale"}], "audit": [...]} with machine ids masked in the audit records too.
Result<boost::json::object> customer_license_view(StoreTx& tx, std::string_view key,
                                                  UnixMillis now);

// Frees the slot of the machine `handle` names; 1707 when no machine has it.
Status customer_free_slot(StoreTx& tx, std::string_view key, std::string_view handle,
                          const AdminContext& ctx);

}  // namespace licensed
