#include "admin/store_json.h"

#include <boost/json/parse.hpp>
#include <charconv>
#include <cmath>

#include "core/timestamp.h"

namespace licensed {

Error store_payload_error(std::string_view member, std::string message) {
  return Error::invalid_argument(member, std::move(message));
}

Result<boost::json::value> parse_store_json(std::string_view body, std::string_view member) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec) return store_payload_error(member, "not JSON");
  return v;
}

Result<const boost::json::object*> object_member(const boost::json::object& o, std::string_view key,
                                                 std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_object()) {
    return store_payload_error(member, std::string(member) + " must be an object");
  }
  return &v->get_object();
}

Result<const boost::json::object*> optional_object_member(const boost::json::object& o,
                                                          std::string_view key,
                                                          std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return static_cast<const boost::json::object*>(nullptr);
  if (!v->is_object()) {
    return store_payload_error(member, std::string(member) + " must be an object or null");
  }
  return &v->get_object();
}

Result<std::string> string_member(const boost::json::object& o, std::string_view key,
                                  std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_string() || v->get_string().empty()) {
    return store_payload_error(member, std::string(member) + " must be a non-empty string");
  }
  return std::string(v->get_string());
}

Result<bool> string_member_is(const boost::json::object& o, std::string_view key,
                              std::string_view path, std::string_view expected) {
  const Result<std::string> value = string_member(o, key, path);
  if (!value.ok()) return value.error();
  return value.value() == expected;
}

Result<std::optional<std::string>> optional_string_member(const boost::json::object& o,
                                                          std::string_view key,
                                                          std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return store_payload_error(member, std::string(member) + " must be a string or null");
  }
  if (v->get_string().empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::string(v->get_string()));
}

Result<std::string> id_member(const boost::json::object& o, std::string_view key,
                              std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v != nullptr && v->is_int64() && v->get_int64() >= 0) {
    return std::to_string(v->get_int64());
  }
  if (v != nullptr && v->is_uint64()) return std::to_string(v->get_uint64());
  return string_member(o, key, member);
}

Result<bool> bool_member(const boost::json::object& o, std::string_view key,
                         std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_bool()) {
    return store_payload_error(member, std::string(member) + " must be a boolean");
  }
  return v->get_bool();
}

Result<int64_t> integer_member(const boost::json::object& o, std::string_view key,
                               std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v != nullptr && v->is_int64()) return v->get_int64();
  if (v != nullptr && v->is_double()) {
    const double d = v->get_double();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      return static_cast<int64_t>(d);
    }
  }
  return store_payload_error(member, std::string(member) + " must be an integer");
}

Result<double> number_member(const boost::json::object& o, std::string_view key,
                             std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v != nullptr && v->is_int64()) return static_cast<double>(v->get_int64());
  if (v != nullptr && v->is_uint64()) return static_cast<double>(v->get_uint64());
  if (v != nullptr && v->is_double() && std::isfinite(v->get_double())) return v->get_double();
  return store_payload_error(member, std::string(member) + " must be a number");
}

Result<int64_t> quantity_member(const boost::json::object& o, std::string_view key,
                                std::string_view member) {
  const auto* v = o.if_contains(key);
  int64_t q = 0;
  bool read = false;
  if (v != nullptr && v->is_int64()) {
    q = v->get_int64();
    read = true;
  } else if (v != nullptr && v->is_string()) {
    const std::string_view s = v->get_string();
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), q);
    read = ec == std::errc() && end == s.data() + s.size() && !s.empty();
  }
  if (!read || q < 1 || q > kMaxUnitsPerLine) {
    return store_payload_error(member, std::string(member) + " must be an integer from 1 to " +
                                           std::to_string(kMaxUnitsPerLine));
  }
  return q;
}

Result<std::optional<UnixMillis>> optional_time_member(const boost::json::object& o,
                                                       std::string_view key,
                                                       std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<UnixMillis>();
  if (v->is_string()) {
    if (const auto t = parse_timestamp(v->get_string())) return std::optional<UnixMillis>(*t);
  }
  return store_payload_error(member, std::string(member) + " must be an RFC 3339 time or null");
}

boost::json::object store_options(const Storefront& store) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(store.options_json, ec);
  if (ec || !v.is_object()) return {};
  return std::move(v.get_object());
}

std::optional<std::string> store_option(const Storefront& store, std::string_view key) {
  const boost::json::object options = store_options(store);
  const auto* v = options.if_contains(key);
  if (v == nullptr || !v->is_string() || v->get_string().empty()) return std::nullopt;
  return std::string(v->get_string());
}

std::string store_api_base(const Storefront& store, std::string_view documented) {
  std::string base = store_option(store, "apiBase").value_or(std::string(documented));
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base;
}

}  // namespace licensed
