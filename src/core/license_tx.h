// The License API operations' view of a store transaction: what activate(), heartbeat(),
// status() and deactivate() (core/operations.h) may read and write. Core owns this port
// and the stores implement it (through StoreTx, store/store_tx.h), so the domain knows
// nothing of SQL and includes nothing from store/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/license.h"
#include "core/plan.h"
#include "core/result.h"

namespace licensed {

// Proof that the transaction at hand holds the lock on one license's row, with the row as
// read under that lock. The cap rests on it: while it is held no other transaction can add
// or remove a machine of this license, so a count made under it stays true until the
// insert that follows commits. Only a store makes one (LicenseTx::lock_license), and only
// inside a write transaction: on SQLite the writer's BEGIN IMMEDIATE, which admits one
// writer at a time to the whole file; on PostgreSQL SELECT ... FOR UPDATE of the row,
// held to COMMIT or ROLLBACK (see pg_store.h). The writes and counts the cap depends on
// take one, so an operation cannot reach them without the lock. Valid for the
// transaction that made it; not copyable, so it is not easily kept past it.
class LockedLicense {
 public:
  LockedLicense(LockedLicense&&) = default;
  LockedLicense& operator=(LockedLicense&&) = default;
  LockedLicense(const LockedLicense&) = delete;
  LockedLicense& operator=(const LockedLicense&) = delete;

  const License& license() const { return license_; }
  const License* operator->() const { return &license_; }

 private:
  friend class LicenseTx;
  explicit LockedLicense(License license) : license_(std::move(license)) {}

  License license_;
};

// A license by its row id (the order sweeps page in) and its key (what lock_license takes).
struct LicenseRef {
  int64_t id = 0;
  std::string key;
};

// A license to insert: the row as the store keeps it, before it has an id.
struct NewLicense {
  std::string key;
  int64_t product_id = 0;
  LicenseStatus status = LicenseStatus::kActive;
  std::optional<UnixMillis> expires_at;
  int64_t max = 0;
  std::optional<int64_t> machine_ttl_seconds;
  UnixMillis created_at = 0;
  std::optional<std::string> plan;
  std::vector<Entitlement> entitlements;
  std::optional<int64_t> offline_grace_seconds;
  bool trial = false;
  std::optional<int64_t> valid_for_pending_seconds;
  std::optional<Customer> customer;
  std::optional<LicenseSource> source;
  std::optional<int64_t> offline_lease_seconds;
  OfflineRelease offline_release = OfflineRelease::kExpiry;
  std::optional<int64_t> max_deactivations;
  std::optional<int64_t> max_concurrent;
  std::optional<int64_t> lease_ttl_seconds;
  std::optional<int64_t> max_borrow_seconds;
};

// A license made from `plan` at `now` (docs/protocol.md §20): its members copied, validFor
// counted from now, or left pending until the first activation when the plan says so.
// The caller sets key and product.
NewLicense license_from_plan(const Plan& plan, UnixMillis now);

// Every method runs inside the one transaction the store opened for the job; a failure is
// the store's (the transaction is then rolled back, see must_roll_back).
class LicenseTx {
 public:
  virtual ~LicenseTx() = default;

