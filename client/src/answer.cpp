#include "answer.h"

#include <boost/json.hpp>

#include "core/timestamp.h"
#include "json_members.h"

namespace licensed::client {

namespace json = boost::json;

namespace {

Outcome outcome_of_code(int code) {
  switch (code) {
    case 1703:
    case 1704:
    case 1707:
    case 1712:  // this email already had a trial of the product
      return Outcome::kNotUsable;
    case 1705:
    case 1710:  // every concurrent seat is taken (docs/protocol.md §27)
      return Outcome::kLimitReached;
    case 1706:
    case 1708:
    case 1709:
      return Outcome::kUnavailable;
    default:
      return Outcome::kRefused;
  }
}

std::optional<json::object> object_of(const std::string& body) {
  json::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

// A timestamp member as Unix seconds: nullopt for null or absent (`present` tells which),
// or for text that does not parse (then `bad` is set).
std::optional<int64_t> time_member(const json::object& o, std::string_view name, bool& present,
                                   bool& bad) {
  const json::value* v = o.if_contains(name);
  present = v != nullptr;
  if (v == nullptr || v->is_null()) return std::nullopt;
  const auto ms = v->is_string() ? parse_timestamp(std::string(v->as_string())) : std::nullopt;
  if (!ms) bad = true;
  return ms ? std::optional<int64_t>(unix_seconds(*ms)) : std::nullopt;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// The license itself cannot be used: its effective status says why.
std::string inactive_text(const std::optional<std::string>& status) {
  if (status == "EXPIRED") return "this license has expired: renew it to go on using the plugin";
  if (!status) return "this license cannot be used";
  return "this license is " + lower(*status) + ": it cannot be used (contact the vendor)";
}

// status answered valid:false: the license, this computer's activation or the product.
std::string invalid_text(const Answer& a) {
  if (a.license_status && *a.license_status != "ACTIVE") return inactive_text(a.license_status);
  const auto o = object_of(a.body);
  const json::value* machine = o ? o->if_contains("machine") : nullptr;
  const json::value* activated =
      machine && machine->is_object() ? machine->as_object().if_contains("activated") : nullptr;
  if (activated && activated->is_bool() && !activated->as_bool()) {
    return "this computer is not activated: activate it";
  }
  return "this license is not valid on this computer";
}

std::string not_usable_text(const Answer& a) {
  switch (a.code) {
    case 1703:
      return "this license key is not known to the license server: check the key";
    case 1704:
      return inactive_text(a.license_status);
    case 1707:
      return "this computer is not activated: activate it";
    default:
      return invalid_text(a);
  }
}

std::string limit_text(const Answer& a) {
  std::string text = "this license is activated on as many computers as it allows";
  if (a.activations && a.max) {
    text += " (" + std::to_string(*a.activations) + " of " + std::to_string(*a.max) + ")";
  }
  text += ": deactivate one";
  if (a.dashboard_url) text += " at " + *a.dashboard_url;
  return text;
}

std::string unavailable_text(const Answer& a) {
  if (a.code == 1706) {
    return "the license server asks to wait " + std::to_string(a.retry_after_seconds) +
           " s before the next request: try again later";
  }
  if (a.code == 1708 || a.http_status == 503) return "the license server is busy: try again later";
  if (a.code == 1709 || a.http_status == 500) {
    return "the license server had an internal error: try again later";
  }
  if (a.http_status == 502 || a.http_status == 504) {
    return "a proxy could not reach the license server (HTTP " + std::to_string(a.http_status) +
           "): try again later";
  }
  // NETWORK, BAD_ANSWER, CANCELLED, NO_ANSWER_YET, PINNED_KEY_MISMATCH: the SDK's own text.
  if (!a.message.empty()) return a.message;
  return "the license server could not be reached: check the internet connection";
}

std::string refused_text(const Answer& a) {
  std::string text;
  switch (a.code) {
    case 1700:
      text =
          "the license server refused the plugin's request as wrongly signed: the plugin's "
          "key id or secret does not match the server (a build or configuration error)";
      break;
    case 1701:
      text = "this computer's clock is far from the license server's: set the clock right";
      break;
    case 1702:
      text =
          "the license server refused the plugin's request as malformed (a build or "
          "configuration error)";
      break;
    default:
      text = "the license server refused the request (HTTP " + std::to_string(a.http_status) + ")";
  }
  // The server's own words help whoever configured the plugin.
  if (!a.server_message.empty()) text += ": " + a.server_message;
  return text;
}

std::vector<EntitlementInfo> entitlements_of(const json::object& o) {
  std::vector<EntitlementInfo> out;
  const json::value* list = o.if_contains("entitlements");
  if (list == nullptr || !list->is_array()) return out;
  for (const json::value& item : list->as_array()) {
    if (!item.is_object()) continue;
    const json::object& e = item.as_object();
    const json::value* code = e.if_contains("code");
    if (code == nullptr || !code->is_string()) continue;
    EntitlementInfo info;
    info.code = std::string(code->as_string());
    bool present = false;
    bool bad = false;
    info.expires_at = time_member(e, "expiresAt", present, bad);
    if (bad) continue;  // an expiry that does not parse is no grant
    const json::value* active = e.if_contains("active");
    info.active = active != nullptr && active->is_bool() && active->as_bool();
    if (const json::value* v = e.if_contains("value"); v != nullptr && !v->is_null()) {
      info.value = json::serialize(*v);
    }
    out.push_back(std::move(info));
  }
  return out;
}

// The 200 answer's grant: entitlements, the license it names, and whether it is a trial.
void read_grant(Answer& a, const json::object& o) {
  a.entitlements = entitlements_of(o);
  a.license_key = string_member(o, "licenseKey").value_or("");
  const json::value* trial = o.if_contains("trial");
  a.trial = trial != nullptr && trial->is_bool() && trial->as_bool();
  bool present = false;
  bool bad = false;
  a.expires_at = time_member(o, "expiresAt", present, bad);
}

}  // namespace

bool Answer::has_entitlement(std::string_view code) const {
  for (const auto& e : entitlements) {
    if (e.code == code) return e.active;
  }
  return false;
}

bool Answer::allowed_for_build(std::string_view code, int64_t build_date) const {
  for (const auto& e : entitlements) {
    if (e.code == code) return !e.expires_at || *e.expires_at >= build_date;
  }
  return false;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kUsage:
      return "usage";
    case Outcome::kNotUsable:
      return "not_usable";
    case Outcome::kLimitReached:
      return "limit_reached";
    case Outcome::kUnavailable:
      return "unavailable";
    case Outcome::kRefused:
      return "refused";
  }
  return "unknown";
}

const char* source_name(Source s) {
  switch (s) {
    case Source::kNone:
      return "none";
    case Source::kNetwork:
      return "network";
    case Source::kCache:
      return "cache";
    case Source::kOffline:
      return "offline";
    case Source::kLease:
      return "lease";
  }
  return "none";
}

bool is_transient_status(int status) {
  return status == 0 || status == 500 || status == 502 || status == 503 || status == 504;
}

Answer classify_answer(int http_status, const std::string& body, bool status_endpoint) {
  Answer a;
  a.http_status = http_status;
  a.body = body;
  const auto o = object_of(body);
  if (o) {
    a.code = static_cast<int>(int_member(*o, "code").value_or(0));
    a.error = string_member(*o, "error").value_or("");
    a.message = string_member(*o, "message").value_or("");
    a.server_message = a.message;
    a.activations = int_member(*o, "activations");
    a.max = int_member(*o, "max");
    a.dashboard_url = string_member(*o, "dashboardUrl");
    a.license_status = string_member(*o, "status");
    a.retry_after_seconds = int_member(*o, "retryAfter").value_or(0);
    if (const json::value* valid = o->if_contains("valid"); valid && valid->is_bool()) {
      a.valid = valid->as_bool();
    }
  }
  if (http_status == 200 && o) {
    a.outcome = status_endpoint && !a.valid ? Outcome::kNotUsable : Outcome::kOk;
    read_grant(a, *o);
  } else if (http_status == 200) {
    a.outcome = Outcome::kUnavailable;
    a.error = "BAD_ANSWER";
    a.message = "the license server's answer could not be read (not a JSON object)";
  } else if (a.code != 0) {
    a.outcome = outcome_of_code(a.code);
  } else {
    a.outcome = is_transient_status(http_status) ? Outcome::kUnavailable : Outcome::kRefused;
    if (a.error.empty()) a.error = "HTTP_" + std::to_string(http_status);
  }
  return a;
}

std::optional<int64_t> offline_until(const std::string& body, int64_t signed_at,
                                     std::chrono::seconds grace) {
  const auto o = object_of(body);
  if (!o) return std::nullopt;
  bool has_valid_until = false;
  bool has_expiry = false;
  bool bad = false;
  const auto valid_until = time_member(*o, "validUntil", has_valid_until, bad);
  const auto expires_at = time_member(*o, "expiresAt", has_expiry, bad);
  if (bad || (has_valid_until && !valid_until)) return std::nullopt;
  int64_t until = valid_until ? *valid_until : signed_at + grace.count();
  if (expires_at) until = std::min(until, *expires_at);
  return until;
}

void explain(Answer& a) {
  switch (a.outcome) {
    case Outcome::kOk:
      return;
    case Outcome::kUsage:
      if (a.error.empty()) a.error = "CONFIGURATION";
      return;
    case Outcome::kNotUsable:
      a.message = not_usable_text(a);
      if (a.error.empty()) a.error = a.http_status == 200 ? "NOT_VALID" : "NOT_USABLE";
      return;
    case Outcome::kLimitReached:
      a.message = limit_text(a);
      return;
    case Outcome::kUnavailable:
      a.message = unavailable_text(a);
      if (a.error.empty()) a.error = "NETWORK";
      return;
    case Outcome::kRefused:
      a.message = refused_text(a);
      if (a.error.empty()) a.error = "REFUSED";
      return;
  }
}

}  // namespace licensed::client
