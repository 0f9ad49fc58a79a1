// The license model of docs/protocol.md §6, and the rules that derive from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/entitlement.h"

namespace licensed {

enum class LicenseStatus { kActive, kSuspended, kRefunded, kRevoked };

std::string_view to_string(LicenseStatus status);
std::optional<LicenseStatus> parse_license_status(std::string_view text);

// A product's trial offer (docs/protocol.md §19): licenses made from `plan`, `days` long.
struct TrialOffer {
  std::string plan;
  int64_t days = 0;
};

struct Product {
  int64_t id = 0;
  std::string slug;
  std::string name;
  std::optional<std::string> default_plan;  // the plan of a license created without one
  std::optional<TrialOffer> trial;          // nullopt: no trials
};

// Who bought a license from a store (docs/protocol.md §22.5): as the store gave them.
struct Customer {
  std::optional<std::string> email;
  std::optional<std::string> name;
};

// The sale a license came from (docs/protocol.md §22.5): the store's provider and id, and its order
// id.
struct LicenseSource {
  std::string provider;
  int64_t store_id = 0;
  std::string order_id;
};

// What an offline deactivation does to the slot (docs/protocol.md §21.5): kExpiry keeps it
// counted until the old file's end (a deactivation file can be forged), kDeactivation frees
// it at once and counts against the deactivation quota.
enum class OfflineRelease { kExpiry, kDeactivation };
std::string_view to_string(OfflineRelease release);
std::optional<OfflineRelease> parse_offline_release(std::string_view text);

struct License {
  int64_t id = 0;
  std::string key;  // lowercase UUID v4
  Product product;
  LicenseStatus status = LicenseStatus::kActive;
  std::optional<UnixMillis> expires_at;
  int64_t max = 0;
  std::optional<int64_t> machine_ttl_seconds;  // null: machines never go stale
  UnixMillis created_at = 0;
  std::optional<UnixMillis> deleted_at;
  std::optional<std::string> plan;  // the code of the plan it was made from
  std::vector<Entitlement> entitlements;
  std::optional<int64_t> offline_grace_seconds;  // null: the default (kDefaultOfflineGrace...)
  bool trial = false;
  // Set by a plan valid from the first activation: that activation sets expiresAt to
  // its time plus this many seconds, and clears this.
  std::optional<int64_t> valid_for_pending_seconds;
  // Set on licenses a store sale made (docs/protocol.md §22.5); never changed afterwards.
  std::optional<Customer> customer;
  std::optional<LicenseSource> source;
  // Offline activation (docs/protocol.md §21.2).
  std::optional<int64_t> offline_lease_seconds;  // null: kDefaultOfflineLeaseSeconds
  OfflineRelease offline_release = OfflineRelease::kExpiry;
  std::optional<int64_t> max_deactivations;  // per rolling 30 days; null: see below
  // Concurrent seats (docs/protocol.md §27): how many machines may run at once (null: no
  // cap), how long a lease lasts from its last checkout (null: kDefaultLeaseTtlSeconds) and
  // the longest borrow (null: no borrowing).
  std::optional<int64_t> max_concurrent;
  std::optional<int64_t> lease_ttl_seconds;
  std::optional<int64_t> max_borrow_seconds;
};

inline constexpr int64_t kDefaultLeaseTtlSeconds = 15 * 60;
inline constexpr int64_t kMinLeaseTtlSeconds = 60;
int64_t lease_ttl_seconds(const License& license);

// A running copy's seat (docs/protocol.md §27), one per (machine, session). It counts toward
// maxConcurrent while expires_at is in the future, and never after.
struct Lease {
  std::string machine_id;
  std::string session_id;
  UnixMillis created_at = 0;
  UnixMillis expires_at = 0;
  bool borrowed = false;  // taken with borrowFor: it lasts without renewals
};

inline constexpr int64_t kDefaultOfflineLeaseSeconds = 90 * 86400;
// A license that frees offline slots at deactivation has this quota unless it sets one.
inline constexpr int64_t kDefaultReleaseMaxDeactivations = 3;
inline constexpr int64_t kDeactivationWindowMillis = 30LL * 86'400'000;

int64_t offline_lease_seconds(const License& license);
// The quota client and customer deactivations count against; nullopt: no limit.
std::optional<int64_t> effective_max_deactivations(const License& license);

inline constexpr int64_t kDefaultOfflineGraceSeconds = 14 * 86400;
inline constexpr int64_t kDefaultTrialOfflineGraceSeconds = 3 * 86400;

// The license's offlineGrace in seconds, its default when it has none.
int64_t offline_grace_seconds(const License& license);
// docs/protocol.md §19: the earlier of expiresAt and now + offlineGrace, for an answer that
// allows use.
// With maxConcurrent set it is at most now (docs/protocol.md §21).
UnixMillis valid_until(const License& license, UnixMillis now);
// The same, capped at the end of the lease the answer carries.
UnixMillis valid_until(const License& license, UnixMillis now, std::optional<UnixMillis> lease_end);

// "ACTIVE", "SUSPENDED", "REFUNDED", "REVOKED", or "EXPIRED" for an ACTIVE license
// whose expiresAt is set and not in the future.
std::string_view effective_status(const License& license, UnixMillis now);
bool is_effectively_active(const License& license, UnixMillis now);

struct Activation {
  Activation() = default;
  // An online activation, as the stores and tests write one.
  Activation(std::string id, std::optional<std::string> name, UnixMillis activated, UnixMillis seen)
      : machine_id(std::move(id)),
        machine_name(std::move(name)),
        activated_at(activated),
        last_seen_at(seen) {}

