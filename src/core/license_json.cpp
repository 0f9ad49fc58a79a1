#include "core/license_json.h"

#include <boost/json/parse.hpp>

#include "core/timestamp.h"

namespace licensed {

boost::json::value optional_timestamp_json(const std::optional<UnixMillis>& t) {
  if (!t) return nullptr;
  return boost::json::value(format_timestamp(*t));
}

boost::json::value optional_int_json(const std::optional<int64_t>& v) {
  if (!v) return nullptr;
  return *v;
}

boost::json::object product_json(const Product& product) {
  return {{"slug", product.slug}, {"name", product.name}};
}

boost::json::object machine_json(const Activation& a) {
  boost::json::object m;
  m["id"] = a.machine_id;
  if (a.machine_name) {
    m["name"] = *a.machine_name;
  } else {
    m["name"] = nullptr;
  }
  m["activatedAt"] = format_timestamp(a.activated_at);
  m["lastSeenAt"] = format_timestamp(a.last_seen_at);
  // docs/protocol.md §21.4: offline activations show as such, with their end.
  if (a.offline_until) {
    m["offline"] = true;
    m["offlineUntil"] = format_timestamp(*a.offline_until);
    if (a.deactivated_at) m["deactivatedAt"] = format_timestamp(*a.deactivated_at);
  }
  return m;
}

boost::json::object license_json(const License& l, UnixMillis now) {
  boost::json::object o;
  o["licenseKey"] = l.key;
  o["product"] = product_json(l.product);
  o["status"] = effective_status(l, now);
  o["storedStatus"] = to_string(l.status);
  o["expiresAt"] = optional_timestamp_json(l.expires_at);
  o["max"] = l.max;
  o["machineTtl"] = optional_int_json(l.machine_ttl_seconds);
  o["plan"] = l.plan ? boost::json::value(*l.plan) : boost::json::value(nullptr);
  o["entitlements"] = entitlements_answer_json(l.entitlements, now);
  o["offlineGrace"] = offline_grace_seconds(l);
  // docs/protocol.md §21.3, §21.5, §21.6, as they apply (defaults filled in).
  o["offlineLease"] = offline_lease_seconds(l);
  o["offlineRelease"] = to_string(l.offline_release);
  o["maxDeactivations"] = optional_int_json(effective_max_deactivations(l));
  // docs/protocol.md §27: seats.
  o["maxConcurrent"] = optional_int_json(l.max_concurrent);
  o["leaseTtl"] = lease_ttl_seconds(l);
  o["maxBorrow"] = optional_int_json(l.max_borrow_seconds);
  o["trial"] = l.trial;
  o["createdAt"] = format_timestamp(l.created_at);
  o["deletedAt"] = optional_timestamp_json(l.deleted_at);
  // Only on licenses a store sale made (docs/protocol.md §22.5).
  if (l.customer) {
    o["customer"] = {
        {"email", l.customer->email ? boost::json::value(*l.customer->email) : nullptr},
        {"name", l.customer->name ? boost::json::value(*l.customer->name) : nullptr}};
  }
  if (l.source) {
    o["source"] = {{"provider", l.source->provider},
                   {"storeId", l.source->store_id},
                   {"orderId", l.source->order_id}};
  }
  return o;
}

boost::json::object audit_json(const AuditEntry& e) {
  boost::json::object o;
  o["id"] = e.id;
  o["at"] = format_timestamp(e.at);
  o["action"] = e.action;
  // store.rejected concerns no license (docs/protocol.md §22.8).
  if (!e.license_key.empty()) o["licenseKey"] = e.license_key;
  if (e.machine_id) o["machineId"] = *e.machine_id;
  if (e.refresh) o["refresh"] = true;
  if (e.offline) o["offline"] = true;  // came through an offline file (docs/protocol.md §21.2)
  o["actor"] = to_string(e.actor);
  if (e.actor_name) o["actorName"] = *e.actor_name;
  if (e.ip) o["ip"] = *e.ip;
  if (e.key_id) o["keyId"] = *e.key_id;
  if (e.request_id) o["requestId"] = *e.request_id;
  if (e.changes) {
    // Written by admin_operations as an object; anything else is left out, not guessed at.
    boost::system::error_code ec;
    boost::json::value changes = boost::json::parse(*e.changes, ec);
    if (!ec && changes.is_object()) o["changes"] = std::move(changes);
  }
  if (e.reason) o["reason"] = *e.reason;
  if (e.source) {
    // Written by the store fulfilment as an object; as with changes, nothing else is shown.
    boost::system::error_code ec;
    boost::json::value source = boost::json::parse(*e.source, ec);
    if (!ec && source.is_object()) o["source"] = std::move(source);
  }
  return o;
}

}  // namespace licensed
