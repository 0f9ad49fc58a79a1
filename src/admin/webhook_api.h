// The admin API's webhook routes (docs/protocol.md §25) without the HTTP: endpoints, their secrets
// and their deliveries, as JSON answers over webhook_operations.h.
#pragma once

#include "admin/admin_api.h"

namespace licensed {

RequestResult<AdminAnswer> webhook_call(StoreTx& tx, const AdminCall& call,
                                        const AdminContext& ctx);

}  // namespace licensed