  // Locks the license row for the rest of this write transaction and reads it: nullopt
  // when there is no such key (a soft-deleted license is returned; the caller decides).
  // Fails, as a bug, in a read transaction.
  virtual Result<std::optional<LockedLicense>> lock_license(std::string_view key) = 0;
  // The license as this transaction sees it. On PostgreSQL a write transaction locks the
  // row here too, so every admin change of a license queues behind a running activation;
  // an operation that relies on the lock takes lock_license instead, which says so.
  virtual Result<std::optional<License>> find_license(std::string_view key) = 0;
  virtual Result<std::optional<Activation>> find_activation(int64_t license_id,
                                                            std::string_view machine_id) = 0;
  // Machines holding a slot (holds_slot, core/license.h): what an answer shows.
  virtual Result<int64_t> count_activations(int64_t license_id, const Freshness& fresh) = 0;
  // The same count made under the license's lock, so it can be checked against the cap:
  // no other transaction can change it before this one ends.
  Result<int64_t> count_activations(const LockedLicense& license, const Freshness& fresh) {
    return count_activations(license->id, fresh);
  }
  virtual Result<std::vector<Activation>> list_activations(int64_t license_id) = 0;
  // Takes a slot: only under the license's lock, after the count that allowed it. Writes
  // every member, the offline ones included.
  virtual Status insert_activation(const LockedLicense& license, const Activation& activation) = 0;
  // Writes machine_name and last_seen_at only: online operations never change an offline
  // activation's file or end (docs/protocol.md §21.2).
  virtual Status update_activation(int64_t license_id, const Activation& activation) = 0;
  // Writes every member but activated_at: a renewal or deactivation through a file.
  virtual Status update_offline_activation(const LockedLicense& license,
                                           const Activation& activation) = 0;
  // A machine going away (deactivated, freed, reclaimed) releases its leases (docs/protocol.md
  // §27): each row is deleted and reported in this transaction by one lease.released, reason
  // "deactivated" and `actor` for a live lease, "expired" and actor system for one that had
  // ended (as the minute sweep would have said; whichever path deletes a row reports it).
  // The stores' removals are protected, so no path can remove a machine without this.
  //
  // Deletes the machine's activation and its leases. False when there was no such activation.
  Result<bool> delete_activation(const LockedLicense& license, std::string_view machine_id,
                                 UnixMillis now, Actor actor);
  // Deletes the machines that no longer hold a slot (holds_slot false): online ones last
  // seen before fresh.seen_since (none when null), offline ones whose end has passed;
  // returns their ids, and releases their leases (actor system, at fresh.now). Under the
  // lock, since the slots it frees are counted against the cap right after.
  Result<std::vector<std::string>> delete_stale_activations(const LockedLicense& license,
                                                            const Freshness& fresh);
  // Every lease of the machine, whose row stays (an offline deactivation under "expiry").
  // Answers how many it released.
  Result<int64_t> release_machine_leases(const LockedLicense& license, std::string_view machine_id,
                                         UnixMillis now, Actor actor);

  // The deactivations log (docs/protocol.md §21.6): every deactivation, `counted` for those
  // the quota counts (client and customer ones that freed a slot). Appended under the
  // license's lock, so a count made under it stays exact.
  virtual Status append_deactivation(const LockedLicense& license, std::string_view machine_id,
                                     UnixMillis at, bool counted, bool offline) = 0;
  // The times of the counted deactivations at or after `since`, oldest first.
  virtual Result<std::vector<UnixMillis>> counted_deactivations_since(const LockedLicense& license,
                                                                      UnixMillis since) = 0;
  // When this machine was last deactivated, any way; nullopt when never.
  virtual Result<std::optional<UnixMillis>> latest_deactivation(int64_t license_id,
                                                                std::string_view machine_id) = 0;

  // The audit record of an accepted change and, when webhooks report that change (spec
  // §18, event_type_of), its event, in this same transaction: no operation can write the
  // one without the other. `license` is the license after the change; without it, it is
  // read here when the record has an event.
  Status append_audit(const AuditEntry& entry, const License& license);
  Status append_audit(const AuditEntry& entry);
  // The audit record alone: for append_audit.
  virtual Status insert_audit(const AuditEntry& entry) = 0;

  // The webhook outbox (docs/protocol.md §25): the event, with a pending delivery (due at `at`) for
  // every enabled endpoint whose filter takes `type`; nothing when none does, so a
  // deployment without webhooks keeps no events.
  virtual Status insert_webhook_event(std::string_view type, UnixMillis at,
                                      std::string_view body) = 0;
  // Marks that keep an event once (a sweep's, per license and expiry) or rare (limit_reached,
  // per license per hour): true when `mark` was not taken, or when `renew_after_ms` is set
  // and it was taken at least that long before `now`; it is then (re)taken at `now`.
  virtual Result<bool> take_webhook_mark(std::string_view mark, UnixMillis now,
                                         std::optional<int64_t> renew_after_ms) = 0;

