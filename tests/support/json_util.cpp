#include "support/json_util.h"

#include <gtest/gtest.h>

#include <cctype>
#include <stdexcept>

namespace bb {

json::value ParseJson(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) {
    throw std::runtime_error("not JSON (" + ec.message() +
                             "): " + std::string(text.substr(0, 2000)));
  }
  return v;
}

std::string Dump(const json::value& v) {
  return json::serialize(v);
}

const json::value* Find(const json::value& v, std::string_view path) {
  const json::value* cur = &v;
  while (!path.empty()) {
    const auto dot = path.find('.');
    const std::string_view name = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    const json::object* obj = cur->if_object();
    if (obj == nullptr) return nullptr;
    const auto it = obj->find(name);
    if (it == obj->end()) return nullptr;
    cur = &it->value();
  }
  return cur;
}

const json::value& At(const json::value& v, std::string_view path) {
  const json::value* found = Find(v, path);
  if (found == nullptr) {
    throw std::runtime_error("no member '" + std::string(path) + "' in " + Dump(v));
  }
  return *found;
}

bool Has(const json::value& v, std::string_view path) {
  return Find(v, path) != nullptr;
}

bool IsNull(const json::value& v, std::string_view path) {
  const json::value* found = Find(v, path);
  return found != nullptr && found->is_null();
}

std::string Str(const json::value& v, std::string_view path) {
  const json::value& m = At(v, path);
  if (!m.is_string()) {
    throw std::runtime_error("member '" + std::string(path) + "' is not a string in " + Dump(v));
  }
  return std::string(m.get_string());
}

std::int64_t Int(const json::value& v, std::string_view path) {
  const json::value& m = At(v, path);
  if (m.is_int64()) return m.get_int64();
  if (m.is_uint64()) return static_cast<std::int64_t>(m.get_uint64());
  throw std::runtime_error("member '" + std::string(path) + "' is not an integer in " + Dump(v));
}

bool Bool(const json::value& v, std::string_view path) {
  const json::value& m = At(v, path);
  if (!m.is_bool()) {
    throw std::runtime_error("member '" + std::string(path) + "' is not a boolean in " + Dump(v));
  }
  return m.get_bool();
}

const json::array& Arr(const json::value& v, std::string_view path) {
  const json::value& m = path.empty() ? v : At(v, path);
  if (!m.is_array()) {
    throw std::runtime_error("'" + std::string(path) + "' is not an array in " + Dump(v));
  }
  return m.get_array();
}

std::string DumpWithout(const json::value& v, std::initializer_list<std::string_view> drop) {
  if (!v.is_object()) return Dump(v);
  json::object copy = v.get_object();
  for (auto name : drop) copy.erase(name);
  return json::serialize(copy);
}

bool MatchesShape(std::string_view text, std::string_view pattern) {
  if (text.size() != pattern.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (pattern[i]) {
      case '9':
        if (c < '0' || c > '9') return false;
        break;
      case 'x':
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
        break;
      default:
        if (c != pattern[i]) return false;
    }
  }
  return true;
}

bool IsTimestamp(std::string_view text) {
  return MatchesShape(text, "9999-99-99T99:99:99.999Z");
}

bool IsLowercaseUuidV4(std::string_view text) {
  return MatchesShape(text, "xxxxxxxx-xxxx-4xxx-xxxx-xxxxxxxxxxxx") &&
         std::string_view("89ab").find(text[19]) != std::string_view::npos;
}

void ExpectSignInLink(std::string_view dashboard_url, std::string_view configured) {
  const std::string prefix = std::string(configured) + "#signin=";
  ASSERT_TRUE(dashboard_url.starts_with(prefix)) << dashboard_url;
  const std::string_view token = dashboard_url.substr(prefix.size());
  EXPECT_EQ(token.size(), 43u) << dashboard_url;
  for (const char c : token) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')
        << dashboard_url;
  }
}

}  // namespace bb
