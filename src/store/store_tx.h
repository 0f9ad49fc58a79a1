// What an operation may do inside one store transaction. Both stores implement it;
// operations (src/core/operations.h through its port LicenseTx, src/admin/admin_operations.h)
// are written against it only, so they know nothing of SQL. StoreTx adds to the License
// API's port what the admin, the dashboard, the server's own keys and nonces and export
// and import need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/license.h"
#include "core/license_tx.h"
#include "core/result.h"
#include "store/dump_schema.h"
#include "store/storefront.h"
#include "store/support_queries.h"
#include "store/webhook_records.h"

namespace licensed {

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
  // Support's search (docs/protocol.md §22.10): the buyer's email, compared without regard to ASCII
  // case, and the store's order id, compared exactly.
  std::optional<std::string> customer_email;
  std::optional<std::string> order_id;
  // docs/protocol.md §26.2: part of the key (hex digits and dashes, lowercase), anywhere in
  // it; a machine by its exact id or part of its name (case ignored for ASCII), any
  // activation of the license, freed ones too.
  std::optional<std::string> key_part;
  std::optional<std::string> machine;
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

class StoreTx : public LicenseTx {
 public:
  virtual Result<std::vector<Product>> list_products() = 0;
  virtual Result<Product> insert_product(std::string_view slug, std::string_view name,
                                         UnixMillis now) = 0;
  // Writes default_plan and trial.
  virtual Status update_product(const Product& product) = 0;

  // Plans (docs/protocol.md §19): codes are unique within a product.
  virtual Result<std::vector<Plan>> list_plans(int64_t product_id) = 0;
  virtual Result<Plan> insert_plan(const Plan& plan) = 0;
  virtual Status update_plan(const Plan& plan) = 0;
  virtual Status delete_plan(int64_t plan_id) = 0;

  // Forgets the trial records of (product, machine), and the email records of the same
  // license; the licenses those trials made whose keys come back.
  virtual Result<std::vector<std::string>> delete_trial(int64_t product_id,
                                                        std::string_view machine_hmac) = 0;

  // A secret the server made for itself (the trial key: docs/protocol.md §19): the stored one
  // of that name; `candidate` is stored first when there is none.
  virtual Result<std::string> ensure_server_secret(std::string_view name,
                                                   std::string_view candidate, UnixMillis now) = 0;
  // Keyset page for the admin API: licenses matching `filter` with id > `after_id`,
  // ordered by id, at most `limit`.
  virtual Result<std::vector<License>> list_licenses(const LicenseFilter& filter, int64_t after_id,
                                                     int64_t limit) = 0;

  // How many licenses match `filter` in all: the true total beside a page.
  virtual Result<int64_t> count_licenses(const LicenseFilter& filter) = 0;

  // Refused requests (docs/protocol.md §26.1). insert_refusal also forgets the refusals
  // older than kRefusalsKeptMillis before `r.at` (of every license) and those of r's
  // license beyond the newest kRefusalsKeptPerLicense.
  virtual Status insert_refusal(const Refusal& r) = 0;
  // A license's refusals at or after `since`, newest first, ids below `before_id` (0: from
  // the newest), at most `limit`.
  virtual Result<std::vector<Refusal>> list_refusals(std::string_view license_key, UnixMillis since,
                                                     int64_t before_id, int64_t limit) = 0;

  // The vendor overview's figures (docs/protocol.md §26.3).
  // Live licenses by effective status (ACTIVE, EXPIRED, SUSPENDED, REFUNDED, REVOKED) at
  // `now`; statuses with none are left out, in no particular order.
  virtual Result<std::vector<std::pair<std::string, int64_t>>> count_licenses_by_status(
      UnixMillis now) = 0;
  // First activations (license.activate without refresh) per UTC day since `since`;
  // series "activations".
  virtual Result<std::vector<DayCount>> count_activations_per_day(UnixMillis since) = 0;
  // Refusals per UTC day and code since `since`; the series is the code.
  virtual Result<std::vector<DayCount>> count_refusals_per_day(UnixMillis since) = 0;
  virtual Result<std::vector<TrialStart>> list_trials_since(UnixMillis since) = 0;
  // Activations made since `since` of licenses that are not trials.
  virtual Result<std::vector<PaidActivation>> list_paid_activations_since(UnixMillis since) = 0;
  // Live ACTIVE licenses (expiry not passed at `now`, max > 0) with at least one machine
  // holding a slot, most of their cap taken first, at most `limit`.
  virtual Result<std::vector<CapUse>> licenses_nearest_cap(UnixMillis now, int64_t limit) = 0;

  // A keyset page of one license's audit, at most `limit` records: oldest first with ids
  // greater than `past_id`, or newest first with ids less than it (0: from the newest).
  // Either order walks the index on (license_key, id) from the bound, so a page costs
  // the same however long the license's log has grown.
  virtual Result<std::vector<AuditEntry>> list_audit(std::string_view license_key, AuditOrder order,
                                                     int64_t past_id, int64_t limit) = 0;

