// What an operation may do inside one store transaction. Both stores implement it;
// operations (src/core/operations.h, src/admin/admin_operations.h) are written
// against it only, so they know nothing of SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/license.h"
#include "core/result.h"
#include "store/dump_schema.h"

namespace licensed {

struct NewLicense {
  std::string key;
  int64_t product_id = 0;
  LicenseStatus status = LicenseStatus::kActive;
  std::optional<UnixMillis> expires_at;
  int64_t max = 0;
  std::optional<int64_t> machine_ttl_seconds;
  UnixMillis created_at = 0;
};

// Which licenses the admin API lists (docs/protocol.md §18): all filters optional but
// `deleted`, which picks the live licenses (false) or the soft-deleted ones (true).
struct LicenseFilter {
  std::optional<int64_t> product_id;
  std::optional<LicenseStatus> stored_status;
  // Set: only licenses whose expiresAt has passed at `now` (true) or not (false). With a
  // stored ACTIVE, this selects the effective status EXPIRED or ACTIVE.
  std::optional<bool> expired;
  UnixMillis now = 0;
  bool deleted = false;
};

// Which way a page of one license's audit runs: oldest first (the admin API, `licensed
// admin audit`, export) or newest first (the customer dashboard shows the latest).
enum class AuditOrder { kOldestFirst, kNewestFirst };

// The exclusive id bound of an audit page that starts past `past_id`: newest first from
// 0 means from the newest record, so no bound.
inline int64_t audit_id_bound(AuditOrder order, int64_t past_id) {
  return order == AuditOrder::kNewestFirst && past_id == 0 ? INT64_MAX : past_id;
}

// A bearer token of the admin HTTP API. Only the SHA-256 of the token is kept.
struct AdminToken {
  int64_t id = 0;
  std::string name;
  std::string token_sha256_hex;
  bool read_only = false;
  UnixMillis created_at = 0;
  std::optional<UnixMillis> last_used_at;
};

// Proof that the transaction at hand holds the lock on one license's row, with the row as
// read under that lock. The cap rests on it: while it is held no other transaction can add
// or remove a machine of this license, so a count made under it stays true until the
// insert that follows commits. Only a store makes one (StoreTx::lock_license), and only
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
  friend class StoreTx;
  explicit LockedLicense(License license) : license_(std::move(license)) {}

  License license_;
};

class StoreTx {
 public:
  virtual ~StoreTx() = default;

  // Locks the license row for the rest of this write transaction and reads it: nullopt
  // when there is no such key (a soft-deleted license is returned; the caller decides).
  // Fails, as a bug, in a read transaction.
  virtual Result<std::optional<LockedLicense>> lock_license(std::string_view key) = 0;
  // The license as this transaction sees it. On PostgreSQL a write transaction locks the
  // row here too, so every admin change of a license queues behind a running activation;
  // an operation that relies on the lock takes lock_license instead, which says so.
  virtual Result<std::optional<License>> find_license(std::string_view key) = 0;
  virtual Result<std::optional<Product>> find_product(std::string_view slug) = 0;
  virtual Result<std::vector<Product>> list_products() = 0;
  virtual Result<Product> insert_product(std::string_view slug, std::string_view name,
                                         UnixMillis now) = 0;
  virtual Result<License> insert_license(const NewLicense& license) = 0;
  // Keyset page for the admin API: licenses matching `filter` with id > `after_id`,
  // ordered by id, at most `limit`.
  virtual Result<std::vector<License>> list_licenses(const LicenseFilter& filter, int64_t after_id,
                                                     int64_t limit) = 0;
  // Writes status, max, expires_at, machine_ttl_seconds and deleted_at.
  virtual Status update_license(const License& license) = 0;

