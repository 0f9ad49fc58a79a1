// Entitlements (docs/protocol.md §19): what a license grants beyond being valid, each
// `{"code", "expiresAt", "value"?}`. The rules every surface checks them by, and their
// JSON in answers (sorted by code, with `active`) and in the store (a JSON array kept on
// the license row).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

namespace licensed {

struct Entitlement {
  std::string code;
  std::optional<UnixMillis> expires_at;  // null: never expires
  // The value as serialised JSON (a string, number or boolean), at most 256 bytes.
  std::optional<std::string> value_json;
  // Set by a plan valid from the first activation: expires_at is set to the first
  // activation plus this many seconds (and this is cleared) then.
  std::optional<int64_t> pending_seconds;
};

inline constexpr size_t kMaxEntitlementValueBytes = 256;
inline constexpr size_t kMaxEntitlementCodeChars = 64;

// 1-64 characters of [a-z0-9._-], the first a letter or digit.
bool valid_entitlement_code(std::string_view code);
// A JSON string, number or boolean of at most kMaxEntitlementValueBytes serialised bytes.
bool valid_entitlement_value(const boost::json::value& value);
// The list's rules: each code in grammar, each value valid, no code twice. kInvalidArgument
// with `field` (e.g. "entitlements") naming what is wrong.
Status check_entitlements(const std::vector<Entitlement>& list, std::string_view field);

bool is_entitlement_active(const Entitlement& e, UnixMillis now);
// The answers' list: sorted by code, each {"code", "expiresAt", "active", "value"?}.
boost::json::array entitlements_answer_json(std::vector<Entitlement> list, UnixMillis now);

// As audit records and admin views keep it: sorted by code, {"code", "expiresAt", "value"?}.
boost::json::array entitlements_record_json(std::vector<Entitlement> list);

// The store's form: a JSON array of {"code", "expiresAt" (ms or null), "value"?,
// "pendingSeconds"?}; read back with entitlements_from_store.
std::string entitlements_to_store(const std::vector<Entitlement>& list);
Result<std::vector<Entitlement>> entitlements_from_store(std::string_view text);

}  // namespace licensed
