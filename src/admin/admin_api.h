// The admin HTTP API of docs/protocol.md §18 without the HTTP: a call (which route, its path
// parameters, query and body) runs inside one store transaction over the admin
// operations and gives a status and a JSON answer. The handler in
// src/http/admin_api_handler.* only routes, authenticates and carries bytes.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "admin/admin_leases.h"
#include "admin/admin_offline.h"
#include "admin/admin_operations.h"
#include "admin/list_page.h"
#include "core/operations.h"
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
  kListWebhooks,         // docs/protocol.md §25: webhook endpoints
  kCreateWebhook,
  kGetWebhook,
  kPatchWebhook,
  kDeleteWebhook,
  kRotateWebhookSecret,
  kListWebhookDeliveries,
  kRetryWebhookDelivery,
  // docs/protocol.md §21.7 and §21.5: a request (deactivation) file submitted by support.
  kOfflineActivation,
  kOfflineDeactivation,
  // docs/protocol.md §26: the support console. The token's own name and rights (so the
  // console hides what a read-only token may not do), a license's refused requests, and
  // the vendor overview's figures under /api/v1/admin/stats/.
  kTokenInfo,
  kListRefusals,
  kStatsLicenses,
  kStatsActivations,
  kStatsRefusals,
  kStatsTrials,
  kStatsNearestCap,
  // docs/protocol.md §27: a license's live leases, and releasing one.
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
  std::string webhook_id;                                  // path parameter, percent-decoded
  std::string event_id;                                    // path parameter, percent-decoded
  std::string session_id;                                  // path parameter, percent-decoded
  std::vector<std::pair<std::string, std::string>> query;  // percent-decoded
  std::string body;                                        // JSON for POST and PATCH
  // The server's public address (--public-url) a new store's inboundUrl starts with;
  // empty: inboundUrl is a path.
  std::string public_url;
  // How a webhook endpoint's URL is checked before it is kept (webhook_operations.h);
  // empty: not checked here (the dispatcher still checks when it connects).
  std::function<Status(std::string_view url)> check_webhook_url;
  // The keys an offline file is checked and its activation file signed with; null: the
  // offline routes answer 500 (the server always sets it).
  const OfflineSubmission* offline = nullptr;
  // The HMAC trials keep machines by, for the overview's converted trials; null: none
  // counts as converted.
  const TrialIdentity* trial_identity = nullptr;
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
// The page `limit` and `cursor` of the call's query ask for.
Result<PageRequest> admin_page_of(const AdminCall& call);

RequestResult<AdminAnswer> run_admin_call(StoreTx& tx, const AdminCall& call,
                                          const AdminContext& ctx);

}  // namespace licensed
