// The admin API's calls for the support console (docs/protocol.md §26): a license's
// refused requests, and the vendor overview's figures under /api/v1/admin/stats/. Each
// runs inside the caller's store transaction, like the rest of src/admin/admin_api.h.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "admin/admin_api.h"

namespace licensed {

// GET /api/v1/admin/licenses/{key}/refusals: newest first, paged by id.
RequestResult<AdminAnswer> list_refusals_call(StoreTx& tx, const AdminCall& call,
                                              const AdminContext& ctx);

// GET /api/v1/admin/stats/...: the figure kStats* names.
RequestResult<AdminAnswer> stats_call(StoreTx& tx, const AdminCall& call, const AdminContext& ctx);

// The query names a route takes; any other is refused (1702 naming it), so a filter a
// client misspells is never silently ignored. nullopt: the route's query is not checked
// (the routes that were there before the support console; they read only what they know).
std::optional<std::vector<std::string_view>> known_query_names(AdminRoute route);

}  // namespace licensed
