// LicenseTx's own part: an audit record and the webhook event it implies, written together.
#include "core/license_tx.h"

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

}  // namespace licensed
