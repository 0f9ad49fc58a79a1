// Typed optional reads of a JSON object's members, for answers and cache files whose
// shape the SDK checks rather than trusts.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace licensed::client {

inline std::optional<std::string> string_member(const boost::json::object& o,
                                                std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->as_string());
}

inline std::optional<int64_t> int_member(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return v->as_int64();
}

}  // namespace licensed::client