  virtual Result<std::optional<Activation>> find_activation(int64_t license_id,
                                                            std::string_view machine_id) = 0;
  // Machines seen at or after `seen_since` (all when nullopt): what an answer shows.
  virtual Result<int64_t> count_activations(int64_t license_id,
                                            std::optional<UnixMillis> seen_since) = 0;
  // The same count made under the license's lock, so it can be checked against the cap:
  // no other transaction can change it before this one ends.
  Result<int64_t> count_activations(const LockedLicense& license,
                                    std::optional<UnixMillis> seen_since) {
    return count_activations(license->id, seen_since);
  }
  virtual Result<std::vector<Activation>> list_activations(int64_t license_id) = 0;
  // Takes a slot: only under the license's lock, after the count that allowed it.
  virtual Status insert_activation(const LockedLicense& license, const Activation& activation) = 0;
  virtual Status update_activation(int64_t license_id, const Activation& activation) = 0;
  // False when there was no such activation.
  virtual Result<bool> delete_activation(int64_t license_id, std::string_view machine_id) = 0;
  // Deletes the machines last seen before `before`; returns their ids. Under the lock,
  // since the slots it frees are counted against the cap right after.
  virtual Result<std::vector<std::string>> delete_stale_activations(const LockedLicense& license,
                                                                    UnixMillis before) = 0;

  virtual Status append_audit(const AuditEntry& entry) = 0;
  // A keyset page of one license's audit, at most `limit` records: oldest first with ids
  // greater than `past_id`, or newest first with ids less than it (0: from the newest).
  // Either order walks the index on (license_key, id) from the bound, so a page costs
  // the same however long the license's log has grown.
  virtual Result<std::vector<AuditEntry>> list_audit(std::string_view license_key, AuditOrder order,
                                                     int64_t past_id, int64_t limit) = 0;

  // Nonces of requests dated ahead of the server clock (docs/protocol.md §3.4, restart rule).
  virtual Status remember_nonce(std::string_view key_id, std::string_view nonce,
                                UnixMillis expires_at) = 0;
  struct RememberedNonce {
    std::string key_id;
    std::string nonce;
    UnixMillis expires_at = 0;
  };
  virtual Result<std::vector<RememberedNonce>> load_nonces(UnixMillis now) = 0;
  virtual Status purge_nonces(UnixMillis now) = 0;

  // Admin API tokens (docs/protocol.md §18). Names are unique.
  virtual Status insert_admin_token(const AdminToken& token) = 0;
  virtual Result<std::optional<AdminToken>> find_admin_token(std::string_view token_sha256_hex) = 0;
  virtual Result<std::vector<AdminToken>> list_admin_tokens() = 0;
  // False when there was no token of that name.
  virtual Result<bool> delete_admin_token(std::string_view name) = 0;
  virtual Status touch_admin_token(int64_t id, UnixMillis now) = 0;

  // The response key the server made for itself on its first start without
  // --response-key (docs/protocol.md §14): the oldest stored one, as PKCS#8 PEM, or nullopt
  // when none was made yet.
  virtual Result<std::optional<std::string>> find_response_key() = 0;
  virtual Status insert_response_key(std::string_view private_key_pem, UnixMillis now) = 0;

  // Export and import (`licensed admin export|import`, src/admin/store_transfer.h):
  // every row of a table in key order; one row written with its ids as they were; and,
  // after the last, the id counters moved past the rows written.
  virtual Result<std::vector<DumpRow>> dump_rows(const DumpTable& table) = 0;
  virtual Result<bool> table_is_empty(const DumpTable& table) = 0;
  virtual Status restore_row(const DumpTable& table, const DumpRow& row) = 0;
  virtual Status finish_restore() = 0;

 protected:
  // For lock_license alone, once the store holds the row lock.
  static LockedLicense locked(License license) { return LockedLicense(std::move(license)); }
  // What lock_license answers outside a write transaction: a bug in the caller.
  static Error lock_outside_write_transaction() {
    return Error::internal("lock license: not in a write transaction");
  }
};

}  // namespace licensed
