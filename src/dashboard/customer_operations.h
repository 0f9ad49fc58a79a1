// What a customer may do from the dashboard, over the same operations the admin API
// uses: see their license (product, status, expiry, machines with masked ids, who holds a
// concurrent seat and until when, the newest audit records), page back through its history, free a
// slot (audit `license.deactivate`, actor `customer`), and submit offline request and deactivation
// files for their own license (docs/protocol.md §21.2, §21.5). A deleted license answers exactly as
// an unknown key (kNotFound), as everywhere a customer looks.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "admin/admin_operations.h"
#include "admin/list_page.h"
#include "core/operations.h"
#include "core/request_error.h"
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

// A license key as people paste it, made a key again: whitespace anywhere (spaces, tabs,
// line breaks of a wrapped email, no-break and zero-width spaces) and quotes (straight,
// curly, guillemets, backticks, angle brackets) are dropped, dashes a word processor
// made typographic become '-', and letters become lowercase. A key holds none of them,
// so nothing a real key needs is lost.
std::string normalize_pasted_key(std::string_view pasted);

// The live license of that key (normalised); kNotFound (subjects::kLicenseKey) when
// unknown or deleted.
Result<License> find_customer_license(StoreTx& tx, std::string_view key);

// A page of a license's history, newest first. A customer can grow their own log without
// end (every activation writes a record), so it is never read whole: a page is one
// index walk from the cursor, as cheap at 300,000 records as at 10.
inline constexpr PageLimits kCustomerAuditPage{20, 100};

// {"licenseKey", "product", "status", "expiresAt", "max", "activationCount",
//  "activations": [{"handle", "machineId" (masked), "name", "activatedAt", "lastSeenAt",
//  "stale", and for an offline machine "offline": true, "offlineUntil", "deactivatedAt"
//  when deactivated under "expiry"}], "maxConcurrent" (null: no seat cap), "leases": the
//  live leases, earliest end first, [{"machineId" (masked), "name" (the activated
//  machine's, or null), "sessionId" (masked when it is the machine id), "expiresAt",
//  "borrowed"}], "audit": the first page of customer_audit_page}.
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

// An offline file (its signature and age checked already, auth/offline_files.h) submitted
// from the dashboard of license `key`: `req` is its inner body. A file naming another
// license is 404 1703, as for a license that does not exist, so a session learns nothing
// of other licenses. Otherwise offline_activate / offline_deactivate (core/operations.h)
// with actor `customer`: their refusals (1704, 1705, 1707, 1711, 1702 too_old) as they
// are, and the activate answer with the unsigned payload in `activationFile`.
RequestResult<boost::json::object> customer_offline_activate(StoreTx& tx, std::string_view key,
                                                             const LicenseRequest& req,
                                                             OperationContext ctx);
RequestResult<boost::json::object> customer_offline_deactivate(StoreTx& tx, std::string_view key,
                                                               const LicenseRequest& req,
                                                               OperationContext ctx);

// What the page is told of a signed offline_activate answer: {"ok", "activationFile" (the
// armoured file), "expiresAt" (the file's end), "machine": {"machineId" (masked), "name"},
// "activations", "max"}; the full machine id stays off the page, as everywhere.
boost::json::object customer_activation_answer(const boost::json::object& signed_answer);

}  // namespace licensed
