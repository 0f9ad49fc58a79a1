// Support's view of concurrent seats (docs/protocol.md §27): a license's seat fields
// (maxConcurrent, leaseTtl, maxBorrow), its live leases, and releasing one at once, borrowed
// leases too (audit `license.checkin`, actor admin). Shared by the admin API and the CLI.
#pragma once

#include <boost/json/array.hpp>
#include <cstdint>
#include <optional>
#include <string_view>

#include "admin/admin_operations.h"
#include "store/store_tx.h"

namespace licensed {

enum class SeatField { kMaxConcurrent, kLeaseTtl, kMaxBorrow };
// "maxConcurrent", "leaseTtl", "maxBorrow".
std::string_view seat_field_name(SeatField field);
// kInvalidArgument naming the field unless maxConcurrent >= 1, leaseTtl >= 60 s, maxBorrow > 0
// (nullopt is always fine: no cap, the default 15m, no borrowing).
Status check_seat_field(SeatField field, const std::optional<int64_t>& value);
// Sets one, audited as license.update with its `changes`.
Result<License> set_license_seat_field(StoreTx& tx, std::string_view key, SeatField field,
                                       std::optional<int64_t> value, const AdminContext& ctx);
// The live leases, each {"machineId", "sessionId", "expiresAt", "borrowed"}, earliest end
// first; deleted licenses too.
Result<boost::json::array> list_license_leases(StoreTx& tx, std::string_view key, UnixMillis now);
// Releases the live lease now (audit license.checkin with the context's actor); kNotFound
// (subjects::kMachineId: 1707 on the admin API) when there is no such live lease.
Status release_lease(StoreTx& tx, std::string_view key, std::string_view machine_id,
                     std::string_view session_id, const AdminContext& ctx);

}  // namespace licensed
