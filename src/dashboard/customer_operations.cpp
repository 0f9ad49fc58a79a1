#include "dashboard/customer_operations.h"

#include <span>
#include <vector>

#include "admin/admin_leases.h"
#include "auth/request_signature.h"
#include "core/license_json.h"

namespace licensed {
namespace {

namespace json = boost::json;

// Byte offsets where each UTF-8 code point starts (the id was checked as UTF-8 when
// it was activated), so masking never cuts one in half.
std::vector<size_t> code_point_starts(std::string_view s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  return starts;
}

// The audit as a customer sees it: what happened to which (masked) machine, by whom;
// vendor-side details (token names, signing key ids, request ids) stay out.
json::object customer_audit_json(const AuditEntry& entry) {
  const json::object record = audit_json(entry);
  json::object o;
  for (const char* name : {"id", "at", "action", "actor", "refresh", "offline"}) {
    if (const auto* v = record.if_contains(name)) o[name] = *v;
  }
  if (const auto* m = record.if_contains("machineId"); m != nullptr && m->is_string()) {
    o["machineId"] = mask_machine_id(m->as_string());
  }
  return o;
}

// A page of the history of a license already found live.
Result<json::object> audit_page(StoreTx& tx, const License& l, const PageRequest& page) {
  ASSIGN_OR_RETURN(const int64_t before, after_id(page));
  ASSIGN_OR_RETURN(std::vector<AuditEntry> rows,
                   tx.list_audit(l.key, AuditOrder::kNewestFirst, before, page.limit + 1));
  return page_json(std::move(rows), page.limit, customer_audit_json,
                   [](const AuditEntry& e) { return std::to_string(e.id); });
}

// The code points normalize_pasted_key drops (besides ASCII whitespace and quotes), and
// those it reads as '-', in UTF-8.
constexpr std::string_view kDropped[] = {"\u00A0", "\u2007", "\u202F", "\u200B", "\u200C",
                                         "\u200D", "\u2060", "\uFEFF", "\u201C", "\u201D",
                                         "\u201E", "\u2018", "\u2019", "\u201A", "\u00AB",
                                         "\u00BB", "\u2039", "\u203A", "\u3000"};
constexpr std::string_view kDashes[] = {"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2212"};

bool starts_with_any(std::string_view s, std::span<const std::string_view> set, size_t& length) {
  for (const std::string_view c : set) {
    if (s.starts_with(c)) {
      length = c.size();
      return true;
    }
  }
  return false;
}

// The live leases as a customer sees them: the machine masked and named as its activation
// is, the session masked too when it is the machine id (the default session), since a full
// machine id never reaches the page.
json::array customer_leases_json(const json::array& leases, const json::array& activations) {
  json::array out;
  for (const json::value& v : leases) {
    const json::object& lease = v.as_object();
    const std::string_view machine = lease.at("machineId").as_string();
    const std::string_view session = lease.at("sessionId").as_string();
    json::value name = nullptr;
    for (const json::value& a : activations) {
      const json::object& m = a.as_object();
      if (m.at("id").as_string() == machine && !m.contains("deactivatedAt")) name = m.at("name");
    }
    out.push_back(json::object{
        {"machineId", mask_machine_id(machine)},
        {"name", name},
        {"sessionId", session == machine ? mask_machine_id(session) : std::string(session)},
        {"expiresAt", lease.at("expiresAt")},
        {"borrowed", lease.at("borrowed")}});
  }
  return out;
}

}  // namespace

std::string normalize_pasted_key(std::string_view pasted) {
  std::string key;
  key.reserve(pasted.size());
  while (!pasted.empty()) {
    size_t length = 1;
    const char c = pasted.front();
    if (starts_with_any(pasted, kDashes, length)) {
      key += '-';
    } else if (starts_with_any(pasted, kDropped, length) ||
               std::string_view(" \t\r\n\v\f\"'`<>").find(c) != std::string_view::npos) {
      // dropped
    } else {
      key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    pasted.remove_prefix(length);
  }
  return key;
}

std::string mask_machine_id(std::string_view id) {
  const std::vector<size_t> starts = code_point_starts(id);
  const size_t n = starts.size();
  if (n <= 8) return std::string(id.substr(0, n > 2 ? starts[2] : id.size())) + "\u2026";
  return std::string(id.substr(0, starts[4])) + "\u2026" + std::string(id.substr(starts[n - 4]));
}

std::string machine_handle(std::string_view machine_id) {
  return sha256_hex(machine_id).substr(0, 32);
}

Result<License> find_customer_license(StoreTx& tx, std::string_view key) {
  ASSIGN_OR_RETURN(License l, find_any_license(tx, key));
  if (l.deleted_at)
    return Error::not_found(subjects::kLicenseKey, "license " + l.key + " is deleted");
  return l;
}

Result<json::object> customer_license_view(StoreTx& tx, std::string_view key, UnixMillis now) {
  ASSIGN_OR_RETURN(const License l, find_customer_license(tx, key));
  ASSIGN_OR_RETURN(json::object shown, show_license(tx, l.key, now));
  ASSIGN_OR_RETURN(json::object audit,
                   audit_page(tx, l, PageRequest{kCustomerAuditPage.default_limit, std::nullopt}));
  ASSIGN_OR_RETURN(const json::array leases, list_license_leases(tx, l.key, now));
  json::object view;
  for (const char* name : {"licenseKey", "product", "status", "expiresAt", "max", "activationCount",
                           "plan", "entitlements", "trial", "maxConcurrent"}) {
    view[name] = shown[name];
  }
  json::array machines;
  for (const json::value& v : shown["activations"].as_array()) {
    const json::object& a = v.as_object();
    const std::string_view id = a.at("id").as_string();
    machines.push_back(json::object{{"handle", machine_handle(id)},
                                    {"machineId", mask_machine_id(id)},
                                    {"name", a.at("name")},
                                    {"activatedAt", a.at("activatedAt")},
                                    {"lastSeenAt", a.at("lastSeenAt")},
                                    {"stale", a.at("stale")}});
    json::object& shown_machine = machines.back().as_object();
    for (const char* name : {"offline", "offlineUntil", "deactivatedAt"}) {
      if (const auto* v = a.if_contains(name)) shown_machine[name] = *v;
    }
  }
  view["activations"] = std::move(machines);
  view["leases"] = customer_leases_json(leases, shown["activations"].as_array());
  view["audit"] = std::move(audit);
  return view;
}

Result<json::object> customer_audit_page(StoreTx& tx, std::string_view key,
                                         const PageRequest& page) {
  ASSIGN_OR_RETURN(const License l, find_customer_license(tx, key));
  return audit_page(tx, l, page);
}

Status customer_free_slot(StoreTx& tx, std::string_view key, std::string_view handle,
                          const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License l, find_customer_license(tx, key));
  ASSIGN_OR_RETURN(const auto activations, tx.list_activations(l.id));
  for (const Activation& a : activations) {
    if (machine_handle(a.machine_id) == handle) {
      return remove_activation(tx, l.key, a.machine_id, ctx);
    }
  }
  return Error::not_found(subjects::kMachineId,
                          "no machine of license " + l.key + " has that handle");
}

namespace {

// The session's license must be the one the file names (1703 otherwise), checked before
// the operation locks anything.
RequestResult<Ok> check_file_license(StoreTx& tx, std::string_view key, const LicenseRequest& req) {
  // The session's own license gone is a sign-in problem (to_dashboard_error), as elsewhere.
  auto l = find_customer_license(tx, key);
  if (!l.ok()) return RequestError(std::move(l.error()));
  if (req.license_key != l.value().key) {
    ApiError e = errors::not_found();
    e.message = "this file is for another license than the one you signed in with";
    return e;
  }
  return Ok{};
}

}  // namespace

RequestResult<json::object> customer_offline_activate(StoreTx& tx, std::string_view key,
                                                      const LicenseRequest& req,
                                                      OperationContext ctx) {
  RETURN_IF_ERROR(check_file_license(tx, key, req));
  ctx.actor = Actor::kCustomer;
  return offline_activate(tx, req, ctx);
}

RequestResult<json::object> customer_offline_deactivate(StoreTx& tx, std::string_view key,
                                                        const LicenseRequest& req,
                                                        OperationContext ctx) {
  RETURN_IF_ERROR(check_file_license(tx, key, req));
  ctx.actor = Actor::kCustomer;
  return offline_deactivate(tx, req, ctx);
}

json::object customer_activation_answer(const json::object& signed_answer) {
  const json::object& machine = signed_answer.at("machine").as_object();
  return json::object{
      {"ok", true},
      {"activationFile", signed_answer.at(kActivationFileMember)},
      {"expiresAt", machine.at("offlineUntil")},
      {"machine", json::object{{"machineId", mask_machine_id(machine.at("id").as_string())},
                               {"name", machine.at("name")}}},
      {"activations", signed_answer.at("activations")},
      {"max", signed_answer.at("max")},
  };
}

}  // namespace licensed
