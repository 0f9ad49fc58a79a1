// LicenseTx's own part: an audit record and the webhook event it implies, written together;
// a machine's removal and the lease.released of every lease it takes.
#include "core/license_tx.h"

#include "core/lease_operations.h"
#include "core/webhook_event.h"

namespace licensed {

Status LicenseTx::append_audit(const AuditEntry& entry, const License& license) {
  RETURN_IF_ERROR(insert_audit(entry));
  return record_audited_event(*this, entry, license);
}

Status LicenseTx::append_audit(const AuditEntry& entry) {
  RETURN_IF_ERROR(insert_audit(entry));
  if (!event_type_of(entry) || entry.license_key.empty()) return Ok{};
  ASSIGN_OR_RETURN(const auto license, find_license(entry.license_key));
  if (!license) return Ok{};  // nothing to report of a key no license has
  return record_audited_event(*this, entry, *license);
}

// The leases first, while the activation row is there for the events' machine.
Result<bool> LicenseTx::delete_activation(const LockedLicense& license, std::string_view machine_id,
                                          UnixMillis now, Actor actor) {
  RETURN_IF_ERROR(release_machine_leases(license, machine_id, now, actor));
  return erase_activation(license, machine_id);
}

Result<std::vector<std::string>> LicenseTx::delete_stale_activations(const LockedLicense& license,
                                                                     const Freshness& fresh) {
  ASSIGN_OR_RETURN(const auto gone, erase_stale_activations(license, fresh));
  std::vector<std::string> ids;
  ids.reserve(gone.size());
  for (const Activation& a : gone) {
    ASSIGN_OR_RETURN(const auto leases, take_machine_leases(license, a.machine_id));
    RETURN_IF_ERROR(
        report_machine_leases(*this, license.license(), &a, leases, fresh.now, Actor::kSystem));
    ids.push_back(a.machine_id);
  }
  return ids;
}

Result<int64_t> LicenseTx::release_machine_leases(const LockedLicense& license,
                                                  std::string_view machine_id, UnixMillis now,
                                                  Actor actor) {
  ASSIGN_OR_RETURN(const auto leases, take_machine_leases(license, machine_id));
  RETURN_IF_ERROR(report_machine_leases(*this, license.license(), nullptr, leases, now, actor));
  return static_cast<int64_t>(leases.size());
}

}  // namespace licensed
