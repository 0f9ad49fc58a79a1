#include "core/webhook_event.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/license_json.h"
#include "core/license_tx.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

namespace ev = webhook_event;

// A record of no change (a partial refund, docs/protocol.md §22.7) is audited with `changes` {}.
bool changes_nothing(const AuditEntry& e) {
  return e.changes && *e.changes == "{}";
}

// A restore is audited as license.update of deletedAt to null (admin_operations.cpp).
bool is_restore(const AuditEntry& e) {
  if (!e.changes) return false;
  boost::system::error_code ec;
  const boost::json::value changes = boost::json::parse(*e.changes, ec);
  if (ec || !changes.is_object() || changes.get_object().size() != 1) return false;
  const auto* deleted = changes.get_object().if_contains("deletedAt");
  if (deleted == nullptr || !deleted->is_object()) return false;
  const auto* to = deleted->get_object().if_contains("to");
  return to != nullptr && to->is_null();
}

bool is_machine_event(std::string_view type) {
  return type.starts_with("activation.") || type.starts_with("lease.");
}

// The machine as the activate answer shows it (id, name, activatedAt, lastSeenAt), from its
// row in this transaction; a row already gone (a deactivation) leaves the id.
Result<boost::json::object> machine_data(LicenseTx& tx, int64_t license_id,
                                         const std::string& machine_id) {
  ASSIGN_OR_RETURN(const auto row, tx.find_activation(license_id, machine_id));
  return row ? machine_json(*row) : boost::json::object{{"id", machine_id}};
}

Status insert_lease_released(LicenseTx& tx, const License& license, boost::json::object machine,
                             const Lease& lease, std::string_view reason, UnixMillis at,
                             Actor actor) {
  boost::json::object data = license_event_data(license, at, actor);
  data["machine"] = std::move(machine);
  data["reason"] = reason;
  data["lease"] = {{"sessionId", lease.session_id},
                   {"expiresAt", format_timestamp(lease.expires_at)},
                   {"borrowed", lease.borrowed}};
  return tx.insert_webhook_event(ev::kLeaseReleased, at,
                                 webhook_body(ev::kLeaseReleased, at, std::move(data)));
}

}  // namespace

const std::vector<std::string_view>& webhook_event_types() {
  static const std::vector<std::string_view> types = {
      ev::kLicenseCreated,      ev::kLicenseUpdated,
      ev::kLicenseDeleted,      ev::kLicenseRestored,
      ev::kActivationCreated,   ev::kActivationDeleted,
      ev::kActivationReclaimed, ev::kActivationRenewed,
      ev::kLimitReached,        ev::kLeaseCreated,
      ev::kLeaseReleased,       ev::kTrialStarted,
      ev::kOrderFulfilled,      ev::kOrderRefunded,
      ev::kExpiringSoon,        ev::kExpired,
      ev::kEntitlementExpired,  ev::kOfflineExpiring};
  return types;
}

bool is_webhook_event_type(std::string_view type) {
  const auto& types = webhook_event_types();
  return std::find(types.begin(), types.end(), type) != types.end();
}

std::optional<std::string_view> event_type_of(const AuditEntry& e) {
  const std::string_view action = e.action;
  if (action == audit_action::kCreate) return ev::kLicenseCreated;
  if (action == audit_action::kActivate) return ev::kActivationCreated;
  if (action == audit_action::kDeactivate) return ev::kActivationDeleted;
  if (action == audit_action::kReclaim) return ev::kActivationReclaimed;
  if (action == audit_action::kCheckout) return ev::kLeaseCreated;
  if (action == audit_action::kCheckin) return ev::kLeaseReleased;
  if (action == audit_action::kDelete) return ev::kLicenseDeleted;
  if (action == audit_action::kStatus) return ev::kLicenseUpdated;
  if (action == audit_action::kUpdate && changes_nothing(e)) return std::nullopt;
  if (action == audit_action::kUpdate)
    return is_restore(e) ? ev::kLicenseRestored : ev::kLicenseUpdated;
  return std::nullopt;
}

std::string webhook_body(std::string_view type, UnixMillis at, boost::json::object data) {
  boost::json::object body;
  body["type"] = type;
  body["timestamp"] = format_timestamp(at);
  body["data"] = std::move(data);
  return boost::json::serialize(body);
}

boost::json::object license_event_data(const License& license, UnixMillis at, Actor actor) {
  boost::json::object data;
  data["license"] = license_json(license, at);
  data["actor"] = to_string(actor);
  return data;
}

Status record_audited_event(LicenseTx& tx, const AuditEntry& e, const License& license) {
  const auto type = event_type_of(e);
  if (!type) return Ok{};
  boost::json::object data = license_event_data(license, e.at, e.actor);
  if (e.actor_name) data["actorName"] = *e.actor_name;
  if (is_machine_event(*type) && e.machine_id) {
    ASSIGN_OR_RETURN(boost::json::object machine, machine_data(tx, license.id, *e.machine_id));
    if (e.offline) machine["offline"] = true;  // the change came through an offline file
    data["machine"] = std::move(machine);
  }
  if (*type == ev::kLeaseReleased) {  // license.checkin: the client's, or support's release
    data["reason"] =
        e.actor == Actor::kAdmin ? lease_release_reason::kAdmin : lease_release_reason::kCheckin;
  }
  if (e.changes && *type == ev::kLicenseUpdated) {
    boost::system::error_code ec;
    boost::json::value changes = boost::json::parse(*e.changes, ec);
    if (!ec && changes.is_object()) data["changes"] = std::move(changes);
  }
  return tx.insert_webhook_event(*type, e.at, webhook_body(*type, e.at, std::move(data)));
}

Status record_limit_reached(LicenseTx& tx, const License& license, std::string_view machine_id,
                            int64_t code, UnixMillis now, Actor actor) {
  constexpr int64_t kHourMs = 3'600'000;
  const std::string mark = std::string(ev::kLimitReached) + ":" + license.key;
  ASSIGN_OR_RETURN(const bool first_this_hour, tx.take_webhook_mark(mark, now, kHourMs));
  if (!first_this_hour) return Ok{};
  boost::json::object data = license_event_data(license, now, actor);
  data["machine"] = boost::json::object{{"id", machine_id}};
  data["code"] = code;
  return tx.insert_webhook_event(ev::kLimitReached, now,
                                 webhook_body(ev::kLimitReached, now, std::move(data)));
}

Status record_lease_released(LicenseTx& tx, const License& license, const Lease& lease,
                             std::string_view reason, UnixMillis at, Actor actor) {
  ASSIGN_OR_RETURN(boost::json::object machine, machine_data(tx, license.id, lease.machine_id));
  return insert_lease_released(tx, license, std::move(machine), lease, reason, at, actor);
}

Status record_lease_released(LicenseTx& tx, const License& license, const Activation& machine,
                             const Lease& lease, std::string_view reason, UnixMillis at,
                             Actor actor) {
  return insert_lease_released(tx, license, machine_json(machine), lease, reason, at, actor);
}

Status record_license_event(LicenseTx& tx, std::string_view type, const License& license,
                            UnixMillis at, Actor actor, const boost::json::object& extra) {
  boost::json::object data = license_event_data(license, at, actor);
  for (const auto& member : extra) data[member.key()] = member.value();
  return tx.insert_webhook_event(type, at, webhook_body(type, at, std::move(data)));
}

}  // namespace licensed
