#include "admin/admin_leases.h"

#include <boost/json/serialize.hpp>
#include <string>

#include "core/license_json.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

boost::json::value seconds_json(const std::optional<int64_t>& v) {
  return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

std::optional<int64_t>& member_of(License& l, SeatField field) {
  switch (field) {
    case SeatField::kMaxConcurrent:
      return l.max_concurrent;
    case SeatField::kLeaseTtl:
      return l.lease_ttl_seconds;
    case SeatField::kMaxBorrow:
      return l.max_borrow_seconds;
  }
  return l.max_borrow_seconds;
}

AuditEntry admin_audit(std::string_view action, const License& l, const AdminContext& ctx) {
  AuditEntry e;
  e.at = ctx.now;
  e.action = std::string(action);
  e.license_key = l.key;
  e.actor = ctx.actor;
  e.actor_name = ctx.actor_name;
  e.ip = ctx.ip;
  e.reason = ctx.reason;
  return e;
}

// What answers show: leaseTtl with its default filled in, as license_json does.
boost::json::value shown(License l, SeatField field) {
  if (field == SeatField::kLeaseTtl) return boost::json::value(lease_ttl_seconds(l));
  return seconds_json(member_of(l, field));
}

}  // namespace

std::string_view seat_field_name(SeatField field) {
  switch (field) {
    case SeatField::kMaxConcurrent:
      return "maxConcurrent";
    case SeatField::kLeaseTtl:
      return "leaseTtl";
    case SeatField::kMaxBorrow:
      return "maxBorrow";
  }
  return "maxBorrow";
}

Status check_seat_field(SeatField field, const std::optional<int64_t>& value) {
  if (!value) return Ok{};
  const std::string name(seat_field_name(field));
  if (field == SeatField::kMaxConcurrent && *value < 1) {
    return Error::invalid_argument(name, "maxConcurrent is a whole number, 1 or more, or null");
  }
  if (field == SeatField::kLeaseTtl && *value < kMinLeaseTtlSeconds) {
    return Error::invalid_argument(name, "leaseTtl is at least 60s");
  }
  if (field == SeatField::kMaxBorrow && *value <= 0) {
    return Error::invalid_argument(name, "maxBorrow is a DURATION, or null for no borrowing");
  }
  return Ok{};
}

Result<License> set_license_seat_field(StoreTx& tx, std::string_view key, SeatField field,
                                       std::optional<int64_t> value, const AdminContext& ctx) {
  RETURN_IF_ERROR(check_seat_field(field, value));
  ASSIGN_OR_RETURN(License l, find_any_license(tx, key));
  if (l.deleted_at) return Error::conflict("", "license " + l.key + " is deleted");
  const License before = l;
  member_of(l, field) = value;
  RETURN_IF_ERROR(tx.update_license(l));
  AuditEntry e = admin_audit(audit_action::kUpdate, l, ctx);
  boost::json::object change{{"from", shown(before, field)}, {"to", shown(l, field)}};
  e.changes = boost::json::serialize(boost::json::object{{seat_field_name(field), change}});
  RETURN_IF_ERROR(tx.append_audit(e));
  return l;
}

Result<boost::json::array> list_license_leases(StoreTx& tx, std::string_view key, UnixMillis now) {
  ASSIGN_OR_RETURN(const License l, find_any_license(tx, key));
  ASSIGN_OR_RETURN(const auto leases, tx.list_leases(l.id, now));
  boost::json::array out;
  for (const auto& lease : leases) {
    out.push_back(boost::json::object{{"machineId", lease.machine_id},
                                      {"sessionId", lease.session_id},
                                      {"expiresAt", format_timestamp(lease.expires_at)},
                                      {"borrowed", lease.borrowed}});
  }
  return out;
}

Status release_lease(StoreTx& tx, std::string_view key, std::string_view machine_id,
                     std::string_view session_id, const AdminContext& ctx) {
  ASSIGN_OR_RETURN(const License found, find_any_license(tx, key));
  ASSIGN_OR_RETURN(auto locked, tx.lock_license(found.key));
  if (!locked) return Error::internal("release lease: the license went away");
  ASSIGN_OR_RETURN(const auto lease, tx.find_lease(*locked, machine_id, session_id, ctx.now));
  if (!lease) {
    return Error::not_found(subjects::kMachineId, "no live lease of machine " +
                                                      std::string(machine_id) + ", session " +
                                                      std::string(session_id));
  }
  ASSIGN_OR_RETURN(const bool removed, tx.delete_lease(*locked, machine_id, session_id));
  if (!removed) return Error::internal("release lease: the row went away under the lock");
  AuditEntry e = admin_audit(audit_action::kCheckin, locked->license(), ctx);
  e.machine_id = std::string(machine_id);
  return tx.append_audit(e);
}

}  // namespace licensed
