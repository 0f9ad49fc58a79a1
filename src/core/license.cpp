#include "core/license.h"

#include <algorithm>

namespace licensed {

std::string_view to_string(LicenseStatus status) {
  switch (status) {
    case LicenseStatus::kActive:
      return "ACTIVE";
    case LicenseStatus::kSuspended:
      return "SUSPENDED";
    case LicenseStatus::kRefunded:
      return "REFUNDED";
    case LicenseStatus::kRevoked:
      return "REVOKED";
  }
  return "REVOKED";
}

std::optional<LicenseStatus> parse_license_status(std::string_view text) {
  if (text == "ACTIVE") return LicenseStatus::kActive;
  if (text == "SUSPENDED") return LicenseStatus::kSuspended;
  if (text == "REFUNDED") return LicenseStatus::kRefunded;
  if (text == "REVOKED") return LicenseStatus::kRevoked;
  return std::nullopt;
}

std::string_view effective_status(const License& license, UnixMillis now) {
  if (license.status == LicenseStatus::kActive && license.expires_at &&
      *license.expires_at <= now) {
    return "EXPIRED";
  }
  return to_string(license.status);
}

bool is_effectively_active(const License& license, UnixMillis now) {
  return effective_status(license, now) == "ACTIVE";
}

std::optional<UnixMillis> stale_before(const License& license, UnixMillis now) {
  if (!license.machine_ttl_seconds) return std::nullopt;
  return add_seconds(now, -*license.machine_ttl_seconds);
}

int64_t offline_grace_seconds(const License& license) {
  if (license.offline_grace_seconds) return *license.offline_grace_seconds;
  return license.trial ? kDefaultTrialOfflineGraceSeconds : kDefaultOfflineGraceSeconds;
}

UnixMillis valid_until(const License& license, UnixMillis now) {
  // A seat is used offline only through a borrowed lease file (docs/protocol.md §21): an
  // answer without a lease allows use until now, no later.
  return valid_until(license, now, license.max_concurrent ? std::optional(now) : std::nullopt);
}

UnixMillis valid_until(const License& license, UnixMillis now,
                       std::optional<UnixMillis> lease_end) {
  const UnixMillis grace = add_seconds(now, offline_grace_seconds(license));
  UnixMillis until = license.expires_at ? std::min(*license.expires_at, grace) : grace;
  if (lease_end) until = std::min(until, *lease_end);
  return until;
}

std::string_view to_string(Actor actor) {
  switch (actor) {
    case Actor::kClient:
      return "client";
    case Actor::kCustomer:
      return "customer";
    case Actor::kAdmin:
      return "admin";
    case Actor::kSystem:
      return "system";
    case Actor::kStore:
      return "store";
  }
  return "system";
}

Actor parse_actor(std::string_view text) {
  return text == "client"     ? Actor::kClient
         : text == "customer" ? Actor::kCustomer
         : text == "admin"    ? Actor::kAdmin
         : text == "store"    ? Actor::kStore
                              : Actor::kSystem;
}

}  // namespace licensed

namespace licensed {

std::string_view to_string(OfflineRelease release) {
  return release == OfflineRelease::kDeactivation ? "deactivation" : "expiry";
}

std::optional<OfflineRelease> parse_offline_release(std::string_view text) {
  if (text == "expiry") return OfflineRelease::kExpiry;
  if (text == "deactivation") return OfflineRelease::kDeactivation;
  return std::nullopt;
}

int64_t lease_ttl_seconds(const License& license) {
  return license.lease_ttl_seconds.value_or(kDefaultLeaseTtlSeconds);
}

int64_t offline_lease_seconds(const License& license) {
  return license.offline_lease_seconds.value_or(kDefaultOfflineLeaseSeconds);
}

std::optional<int64_t> effective_max_deactivations(const License& license) {
  if (license.max_deactivations) return license.max_deactivations;
  if (license.offline_release == OfflineRelease::kDeactivation) {
    return kDefaultReleaseMaxDeactivations;
  }
  return std::nullopt;
}

Freshness freshness(const License& license, UnixMillis now) {
  return Freshness{stale_before(license, now), now};
}

bool holds_slot(const Activation& activation, const Freshness& fresh) {
  if (activation.offline_until) return *activation.offline_until > fresh.now;
  return !fresh.seen_since || activation.last_seen_at >= *fresh.seen_since;
}

}  // namespace licensed
