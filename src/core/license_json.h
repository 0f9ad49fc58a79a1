// JSON shapes shared by the API answers and the admin command line.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <vector>

#include "core/license.h"

namespace licensed {

boost::json::value optional_timestamp_json(const std::optional<UnixMillis>& t);
boost::json::value optional_int_json(const std::optional<int64_t>& v);
boost::json::object product_json(const Product& product);
// docs/protocol.md §7's `machine` object: id, name, activatedAt, lastSeenAt.
boost::json::object machine_json(const Activation& activation);
// docs/protocol.md §6 fields plus createdAt and deletedAt, as `license show --json` prints them.
boost::json::object license_json(const License& license, UnixMillis now);
boost::json::object audit_json(const AuditEntry& entry);

}  // namespace licensed