  std::string machine_id;
  std::optional<std::string> machine_name;
  UnixMillis activated_at = 0;
  UnixMillis last_seen_at = 0;
  // An offline activation (docs/protocol.md §21.2) has an end: it holds its slot until then
  // whatever machineTtl says. Null for an online one.
  std::optional<UnixMillis> offline_until;
  std::optional<std::string> offline_file_id;  // the latest file's id
  std::optional<std::string> offline_nonce;    // the request nonce that produced it
  std::optional<std::string> offline_payload;  // its payload JSON, answered again
  // An offline deactivation under offlineRelease "expiry": the machine is no longer
  // activated, but the slot stays counted until offline_until.
  std::optional<UnixMillis> deactivated_at;

  bool offline() const { return offline_until.has_value(); }
  bool deactivated() const { return deactivated_at.has_value(); }
};

// Machines last seen before this instant are stale (docs/protocol.md §10); nullopt when the
// license has no machineTtl and nothing is ever stale.
std::optional<UnixMillis> stale_before(const License& license, UnixMillis now);

// Which activations hold a slot at `now` (docs/protocol.md §10, §21.4): an offline one until
// its offline_until; an online one while seen at or after seen_since (always when null).
struct Freshness {
  std::optional<UnixMillis> seen_since;
  UnixMillis now = 0;
};
Freshness freshness(const License& license, UnixMillis now);
bool holds_slot(const Activation& activation, const Freshness& fresh);

enum class Actor { kClient, kCustomer, kAdmin, kSystem, kStore };
std::string_view to_string(Actor actor);
// The inverse of to_string; anything unknown reads as kSystem.
Actor parse_actor(std::string_view text);

struct AuditEntry {
  int64_t id = 0;  // assigned by the store
  UnixMillis at = 0;
  std::string action;  // "license.activate", ...
  std::string license_key;
  std::optional<std::string> machine_id;
  bool refresh = false;
  Actor actor = Actor::kClient;
  std::optional<std::string> actor_name;  // the admin token's name
  std::optional<std::string> ip;
  std::optional<std::string> key_id;
  std::optional<std::string> request_id;
  // On license.update and license.status: the JSON object {"<field>": {"from", "to"}}
  // (docs/protocol.md §17), as stored.
  std::optional<std::string> changes;
  std::optional<std::string> reason;  // why, in the admin's words (docs/protocol.md §17)
  // On records of actor `store`: the JSON object {"provider", "orderId"} (docs/protocol.md §22.5).
  std::optional<std::string> source;
  bool offline = false;  // the change came through an offline file (docs/protocol.md §21.2)
};

namespace audit_action {
inline constexpr std::string_view kActivate = "license.activate";
inline constexpr std::string_view kHeartbeat = "license.heartbeat";
inline constexpr std::string_view kDeactivate = "license.deactivate";
inline constexpr std::string_view kReclaim = "license.reclaim";
inline constexpr std::string_view kCreate = "license.create";
inline constexpr std::string_view kStatus = "license.status";
inline constexpr std::string_view kDelete = "license.delete";
inline constexpr std::string_view kUpdate = "license.update";
inline constexpr std::string_view kTrialReset = "trial.reset";
inline constexpr std::string_view kCheckout = "license.checkout";
inline constexpr std::string_view kCheckin = "license.checkin";
}  // namespace audit_action

}  // namespace licensed