  // Audit records of no license (license_key empty) with this action and exactly this
  // source (as stored), newest first with ids below `past_id` (0: from the newest), at
  // most `limit`: a store's store.rejected records (docs/protocol.md §22.8). Walks the index on
  // (license_key, id) from the bound.
  virtual Result<std::vector<AuditEntry>> list_keyless_audit(std::string_view action,
                                                             std::string_view source,
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

  // The response keys the server made for itself on its first start, one per algorithm
  // it was given no --response-key of (docs/protocol.md §14): every stored one as PKCS#8
  // PEM, oldest first (the key says its algorithm). In a write transaction the table stays
  // locked until it ends, so servers starting together agree on one key per algorithm.
  virtual Result<std::vector<std::string>> find_response_keys() = 0;
  virtual Status insert_response_key(std::string_view private_key_pem, UnixMillis now) = 0;

  // Stores a vendor sells through (docs/protocol.md §22.1). insert_storefront assigns the id and
  // writes the secrets; find_storefront reads them back (the inbound check needs them).
  virtual Result<Storefront> insert_storefront(const Storefront& storefront) = 0;
  virtual Result<std::optional<Storefront>> find_storefront(int64_t id) = 0;
  virtual Result<std::vector<Storefront>> list_storefronts() = 0;
  virtual Status replace_storefront_secrets(int64_t id,
                                            const std::vector<std::string>& secrets) = 0;
  // Forgets the store with its secrets, mappings, events and units; its licenses stay.
  // False when there was no such store.
  virtual Result<bool> delete_storefront(int64_t id) = 0;
  // Writes name, options_json and payment_grace_seconds.
  virtual Status update_storefront(const Storefront& storefront) = 0;
  // Adds or replaces the mapping of one item id.
  virtual Status put_sku_mapping(int64_t store_id, const SkuMapping& mapping) = 0;
  virtual Result<std::vector<SkuMapping>> list_sku_mappings(int64_t store_id) = 0;
  // Replaces the store's whole mapping with `mappings`.
  virtual Status replace_sku_mappings(int64_t store_id,
                                      const std::vector<SkuMapping>& mappings) = 0;
  // Records an inbound event under (store, event key): true when it is new, false when
  // that key was recorded before. Concurrent first deliveries of one key: one gets true,
  // the others wait for it and get false (or, should it roll back, one of them true).
  virtual Result<bool> record_storefront_event(int64_t store_id, std::string_view event_key,
                                               std::string_view event_type, UnixMillis now) = 0;
  // Claims one unit of an order line for `license_key`: true when it was unclaimed.
  virtual Result<bool> claim_storefront_unit(int64_t store_id, std::string_view order_id,
                                             int64_t line, int64_t unit,
                                             std::string_view license_key, UnixMillis now) = 0;
  // The distinct license keys of an order's units, in the order they were claimed.
  virtual Result<std::vector<std::string>> order_license_keys(int64_t store_id,
                                                              std::string_view order_id) = 0;
  // When the event of that key was first recorded; nullopt when it never was.
  virtual Result<std::optional<UnixMillis>> find_storefront_event(int64_t store_id,
                                                                  std::string_view event_key) = 0;

  // The store lifecycle (docs/protocol.md §22.7). Later events of an order cite it by its id or by
  // another id the sale listed (a payment intent, a subscription): fulfilment writes each
  // as a reference to the order; the first order to claim a reference keeps it.
  virtual Status put_order_reference(int64_t store_id, std::string_view reference,
                                     std::string_view order_id) = 0;
  virtual Result<std::optional<std::string>> find_order_by_reference(
      int64_t store_id, std::string_view reference) = 0;
  // Which store event set a license's current status ("dispute:<id>", "payment"): a won
  // dispute or a payment restores ACTIVE only where it is theirs. Any other status
  // change clears it (set_license_status).
  virtual Result<std::optional<std::string>> find_status_cause(std::string_view license_key) = 0;
  virtual Status set_status_cause(std::string_view license_key, int64_t store_id,
                                  std::string_view cause, UnixMillis now) = 0;
  virtual Status clear_status_cause(std::string_view license_key) = 0;
  // The latest subscription period recorded for an order; put replaces it.
  virtual Result<std::optional<OrderPeriod>> find_order_period(int64_t store_id,
                                                               std::string_view order_id) = 0;
  virtual Status put_order_period(int64_t store_id, std::string_view order_id,
                                  const OrderPeriod& period) = 0;
  // A failed payment of an order; one already pending keeps its (earlier) time.
  virtual Status record_payment_failure(int64_t store_id, std::string_view order_id,
                                        UnixMillis failed_at) = 0;
  // True when one was pending. On PostgreSQL the row's lock decides between a payment
  // and the sweep arriving together: whoever deletes it acts on it.
  virtual Result<bool> clear_payment_failure(int64_t store_id, std::string_view order_id) = 0;
  // Failures whose store's paymentGrace has passed at `now`, oldest first, at most `limit`.
  virtual Result<std::vector<PendingPaymentFailure>> due_payment_failures(UnixMillis now,
                                                                          int64_t limit) = 0;

  // Webhook endpoints (docs/protocol.md §25). insert assigns the id and writes the secrets; find
  // and list read the secrets not retired at `now` (newest first); update writes url, description,
  // events, enabled, failing_since and disabled_reason. Deleting one forgets its secrets and
  // deliveries. False when there was no such endpoint.
  virtual Result<WebhookEndpoint> insert_webhook_endpoint(const WebhookEndpoint& endpoint) = 0;
  virtual Result<std::optional<WebhookEndpoint>> find_webhook_endpoint(int64_t id,
                                                                       UnixMillis now) = 0;
  virtual Result<std::vector<WebhookEndpoint>> list_webhook_endpoints(UnixMillis now) = 0;
  virtual Status update_webhook_endpoint(const WebhookEndpoint& endpoint) = 0;
  virtual Result<bool> delete_webhook_endpoint(int64_t id) = 0;
  // A rotation: the secrets signing now sign until `old_retire_at` (never later than they
  // would have), those retired by `now` are forgotten, and `secret` is added.
  virtual Status rotate_webhook_secret(int64_t id, std::string_view secret, UnixMillis now,
                                       UnixMillis old_retire_at) = 0;

  // The outbox. claim: at most `limit` deliveries due at `now` to enabled endpoints, each
  // marked claimed until `claim_until` (its next_attempt_at), so no other instance attempts
  // it meanwhile (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: its one writer); should the
  // claimer die, the attempt is made again once the claim lapses.
  virtual Result<std::vector<WebhookDelivery>> claim_webhook_deliveries(UnixMillis now,
                                                                        UnixMillis claim_until,
                                                                        int64_t limit) = 0;
  virtual Result<std::optional<WebhookEventRecord>> find_webhook_event(int64_t event_id) = 0;
  // Writes attempts, next_attempt_at, last_status, last_error, delivered_at and failed.
  virtual Status record_webhook_attempt(const WebhookDelivery& delivery) = 0;
  // One endpoint's deliveries, newest event first, with event ids below `before_event_id`
  // (0: from the newest), at most `limit`.
  virtual Result<std::vector<WebhookDelivery>> list_webhook_deliveries(int64_t endpoint_id,
                                                                       int64_t before_event_id,
                                                                       int64_t limit) = 0;
  // Makes the delivery due at `now` again, failed or delivered; false when there is none.
  virtual Result<bool> retry_webhook_delivery(int64_t endpoint_id, int64_t event_id,
                                              UnixMillis now) = 0;
  virtual Result<WebhookOutboxStats> webhook_outbox_stats() = 0;
  // Forgets deliveries no longer pending of events older than `done_before`, every delivery
  // of events older than `all_before`, events left with none, and marks taken before
  // `all_before`. Answers how many events it forgot.
  virtual Result<int64_t> prune_webhook_outbox(UnixMillis done_before, UnixMillis all_before) = 0;
  // Live licenses (not deleted, stored ACTIVE) whose expiresAt is in (from, to], with ids
  // above `after_id`, by id, at most `limit`: the expiry sweeps' candidates.
  virtual Result<std::vector<License>> licenses_expiring_between(UnixMillis from, UnixMillis to,
                                                                 int64_t after_id,
                                                                 int64_t limit) = 0;
  // Live licenses with any entitlement, ids above `after_id`, by id, at most `limit`.
  virtual Result<std::vector<License>> licenses_with_entitlements(int64_t after_id,
                                                                  int64_t limit) = 0;
  // Live licenses with an offline activation, not deactivated, whose file ends in
  // (from, to]; ids above `after_id`, by id, at most `limit`: the offline_expiring sweep's.
  virtual Result<std::vector<License>> licenses_with_offline_ending_between(UnixMillis from,
                                                                            UnixMillis to,
                                                                            int64_t after_id,
                                                                            int64_t limit) = 0;

  // Export and import (`licensed admin export|import`, src/admin/store_transfer.h):
  // every row of a table in key order; one row written with its ids as they were; and,
  // after the last, the id counters moved past the rows written.
  virtual Result<std::vector<DumpRow>> dump_rows(const DumpTable& table) = 0;
  virtual Result<bool> table_is_empty(const DumpTable& table) = 0;
  virtual Status restore_row(const DumpTable& table, const DumpRow& row) = 0;
  virtual Status finish_restore() = 0;

 protected:
  // What lock_license answers outside a write transaction: a bug in the caller.
  static Error lock_outside_write_transaction() {
    return Error::internal("lock license: not in a write transaction");
  }
};

}  // namespace licensed
