#include "core/entitlement.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <unordered_set>

#include "core/timestamp.h"

namespace licensed {
namespace {

bool code_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace

bool valid_entitlement_code(std::string_view code) {
  if (code.empty() || code.size() > kMaxEntitlementCodeChars || !alnum(code.front())) return false;
  return std::all_of(code.begin(), code.end(), code_char);
}

bool valid_entitlement_value(const boost::json::value& value) {
  if (!value.is_string() && !value.is_number() && !value.is_bool()) return false;
  return boost::json::serialize(value).size() <= kMaxEntitlementValueBytes;
}

Status check_entitlements(const std::vector<Entitlement>& list, std::string_view field) {
  std::unordered_set<std::string> seen;
  for (const auto& e : list) {
    if (!valid_entitlement_code(e.code)) {
      return Error::invalid_argument(
          field,
          "an entitlement code is 1-64 characters of [a-z0-9._-] starting with a letter "
          "or digit: '" +
              e.code + "'");
    }
    if (e.value_json && e.value_json->size() > kMaxEntitlementValueBytes) {
      return Error::invalid_argument(field,
                                     "the value of entitlement " + e.code + " is over 256 bytes");
    }
    if (!seen.insert(e.code).second) {
      return Error::invalid_argument(field, "entitlement " + e.code + " is given twice");
    }
  }
  return Ok{};
}

bool is_entitlement_active(const Entitlement& e, UnixMillis now) {
  return !e.expires_at || *e.expires_at > now;
}

boost::json::array entitlements_answer_json(std::vector<Entitlement> list, UnixMillis now) {
  std::sort(list.begin(), list.end(),
            [](const Entitlement& a, const Entitlement& b) { return a.code < b.code; });
  boost::json::array out;
  for (const auto& e : list) {
    boost::json::object o;
    o["code"] = e.code;
    o["expiresAt"] = e.expires_at ? boost::json::value(format_timestamp(*e.expires_at))
                                  : boost::json::value(nullptr);
    o["active"] = is_entitlement_active(e, now);
    if (e.value_json) {
      boost::system::error_code ec;
      auto v = boost::json::parse(*e.value_json, ec);
      if (!ec) o["value"] = std::move(v);
    }
    out.push_back(std::move(o));
  }
  return out;
}

boost::json::array entitlements_record_json(std::vector<Entitlement> list) {
  boost::json::array out = entitlements_answer_json(std::move(list), 0);
  for (auto& v : out) v.as_object().erase("active");
  return out;
}

std::string entitlements_to_store(const std::vector<Entitlement>& list) {
  boost::json::array out;
  for (const auto& e : list) {
    boost::json::object o;
    o["code"] = e.code;
    o["expiresAt"] = e.expires_at ? boost::json::value(*e.expires_at) : boost::json::value(nullptr);
    if (e.value_json) o["value"] = *e.value_json;
    if (e.pending_seconds) o["pendingSeconds"] = *e.pending_seconds;
    out.push_back(std::move(o));
  }
  return boost::json::serialize(out);
}

Result<std::vector<Entitlement>> entitlements_from_store(std::string_view text) {
  std::vector<Entitlement> out;
  if (text.empty()) return out;
  boost::system::error_code ec;
  const auto v = boost::json::parse(text, ec);
  if (ec || !v.is_array()) return Error::internal("read entitlements: not a JSON array");
  for (const auto& item : v.as_array()) {
    const auto* o = item.if_object();
    if (o == nullptr || !o->contains("code") || !o->at("code").is_string()) {
      return Error::internal("read entitlements: an entry without a code");
    }
    Entitlement e;
    e.code = std::string(o->at("code").as_string());
    if (const auto* t = o->if_contains("expiresAt"); t != nullptr && t->is_int64()) {
      e.expires_at = t->as_int64();
    }
    if (const auto* val = o->if_contains("value"); val != nullptr && val->is_string()) {
      e.value_json = std::string(val->as_string());
    }
    if (const auto* p = o->if_contains("pendingSeconds"); p != nullptr && p->is_int64()) {
      e.pending_seconds = p->as_int64();
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace licensed
