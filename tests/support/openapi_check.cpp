#include "support/openapi_check.h"

#include <gtest/gtest.h>

#include <regex>
#include <stdexcept>

namespace bb {
namespace {

const json::value& Resolve(const json::value& document, const json::value& schema) {
  const json::value* ref = schema.is_object() ? schema.as_object().if_contains("$ref") : nullptr;
  if (ref == nullptr) return schema;
  std::string_view pointer = ref->as_string();
  if (pointer.substr(0, 2) != "#/") throw std::runtime_error("unsupported $ref");
  const json::value* at = &document;
  pointer.remove_prefix(2);
  while (!pointer.empty()) {
    const auto slash = pointer.find('/');
    const std::string_view name = pointer.substr(0, slash);
    at = at->as_object().if_contains(name);
    if (at == nullptr) throw std::runtime_error("dangling $ref " + std::string(ref->as_string()));
    pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash + 1);
  }
  return Resolve(document, *at);
}

bool HasType(const json::value& v, std::string_view type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_int64() || v.is_uint64();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_bool();
  if (type == "null") return v.is_null();
  throw std::runtime_error("unknown type " + std::string(type));
}

double Number(const json::value& v) {
  return v.is_int64()    ? static_cast<double>(v.as_int64())
         : v.is_uint64() ? static_cast<double>(v.as_uint64())
                         : v.as_double();
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

void Check(const json::value& document, const json::value& raw_schema, const json::value& v,
           const std::string& where, std::vector<std::string>& errors) {
  const json::value& resolved = Resolve(document, raw_schema);
  if (!resolved.is_object()) return;
  const json::object& s = resolved.as_object();
  auto fail = [&](const std::string& what) { errors.push_back(where + ": " + what); };

  if (const auto* all = s.if_contains("allOf")) {
    for (const auto& sub : all->as_array()) Check(document, sub, v, where, errors);
  }
  if (const auto* one = s.if_contains("oneOf")) {
    int matched = 0;
    for (const auto& sub : one->as_array()) {
      std::vector<std::string> sub_errors;
      Check(document, sub, v, where, sub_errors);
      matched += sub_errors.empty();
    }
    if (matched != 1) fail("matches " + std::to_string(matched) + " of oneOf, not exactly one");
  }
  if (const auto* type = s.if_contains("type")) {
    bool ok = false;
    if (type->is_string()) {
      ok = HasType(v, type->as_string());
    } else {
      for (const auto& t : type->as_array()) ok = ok || HasType(v, t.as_string());
    }
    if (!ok) return fail("is " + Dump(v) + ", not of type " + Dump(*type));
  }
  if (const auto* c = s.if_contains("const"); c != nullptr && *c != v) {
    fail("is " + Dump(v) + ", not " + Dump(*c));
  }
  if (const auto* e = s.if_contains("enum")) {
    bool found = false;
    for (const auto& option : e->as_array()) found = found || option == v;
    if (!found) fail("is " + Dump(v) + ", not one of " + Dump(*e));
  }
  if (v.is_number()) {
    if (const auto* m = s.if_contains("minimum"); m != nullptr && Number(v) < Number(*m)) {
      fail("is below the minimum " + Dump(*m));
    }
    if (const auto* m = s.if_contains("maximum"); m != nullptr && Number(v) > Number(*m)) {
      fail("is above the maximum " + Dump(*m));
    }
  }
  if (v.is_string()) {
    const std::string_view text = v.as_string();
    if (const auto* m = s.if_contains("minLength");
        m != nullptr && CodePoints(text) < static_cast<size_t>(m->as_int64())) {
      fail("is shorter than " + Dump(*m));
    }
    if (const auto* m = s.if_contains("maxLength");
        m != nullptr && CodePoints(text) > static_cast<size_t>(m->as_int64())) {
      fail("is longer than " + Dump(*m));
    }
    if (const auto* p = s.if_contains("pattern")) {
      if (!std::regex_search(std::string(text), std::regex(std::string(p->as_string())))) {
        fail("\"" + std::string(text) + "\" does not match " + Dump(*p));
      }
    }
  }
  if (v.is_object()) {
    const json::object& o = v.as_object();
    if (const auto* required = s.if_contains("required")) {
      for (const auto& name : required->as_array()) {
        if (!o.contains(name.as_string())) fail("lacks required member " + Dump(name));
      }
    }
    if (const auto* properties = s.if_contains("properties")) {
      for (const auto& [name, sub] : properties->as_object()) {
        if (const auto* member = o.if_contains(name)) {
          Check(document, sub, *member, where + "." + std::string(name), errors);
        }
      }
    }
  }
  if (v.is_array()) {
    if (const auto* items = s.if_contains("items")) {
      const json::array& a = v.as_array();
      for (size_t i = 0; i < a.size(); ++i) {
        Check(document, *items, a[i], where + "[" + std::to_string(i) + "]", errors);
      }
    }
  }
}

}  // namespace

std::vector<std::string> SchemaErrors(const json::value& document, const json::value& schema,
                                      const json::value& instance) {
  std::vector<std::string> errors;
  Check(document, schema, instance, "$", errors);
  return errors;
}

std::vector<std::string> DanglingRefs(const json::value& document) {
  std::vector<std::string> dangling;
  std::vector<const json::value*> todo{&document};
  while (!todo.empty()) {
    const json::value* v = todo.back();
    todo.pop_back();
    if (v->is_array()) {
      for (const auto& item : v->as_array()) todo.push_back(&item);
    } else if (v->is_object()) {
      for (const auto& [name, member] : v->as_object()) {
        if (name == "$ref" && member.is_string()) {
          try {
            Resolve(document, *v);
          } catch (const std::exception& e) {
            dangling.push_back(std::string(member.as_string()) + ": " + e.what());
          }
        }
        todo.push_back(&member);
      }
    }
  }
  return dangling;
}

const json::value& ResponseSchema(const json::value& document, std::string_view path,
                                  std::string_view method, int status) {
  const json::value* operation = Find(document, "paths");
  if (operation != nullptr) operation = operation->as_object().if_contains(path);
  if (operation != nullptr) operation = operation->as_object().if_contains(method);
  if (operation == nullptr) {
    throw std::runtime_error("the OpenAPI document has no " + std::string(method) + " " +
                             std::string(path));
  }
  const json::object& responses = operation->at("responses").as_object();
  const json::value* response = responses.if_contains(std::to_string(status));
  if (response == nullptr) response = responses.if_contains("default");
  if (response == nullptr) {
    throw std::runtime_error("the OpenAPI document has no answer " + std::to_string(status) +
                             " for " + std::string(method) + " " + std::string(path));
  }
  return response->at("content").at("application/json").at("schema");
}

void ExpectDocumented(const json::value& document, std::string_view method, std::string_view path,
                      const HttpResponse& r) {
  ASSERT_NE(r.status, 0) << r.error;
  EXPECT_EQ(r.header("Content-Type").value_or(""), "application/json") << r.Describe();
  const json::value body = ParseJson(r.body);
  const json::value& schema = ResponseSchema(document, path, method, r.status);
  for (const std::string& e : SchemaErrors(document, schema, body)) {
    ADD_FAILURE() << method << " " << path << " " << r.status << ": " << e << "\n" << r.Describe();
  }
}

}  // namespace bb
