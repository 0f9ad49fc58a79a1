// StoreTx over one SQLite connection. The caller (SqliteStore) owns the transaction. A
// write transaction is the writer's BEGIN IMMEDIATE, which holds SQLite's one write lock
// on the file until COMMIT: no other writer, in this process or another, runs meanwhile,
// so that lock is every license row's lock at once (see lock_license).
#pragma once

#include "store/sqlite/sqlite_connection.h"
#include "store/store_tx.h"

namespace licensed {

class SqliteTx final : public StoreTx {
 public:
  // `write`: the connection is inside the writer's BEGIN IMMEDIATE.
  SqliteTx(SqliteConnection& conn, bool write) : conn_(conn), write_(write) {}

  Result<std::optional<LockedLicense>> lock_license(std::string_view key) override;
  Result<std::optional<License>> find_license(std::string_view key) override;
  Result<std::optional<Product>> find_product(std::string_view slug) override;
  Result<std::vector<Product>> list_products() override;
  Result<Product> insert_product(std::string_view slug, std::string_view name,
                                 UnixMillis now) override;
  Result<License> insert_license(const NewLicense& n) override;
  Status update_product(const Product& product) override;
  Result<std::vector<Plan>> list_plans(int64_t product_id) override;
  Result<std::optional<Plan>> find_plan(int64_t product_id, std::string_view code) override;
  Result<Plan> insert_plan(const Plan& plan) override;
  Status update_plan(const Plan& plan) override;
  Status delete_plan(int64_t plan_id) override;
  Status lock_product_trials(int64_t product_id) override;
  Result<std::optional<std::string>> find_trial(int64_t product_id,
                                                std::string_view machine_hmac) override;
  Result<std::optional<std::string>> find_trial_email(int64_t product_id,
                                                      std::string_view email_hmac) override;
  Status insert_trial(int64_t product_id, std::string_view machine_hmac,
                      std::string_view license_key, UnixMillis now) override;
  Status insert_trial_email(int64_t product_id, std::string_view email_hmac,
                            std::string_view license_key, UnixMillis now) override;
  Result<std::vector<std::string>> delete_trial(int64_t product_id,
                                                std::string_view machine_hmac) override;
  Result<std::string> ensure_server_secret(std::string_view name, std::string_view candidate,
                                           UnixMillis now) override;
  Status update_license(const License& license) override;
  Result<std::vector<License>> list_licenses(const LicenseFilter& filter, int64_t after_id,
                                             int64_t limit) override;
  Result<int64_t> count_licenses(const LicenseFilter& filter) override;
  Status insert_refusal(const Refusal& r) override;
  Result<std::vector<Refusal>> list_refusals(std::string_view license_key, UnixMillis since,
                                             int64_t before_id, int64_t limit) override;
  Result<std::vector<std::pair<std::string, int64_t>>> count_licenses_by_status(
      UnixMillis now) override;
  Result<std::vector<DayCount>> count_activations_per_day(UnixMillis since) override;
  Result<std::vector<DayCount>> count_refusals_per_day(UnixMillis since) override;
  Result<std::vector<TrialStart>> list_trials_since(UnixMillis since) override;
  Result<std::vector<PaidActivation>> list_paid_activations_since(UnixMillis since) override;
  Result<std::vector<CapUse>> licenses_nearest_cap(UnixMillis now, int64_t limit) override;
  Result<std::optional<Activation>> find_activation(int64_t license_id,
                                                    std::string_view machine_id) override;
  Result<int64_t> count_activations(int64_t license_id, const Freshness& fresh) override;
  Result<std::vector<Activation>> list_activations(int64_t license_id) override;
  Status insert_activation(const LockedLicense& license, const Activation& activation) override;
  Status update_activation(int64_t license_id, const Activation& activation) override;
  Status update_offline_activation(const LockedLicense& license,
                                   const Activation& activation) override;
  Status append_deactivation(const LockedLicense& license, std::string_view machine_id,
                             UnixMillis at, bool counted, bool offline) override;
  Result<std::vector<UnixMillis>> counted_deactivations_since(const LockedLicense& license,
                                                              UnixMillis since) override;
  Result<std::optional<UnixMillis>> latest_deactivation(int64_t license_id,
                                                        std::string_view machine_id) override;
  // Concurrent seats (docs/protocol.md §27): in sqlite_lease_tx.cpp.
  Result<int64_t> count_leases(int64_t license_id, UnixMillis now) override;
  Result<std::vector<Lease>> list_leases(int64_t license_id, UnixMillis now) override;
  Result<std::optional<Lease>> find_lease(const LockedLicense& license, std::string_view machine_id,
                                          std::string_view session_id, UnixMillis now) override;
  Status put_lease(const LockedLicense& license, const Lease& lease) override;
  Result<bool> delete_lease(const LockedLicense& license, std::string_view machine_id,
                            std::string_view session_id) override;
  Result<std::vector<Lease>> take_ended_leases(const LockedLicense& license,
                                               UnixMillis now) override;
  Result<std::vector<LicenseRef>> licenses_with_ended_leases(UnixMillis now, int64_t after_id,
                                                             int64_t limit) override;

