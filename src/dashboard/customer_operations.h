// What a customer may do from the dashboard, over the same operations the admin API
// uses: see their license (product, status, expiry, machines with masked ids, the newest
// audit records), page back through its history, and free a slot (audit
// `license.deactivate`, actor `customer`). A deleted license answers exactly as an
// unknown key (kNotFound), as everywhere a customer looks.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "admin/admin_operations.h"
#include "admin/list_page.h"
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

// The live license of that key (normalised); kNotFound (subjects::kLicenseKey) when
// unknown or deleted.
Result<License> find_customer_license(StoreTx& tx, std::string_view key);

// A page of a license's history, newest first. A customer can grow their own log without
// end (every activation writes a record), so it is never read whole: a page is one
// index walk from the cursor, as cheap at 300,000 records as at 10.
inline constexpr PageLimits kCustomerAuditPage{20, 100};

// {"licenseKey", "product", "status", "expiresAt", "max", "activationCount",
//  "activations": [{"handle", "machineId" (masked), "name", "activatedAt", "lastSeenAt",
//  "stale"}], "audit": the first page of customer_audit_page}.
Result<boost::json::object> customer_license_view(StoreTx& tx, std::string_view key,
                                                  UnixMillis now);

// {"items": [{"id", "at", "action", "actor", "refresh", "machineId" (masked)}],
//  "nextCursor": "..." | null}: the license's audit records older than the cursor's,
// newest first; vendor-side details (token names, key ids, IPs) stay out. `page` from
// parse_page with kCustomerAuditPage.
Result<boost::json::object> customer_audit_page(StoreTx& tx, std::string_view key,
                                                const PageRequest& page);

// Frees the slot of the machine `handle` names; kNotFound (subjects::kMachineId) when no
// machine has it.
Status customer_free_slot(StoreTx& tx, std::string_view key, std::string_view handle,
                          const AdminContext& ctx);

}  // namespace licensed