  // Concurrent seats (docs/protocol.md §27). A lease is live while expires_at > now; only
  // live leases are counted, listed or found. The writes take the LockedLicense: the count
  // the cap rests on and the insert that follows run under the license's lock.
  virtual Result<int64_t> count_leases(int64_t license_id, UnixMillis now) = 0;
  virtual Result<std::vector<Lease>> list_leases(int64_t license_id, UnixMillis now) = 0;
  virtual Result<std::optional<Lease>> find_lease(const LockedLicense& license,
                                                  std::string_view machine_id,
                                                  std::string_view session_id, UnixMillis now) = 0;
  // Inserts the lease or replaces the one of its (machine, session).
  virtual Status put_lease(const LockedLicense& license, const Lease& lease) = 0;
  // False when there was no such lease, live or not.
  virtual Result<bool> delete_lease(const LockedLicense& license, std::string_view machine_id,
                                    std::string_view session_id) = 0;
  // Deletes the leases that ended at or before now and returns them. The caller reports each
  // (core/lease_operations.h: release_ended_leases) in this transaction: a row is deleted
  // once, so whichever path deletes it (a checkout, a checkin, the minute sweep, on any
  // instance) is the one that reports it.
  virtual Result<std::vector<Lease>> take_ended_leases(const LockedLicense& license,
                                                       UnixMillis now) = 0;
  // The licenses holding a lease that ended at or before now, ids above after_id, by id, at
  // most `limit`: the minute sweep's pages (store/lease_sweep.h). Read without a lock; the
  // sweep locks each license before it takes its ended leases.
  virtual Result<std::vector<LicenseRef>> licenses_with_ended_leases(UnixMillis now,
                                                                     int64_t after_id,
                                                                     int64_t limit) = 0;

  // Writes status, max, expires_at, machine_ttl_seconds, deleted_at, plan, entitlements,
  // offline_grace_seconds, valid_for_pending_seconds, offline_lease_seconds,
  // offline_release, max_deactivations, max_concurrent, lease_ttl_seconds and
  // max_borrow_seconds.
  virtual Status update_license(const License& license) = 0;
  virtual Result<std::optional<Product>> find_product(std::string_view slug) = 0;
  virtual Result<License> insert_license(const NewLicense& license) = 0;
  virtual Result<std::optional<Plan>> find_plan(int64_t product_id, std::string_view code) = 0;

  // Trials (docs/protocol.md §19). A trial is kept by (product, HMAC of the machine id) and,
  // when an email was given, by (product, HMAC of the lowercased email), each naming the
  // trial's license key. lock_product_trials serialises the trial creations of one product
  // for the rest of this write transaction (SQLite's writer does already; PostgreSQL locks
  // the product row), so of concurrent first requests exactly one creates.
  virtual Status lock_product_trials(int64_t product_id) = 0;
  virtual Result<std::optional<std::string>> find_trial(int64_t product_id,
                                                        std::string_view machine_hmac) = 0;
  virtual Result<std::optional<std::string>> find_trial_email(int64_t product_id,
                                                              std::string_view email_hmac) = 0;
  virtual Status insert_trial(int64_t product_id, std::string_view machine_hmac,
                              std::string_view license_key, UnixMillis now) = 0;
  virtual Status insert_trial_email(int64_t product_id, std::string_view email_hmac,
                                    std::string_view license_key, UnixMillis now) = 0;

 protected:
  // For lock_license alone, once the store holds the row lock.
  static LockedLicense locked(License license) { return LockedLicense(std::move(license)); }

  // The stores' parts of delete_activation, delete_stale_activations and
  // release_machine_leases, which report what these delete. The activation row alone:
  // false when there was none.
  virtual Result<bool> erase_activation(const LockedLicense& license,
                                        std::string_view machine_id) = 0;
  // The stale activation rows (see delete_stale_activations), deleted and returned as they were.
  virtual Result<std::vector<Activation>> erase_stale_activations(const LockedLicense& license,
                                                                  const Freshness& fresh) = 0;
  // Deletes every lease of the machine, live or ended, and returns them by end, then session.
  virtual Result<std::vector<Lease>> take_machine_leases(const LockedLicense& license,
                                                         std::string_view machine_id) = 0;
};

}  // namespace licensed