  Status insert_audit(const AuditEntry& entry) override;
  Result<std::vector<AuditEntry>> list_keyless_audit(std::string_view action,
                                                     std::string_view source, int64_t past_id,
                                                     int64_t limit) override;
  Result<std::vector<AuditEntry>> list_audit(std::string_view license_key, AuditOrder order,
                                             int64_t past_id, int64_t limit) override;
  Status remember_nonce(std::string_view key_id, std::string_view nonce,
                        UnixMillis expires_at) override;
  Result<std::vector<RememberedNonce>> load_nonces(UnixMillis now) override;
  Status purge_nonces(UnixMillis now) override;
  Status insert_admin_token(const AdminToken& token) override;
  Result<std::optional<AdminToken>> find_admin_token(std::string_view token_sha256_hex) override;
  Result<std::vector<AdminToken>> list_admin_tokens() override;
  Result<bool> delete_admin_token(std::string_view name) override;
  Status touch_admin_token(int64_t id, UnixMillis now) override;
  Result<std::vector<std::string>> find_response_keys() override;
  Status insert_response_key(std::string_view private_key_pem, UnixMillis now) override;
  Result<Storefront> insert_storefront(const Storefront& f) override;
  Result<std::optional<Storefront>> find_storefront(int64_t id) override;
  Result<std::vector<Storefront>> list_storefronts() override;
  Status replace_storefront_secrets(int64_t id, const std::vector<std::string>& secrets) override;
  Result<bool> delete_storefront(int64_t id) override;
  Status update_storefront(const Storefront& f) override;
  Status replace_sku_mappings(int64_t store_id, const std::vector<SkuMapping>& mappings) override;
  Status put_sku_mapping(int64_t store_id, const SkuMapping& mapping) override;
  Result<std::vector<SkuMapping>> list_sku_mappings(int64_t store_id) override;
  Result<bool> record_storefront_event(int64_t store_id, std::string_view event_key,
                                       std::string_view event_type, UnixMillis now) override;
  Result<bool> claim_storefront_unit(int64_t store_id, std::string_view order_id, int64_t line,
                                     int64_t unit, std::string_view license_key,
                                     UnixMillis now) override;
  Result<std::vector<std::string>> order_license_keys(int64_t store_id,
                                                      std::string_view order_id) override;
  Result<std::optional<UnixMillis>> find_storefront_event(int64_t store_id,
                                                          std::string_view event_key) override;
  Status put_order_reference(int64_t store_id, std::string_view reference,
                             std::string_view order_id) override;
  Result<std::optional<std::string>> find_order_by_reference(int64_t store_id,
                                                             std::string_view reference) override;
  Result<std::optional<std::string>> find_status_cause(std::string_view license_key) override;
  Status set_status_cause(std::string_view license_key, int64_t store_id, std::string_view cause,
                          UnixMillis now) override;
  Status clear_status_cause(std::string_view license_key) override;
  Result<std::optional<OrderPeriod>> find_order_period(int64_t store_id,
                                                       std::string_view order_id) override;
  Status put_order_period(int64_t store_id, std::string_view order_id,
                          const OrderPeriod& period) override;
  Status record_payment_failure(int64_t store_id, std::string_view order_id,
                                UnixMillis failed_at) override;
  Result<bool> clear_payment_failure(int64_t store_id, std::string_view order_id) override;
  Result<std::vector<PendingPaymentFailure>> due_payment_failures(UnixMillis now,
                                                                  int64_t limit) override;
  Status insert_webhook_event(std::string_view type, UnixMillis at, std::string_view body) override;
  Result<bool> take_webhook_mark(std::string_view mark, UnixMillis now,
                                 std::optional<int64_t> renew_after_ms) override;
  Result<WebhookEndpoint> insert_webhook_endpoint(const WebhookEndpoint& endpoint) override;
  Result<std::optional<WebhookEndpoint>> find_webhook_endpoint(int64_t id, UnixMillis now) override;
  Result<std::vector<WebhookEndpoint>> list_webhook_endpoints(UnixMillis now) override;
  Status update_webhook_endpoint(const WebhookEndpoint& endpoint) override;
  Result<bool> delete_webhook_endpoint(int64_t id) override;
  Status rotate_webhook_secret(int64_t id, std::string_view secret, UnixMillis now,
                               UnixMillis old_retire_at) override;
  Result<std::vector<WebhookDelivery>> claim_webhook_deliveries(UnixMillis now,
                                                                UnixMillis claim_until,
                                                                int64_t limit) override;
  Result<std::optional<WebhookEventRecord>> find_webhook_event(int64_t event_id) override;
  Status record_webhook_attempt(const WebhookDelivery& delivery) override;
  Result<std::vector<WebhookDelivery>> list_webhook_deliveries(int64_t endpoint_id,
                                                               int64_t before_event_id,
                                                               int64_t limit) override;
  Result<bool> retry_webhook_delivery(int64_t endpoint_id, int64_t event_id,
                                      UnixMillis now) override;
  Result<WebhookOutboxStats> webhook_outbox_stats() override;
  Result<int64_t> prune_webhook_outbox(UnixMillis done_before, UnixMillis all_before) override;
  Result<std::vector<License>> licenses_expiring_between(UnixMillis from, UnixMillis to,
                                                         int64_t after_id, int64_t limit) override;
  Result<std::vector<License>> licenses_with_entitlements(int64_t after_id, int64_t limit) override;
  Result<std::vector<License>> licenses_with_offline_ending_between(UnixMillis from, UnixMillis to,
                                                                    int64_t after_id,
                                                                    int64_t limit) override;
  Result<std::vector<DumpRow>> dump_rows(const DumpTable& table) override;
  Result<bool> table_is_empty(const DumpTable& table) override;
  Status restore_row(const DumpTable& table, const DumpRow& row) override;
  Status finish_restore() override;

 private:
  // The removals LicenseTx::delete_activation, delete_stale_activations and
  // release_machine_leases report (core/license_tx.h); the leases part in the *_lease_tx.cpp.
  Result<bool> erase_activation(const LockedLicense& license, std::string_view machine_id) override;
  Result<std::vector<Activation>> erase_stale_activations(const LockedLicense& license,
                                                          const Freshness& fresh) override;
  Result<std::vector<Lease>> take_machine_leases(const LockedLicense& license,
                                                 std::string_view machine_id) override;

  Status load_webhook_secrets(WebhookEndpoint& endpoint, UnixMillis now);
  Result<std::vector<License>> read_licenses(const char* sql, std::string_view what,
                                             const std::vector<int64_t>& values);

  SqliteConnection& conn_;
  const bool write_;
};

}  // namespace licensed
