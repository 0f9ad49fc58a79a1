#include "core/plan.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/license_tx.h"

namespace licensed {
namespace {

namespace json = boost::json;

json::value seconds_json(const std::optional<int64_t>& s) {
  return s ? json::value(*s) : json::value(nullptr);
}

json::value duration_json(const std::optional<int64_t>& s) {
  return s ? json::value(format_duration(*s)) : json::value(nullptr);
}

std::optional<int64_t> int_member(const json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return v->as_int64();
}

// The members both forms share, in seconds.
void put_numbers(json::object& o, const Plan& p) {
  o["max"] = seconds_json(p.max);
  o["validFrom"] = p.valid_from_first_activation ? "firstActivation" : "creation";
  o["machineTtl"] = seconds_json(p.machine_ttl_seconds);
  o["offlineGrace"] = seconds_json(p.offline_grace_seconds);
  o["offlineLease"] = seconds_json(p.offline_lease_seconds);
  o["offlineRelease"] =
      p.offline_release ? json::value(to_string(*p.offline_release)) : json::value(nullptr);
  o["maxConcurrent"] = seconds_json(p.max_concurrent);
  o["leaseTtl"] = seconds_json(p.lease_ttl_seconds);
  o["maxDeactivations"] = seconds_json(p.max_deactivations);
  o["maxBorrow"] = seconds_json(p.max_borrow_seconds);
}

}  // namespace

NewLicense license_from_plan(const Plan& plan, UnixMillis now) {
  NewLicense n;
  n.created_at = now;
  n.plan = plan.code;
  n.max = plan.max.value_or(0);
  n.machine_ttl_seconds = plan.machine_ttl_seconds;
  n.offline_grace_seconds = plan.offline_grace_seconds;
  n.offline_lease_seconds = plan.offline_lease_seconds;
  n.max_deactivations = plan.max_deactivations;
  n.max_concurrent = plan.max_concurrent;
  n.lease_ttl_seconds = plan.lease_ttl_seconds;
  n.max_borrow_seconds = plan.max_borrow_seconds;
  if (plan.offline_release) n.offline_release = *plan.offline_release;
  const bool later = plan.valid_from_first_activation;
  if (plan.valid_for_seconds) {
    if (later) {
      n.valid_for_pending_seconds = plan.valid_for_seconds;
    } else {
      n.expires_at = add_seconds(now, *plan.valid_for_seconds);
    }
  }
  for (const auto& pe : plan.entitlements) {
    Entitlement e;
    e.code = pe.code;
    e.value_json = pe.value_json;
    if (pe.valid_for_seconds) {
      if (later) {
        e.pending_seconds = pe.valid_for_seconds;
      } else {
        e.expires_at = add_seconds(now, *pe.valid_for_seconds);
      }
    }
    n.entitlements.push_back(std::move(e));
  }
  return n;
}

std::string format_duration(int64_t seconds) {
  if (seconds > 0 && seconds % 86400 == 0) return std::to_string(seconds / 86400) + "d";
  if (seconds > 0 && seconds % 3600 == 0) return std::to_string(seconds / 3600) + "h";
  if (seconds > 0 && seconds % 60 == 0) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds) + "s";
}

json::object plan_json(const Plan& p) {
  json::object o;
  o["code"] = p.code;
  o["name"] = p.name;
  o["validFor"] = duration_json(p.valid_for_seconds);
  put_numbers(o, p);
  json::array list;
  for (const auto& e : p.entitlements) {
    json::object entry{{"code", e.code}, {"validFor", duration_json(e.valid_for_seconds)}};
    if (e.value_json) {
      boost::system::error_code ec;
      auto v = json::parse(*e.value_json, ec);
      if (!ec) entry["value"] = std::move(v);
    }
    list.push_back(std::move(entry));
  }
  o["entitlements"] = std::move(list);
  return o;
}

std::string plan_spec_to_store(const Plan& p) {
  json::object o;
  put_numbers(o, p);
  o["validFor"] = seconds_json(p.valid_for_seconds);
  json::array list;
  for (const auto& e : p.entitlements) {
    json::object entry{{"code", e.code}, {"validFor", seconds_json(e.valid_for_seconds)}};
    if (e.value_json) entry["value"] = *e.value_json;
    list.push_back(std::move(entry));
  }
  o["entitlements"] = std::move(list);
  return json::serialize(o);
}

Status plan_spec_from_store(std::string_view text, Plan& p) {
  boost::system::error_code ec;
  const auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return Error::internal("read plan: its spec is not a JSON object");
  const auto& o = v.as_object();
  p.max = int_member(o, "max");
  p.valid_for_seconds = int_member(o, "validFor");
  const auto* from = o.if_contains("validFrom");
  p.valid_from_first_activation =
      from != nullptr && from->is_string() && from->as_string() == "firstActivation";
  p.machine_ttl_seconds = int_member(o, "machineTtl");
  p.offline_grace_seconds = int_member(o, "offlineGrace");
  p.offline_lease_seconds = int_member(o, "offlineLease");
  // A string since offlineRelease became "expiry" | "deactivation"; the integer an earlier
  // build of this unreleased member wrote reads as unset.
  const auto* release = o.if_contains("offlineRelease");
  p.offline_release = release != nullptr && release->is_string()
                          ? parse_offline_release(std::string_view(release->as_string()))
                          : std::nullopt;
  p.max_concurrent = int_member(o, "maxConcurrent");
  p.lease_ttl_seconds = int_member(o, "leaseTtl");
  p.max_deactivations = int_member(o, "maxDeactivations");
  p.max_borrow_seconds = int_member(o, "maxBorrow");
  p.entitlements.clear();
  if (const auto* list = o.if_contains("entitlements"); list != nullptr && list->is_array()) {
    for (const auto& item : list->as_array()) {
      const auto* e = item.if_object();
      if (e == nullptr || !e->contains("code") || !e->at("code").is_string()) continue;
      PlanEntitlement pe;
      pe.code = std::string(e->at("code").as_string());
      pe.valid_for_seconds = int_member(*e, "validFor");
      if (const auto* val = e->if_contains("value"); val != nullptr && val->is_string()) {
        pe.value_json = std::string(val->as_string());
      }
      p.entitlements.push_back(std::move(pe));
    }
  }
  return Ok{};
}

}  // namespace licensed
