// Fuzzes the body validator of docs/protocol.md §4: parse_license_request, and check_body
// (Content-Type, then the body) as the pipeline calls it at step 8.
//
// Byte 0: bits 0-1 the endpoint ('0' activate, '1' heartbeat, '2' status, '3'
// deactivate), unless bit 3 is set ('8', '<'): trial (docs/protocol.md §20); bit 2 set
// ('4'-'7', '<'): the input goes on with a Content-Type line ending in '\n' and
// check_body is called; otherwise the rest is the body.
//
// Invariants, besides crashes, leaks and UB:
// - Every refusal is 400 1702.
// - Nothing Boost.JSON's own DOM parser rejects is accepted, nor is any top level but
//   an object.
// - What is accepted satisfies the spec's rules, checked by spec_rules.h, and holds the
//   values the DOM parser read (the license key lowercased).
// - The DOM value serialized again (duplicate names resolved, escapes normalised) is
//   accepted exactly when spec_rules.h says its members are valid; and when the
//   original was refused although its reserialization is accepted, the refusal names a
//   duplicate member, the one fault the DOM hides.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/request_body.h"
#include "fuzz_checks.h"
#include "http/request_pipeline.h"
#include "spec_rules.h"

namespace licensed::fuzz {
namespace {

namespace json = boost::json;

std::string_view view(const json::string& s) {
  return {s.data(), s.size()};
}

bool is_slug(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (const char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// An email as the trial accepts it: 3-254 code points without control characters or
// spaces, an '@' neither first nor last.
bool is_valid_email(std::string_view s) {
  if (!is_valid_text(s, 3, 254) || s.find(' ') != std::string_view::npos) return false;
  const auto at = s.find('@');
  return at != 0 && at != std::string_view::npos && at + 1 != s.size();
}

bool optional_member_ok(const json::object& o, std::string_view name,
                        bool (*valid)(std::string_view)) {
  const auto* v = o.if_contains(name);
  return v == nullptr || v->is_null() || (v->is_string() && valid(view(v->get_string())));
}

// docs/protocol.md §20's trial body, read from the DOM.
bool spec_accepts_trial(const json::object& o) {
  const auto* product = o.if_contains("product");
  if (product == nullptr || !product->is_string() || !is_slug(view(product->get_string()))) {
    return false;
  }
  const auto* id = o.if_contains("machineId");
  if (id == nullptr || !id->is_string() || !is_valid_machine_id(view(id->get_string()))) {
    return false;
  }
  return optional_member_ok(o, "machineName", &is_valid_machine_name) &&
         optional_member_ok(o, "email", &is_valid_email);
}

// docs/protocol.md §4, read from the DOM: would a body with these members be accepted?
bool spec_accepts(Endpoint endpoint, const json::object& o) {
  if (endpoint == Endpoint::kTrial) return spec_accepts_trial(o);
  const auto* key = o.if_contains("licenseKey");
  if (key == nullptr || !key->is_string() || !is_uuid_v4(view(key->get_string()))) return false;
  const auto* id = o.if_contains("machineId");
  if (id == nullptr || id->is_null()) {
    if (endpoint != Endpoint::kStatus) return false;
  } else if (!id->is_string() || !is_valid_machine_id(view(id->get_string()))) {
    return false;
  }
  if (endpoint == Endpoint::kActivate) {
    const auto* name = o.if_contains("machineName");
    if (name != nullptr && !name->is_null() &&
        (!name->is_string() || !is_valid_machine_name(view(name->get_string())))) {
      return false;
    }
  }
  return true;
}

void check_refusal(const ApiError& e) {
  require(e.code == ErrorCode::kMalformed && e.http_status == 400,
          "a refusal that is not 400 1702");
  const auto* field = e.extra.if_contains("field");
  require(field == nullptr || field->is_string(), "`field` is not a string");
}

void check_accepted_trial(const LicenseRequest& req, const json::object& o) {
  require(req.product == std::string(view(o.at("product").get_string())),
          "accepted product differs from the body's");
  require(req.machine_id == std::string(view(o.at("machineId").get_string())),
          "accepted machineId differs from the body's");
  const auto* email = o.if_contains("email");
  if (email != nullptr && email->is_string()) {
    require(req.email == to_lower_ascii(view(email->get_string())),
            "accepted email is not the body's, lowercased");
  } else {
    require(!req.email, "email accepted from nothing");
  }
}

void check_accepted(Endpoint endpoint, const LicenseRequest& req, const json::object& o) {
  if (endpoint == Endpoint::kTrial) return check_accepted_trial(req, o);
  require(is_uuid_v4(req.license_key) && is_lowercase(req.license_key),
          "accepted licenseKey is not a lowercase UUID v4");
  require(req.license_key == to_lower_ascii(view(o.at("licenseKey").get_string())),
          "accepted licenseKey differs from the body's");

  const auto* id = o.if_contains("machineId");
  if (id != nullptr && id->is_string()) {
    require(req.machine_id == std::string(view(id->get_string())),
            "accepted machineId differs from the body's");
    require(is_valid_machine_id(*req.machine_id), "accepted machineId breaks the rules");
  } else {
    require(!req.machine_id, "machineId accepted from nothing");
    require(endpoint == Endpoint::kStatus, "machineId missing outside status");
  }

  const auto* name = o.if_contains("machineName");
  if (endpoint == Endpoint::kActivate && name != nullptr && name->is_string()) {
    require(req.machine_name == std::string(view(name->get_string())),
            "accepted machineName differs from the body's");
    require(is_valid_machine_name(*req.machine_name), "accepted machineName breaks the rules");
  } else {
    require(!req.machine_name, "machineName accepted where it is absent, null or ignored");
  }
}

// docs/protocol.md §4: only application/json (case-insensitive, parameters aside) is JSON.
bool names_json_media_type(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  return to_lower_ascii(media) == "application/json";
}

bool same(const LicenseRequest& a, const LicenseRequest& b) {
  return a.license_key == b.license_key && a.machine_id == b.machine_id &&
         a.machine_name == b.machine_name && a.product == b.product && a.email == b.email;
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  using namespace licensed::fuzz;
  if (size == 0) return 0;
  const auto endpoint = (data[0] & 8) != 0 ? Endpoint::kTrial : static_cast<Endpoint>(data[0] & 3);
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  ApiResult<LicenseRequest> result = LicenseRequest{};
  bool content_type_ok = true;
  if (data[0] & 4) {
    const size_t nl = body.find('\n');
    const std::string_view content_type = body.substr(0, nl);
    body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    result = check_body(endpoint, content_type, body);
    content_type_ok = is_json_content_type(content_type);
    require(content_type_ok || !result.ok(), "a body accepted under another Content-Type");
    require(!content_type_ok || names_json_media_type(content_type),
            "a Content-Type other than application/json taken for JSON");
  } else {
    result = parse_license_request(endpoint, body);
  }
  if (!result.ok()) check_refusal(result.error());

  boost::json::error_code ec;
  const boost::json::value dom = boost::json::parse(body, ec);
  if (ec || !dom.is_object()) {
    require(!result.ok(), "accepted a body that is not one JSON object");
    return 0;
  }
  const boost::json::object& o = dom.get_object();
  if (result.ok()) check_accepted(endpoint, result.value(), o);

  // The validator on the DOM's own rendering must agree with the spec's rules. Boost
  // 1.81 renders an overflowing number (1e999) as `Infinity`, which is not JSON; such a
  // rendering proves nothing.
  const std::string again = boost::json::serialize(dom);
  (void)boost::json::parse(again, ec);
  if (ec) return 0;
  const auto reparsed = parse_license_request(endpoint, again);
  require(reparsed.ok() == spec_accepts(endpoint, o),
          "the validator and the spec's rules disagree on a reserialized body");
  if (result.ok()) {
    require(reparsed.ok() && same(result.value(), reparsed.value()),
            "a body and its reserialization were read differently");
  } else if (reparsed.ok() && content_type_ok) {
    // Refused, yet the same members without duplicates pass: only a duplicate explains it.
    require(result.error().message.rfind("duplicate member", 0) == 0,
            "a refusal the DOM cannot explain");
  }
  return 0;
}
