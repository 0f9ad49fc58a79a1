// The admin HTTP API of docs/protocol.md §18 without the HTTP: a call (which route, its path
// parameters, query and body) runs inside one store transaction over the admin
// operations and gives a status and a JSON answer. The handler in
// src/http/admin_api_handler.* only routes, authenticates and carries bytes.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <utility>
#include <vector>

#include "admin/admin_leases.h"
#include "admin/admin_offline.h"
#include "admin/admin_operations.h"
#include "core/request_error.h"
#include "store/store_tx.h"

namespace licensed {

enum class AdminRoute {
  kListProducts,
  kCreateProduct,
  kListLicenses,
  kCreateLicense,
  kGetLicense,
  kPatchLicense,
  kDeleteLicense,
  kRestoreLicense,
  kListActivations,
  kRemoveActivation,
  kListAudit,
  kGetProduct,
  kPatchProduct,
  kListPlans,
  kCreatePlan,
  kGetPlan,
  kPatchPlan,
  kDeletePlan,
  kListStores,  // docs/protocol.md §22.1: the stores a vendor sells through
  kCreateStore,
  kGetStore,
  kPatchStore,
  kDeleteStore,
  kListStoreRejections,  // docs/protocol.md §22.8: the store's store.rejected audit records
  // docs/protocol.md §21.7 and §21.5: a request (deactivation) file submitted by support.
  kOfflineActivation,
  kOfflineDeactivation,
  // docs/protocol.md §25: a license's live leases, and releasing one.
  kListLeases,
  kReleaseLease,
};

// True for the routes that change data: a read-only token may not call them.
bool changes_data(AdminRoute route);

struct AdminCall {
  AdminRoute route = AdminRoute::kListProducts;
  std::string license_key;                                 // path parameter, percent-decoded
  std::string machine_id;                                  // path parameter, percent-decoded
  std::string product_slug;                                // path parameter, percent-decoded
  std::string plan_code;                                   // path parameter, percent-decoded
  std::string store_id;                                    // path parameter, percent-decoded
  std::string session_id;                                  // path parameter, percent-decoded
  std::vector<std::pair<std::string, std::string>> query;  // percent-decoded
  std::string body;                                        // JSON for POST and PATCH
  // The server's public address (--public-url) a new store's inboundUrl starts with;
  // empty: inboundUrl is a path.
  std::string public_url;
  // The keys an offline file is checked and its activation file signed with; null: the
  // offline routes answer 500 (the server always sets it).
  const OfflineSubmission* offline = nullptr;
};

struct AdminAnswer {
  unsigned status = 200;
  boost::json::object body;
};

// Lists are pages: `limit` (default 50, 1-500) and `cursor` (opaque, from the previous
// page's nextCursor) in, {"items": [...], "nextCursor": "..." | null} out.
inline constexpr int64_t kDefaultPageLimit = 50;
inline constexpr int64_t kMaxPageLimit = 500;

// What is wrong with the call itself is answered here, as an ApiError in the
// docs/protocol.md §5 shape: 1702 (with `field`) for a bad body, query or cursor. What the
// admin operations refuse (an unknown license key or machine, a taken slug) and what the
// store fails comes back as an internal Error, for to_admin_api_error to translate.
RequestResult<AdminAnswer> run_admin_call(StoreTx& tx, const AdminCall& call,
                                          const AdminContext& ctx);

}  // namespace licensed
