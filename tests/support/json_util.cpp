#include "support/json_util.h"

#include <regex>
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

bool IsTimestamp(std::string_view text) {
  static const std::regex kRe(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  return std::regex_match(text.begin(), text.end(), kRe);
}

}  // namespace bb
