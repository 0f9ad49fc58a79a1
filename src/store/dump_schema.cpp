#include "store/dump_schema.h"

#include <string_view>

namespace licensed {

const std::vector<DumpTable>& dump_tables() {
  using K = DumpKind;
  static const std::vector<DumpTable> tables = {
      {"products",
       {{"id", K::kInt},
        {"slug", K::kText},
        {"name", K::kText},
        {"created_at", K::kInt},
        {"default_plan", K::kText},
        {"trial_plan", K::kText},
        {"trial_days", K::kInt}},
       {"id"},
       true},
      {"plans",
       {{"id", K::kInt},
        {"product_id", K::kInt},
        {"code", K::kText},
        {"name", K::kText},
        {"spec", K::kText},
        {"created_at", K::kInt}},
       {"id"},
       true},
      {"licenses",
       {{"id", K::kInt},
        {"license_key", K::kText},
        {"product_id", K::kInt},
        {"status", K::kText},
        {"max_activations", K::kInt},
        {"expires_at", K::kInt},
        {"machine_ttl", K::kInt},
        {"created_at", K::kInt},
        {"deleted_at", K::kInt},
        {"plan", K::kText},
        {"entitlements", K::kText},
        {"offline_grace", K::kInt},
        {"trial", K::kBool},
        {"valid_for_pending", K::kInt},
        {"customer_email", K::kText},
        {"customer_name", K::kText},
        {"source_provider", K::kText},
        {"source_store_id", K::kInt},
        {"source_order_id", K::kText},
        {"offline_lease", K::kInt},
        {"offline_release", K::kText},
        {"max_deactivations", K::kInt}},
       {"id"},
       true},
      // Trials by the HMACs of machine ids and emails; without the secret below they would
      // no longer match, so it moves too.
      {"trials",
       {{"product_id", K::kInt},
        {"machine_hmac", K::kText},
        {"license_key", K::kText},
        {"created_at", K::kInt}},
       {"product_id", "machine_hmac"},
       false},
      {"trial_emails",
       {{"product_id", K::kInt},
        {"email_hmac", K::kText},
        {"license_key", K::kText},
        {"created_at", K::kInt}},
       {"product_id", "email_hmac"},
       false},
      {"server_secrets",
       {{"name", K::kText}, {"secret", K::kText}, {"created_at", K::kInt}},
       {"name"},
       false},
      {"activations",
       {{"license_id", K::kInt},
        {"machine_id", K::kText},
        {"machine_name", K::kText},
        {"activated_at", K::kInt},
        {"last_seen_at", K::kInt},
        {"offline_until", K::kInt},
        {"offline_file_id", K::kText},
        {"offline_nonce", K::kText},
        {"offline_payload", K::kText},
        {"deactivated_at", K::kInt}},
       {"license_id", "machine_id"},
       false},
      // The deactivations the quota counts (docs/protocol.md §21.6), and the latest per machine,
      // which an older offline request may not undo.
      {"deactivations",
       {{"id", K::kInt},
        {"license_id", K::kInt},
        {"machine_id", K::kText},
        {"at", K::kInt},
        {"counted", K::kBool},
        {"offline", K::kBool}},
       {"id"},
       true},
      {"audit_log",
       {{"id", K::kInt},
        {"at", K::kInt},
        {"action", K::kText},
        {"license_key", K::kText},
        {"machine_id", K::kText},
        {"refresh", K::kBool},
        {"actor", K::kText},
        {"actor_name", K::kText},
        {"ip", K::kText},
        {"key_id", K::kText},
        {"request_id", K::kText},
        {"changes", K::kText},
        {"reason", K::kText},
        {"source", K::kText},
        {"offline", K::kBool}},
       {"id"},
       true},
      {"remembered_nonces",
       {{"key_id", K::kText}, {"nonce", K::kText}, {"expires_at", K::kInt}},
       {"key_id", "nonce"},
       false},
      // The server's own response key: without it a moved deployment would sign with a
      // new key, and plugins that pinned the old one would refuse every answer.
      {"response_keys",
       {{"id", K::kInt}, {"private_key", K::kText}, {"created_at", K::kInt}},
       {"id"},
       true},
      // Stores and what they have fulfilled: a moved deployment must not fulfil an order
      // again, and keeps the secrets its stores sign with.
      {"storefronts",
       {{"id", K::kInt},
        {"provider", K::kText},
        {"name", K::kText},
        {"token_sha256", K::kText},
        {"options", K::kText},
        {"payment_grace", K::kInt},
        {"created_at", K::kInt}},
       {"id"},
       true},
      {"storefront_secrets",
       {{"store_id", K::kInt}, {"position", K::kInt}, {"secret", K::kText}},
       {"store_id", "position"},
       false},
      {"storefront_skus",
       {{"store_id", K::kInt},
        {"item_id", K::kText},
        {"product_id", K::kInt},
        {"plan", K::kText},
        {"per_unit", K::kBool}},
       {"store_id", "item_id"},
       false},
      {"storefront_events",
       {{"store_id", K::kInt},
        {"event_key", K::kText},
        {"event_type", K::kText},
        {"received_at", K::kInt}},
       {"store_id", "event_key"},
       false},
      {"storefront_units",
       {{"store_id", K::kInt},
        {"order_id", K::kText},
        {"line", K::kInt},
        {"unit", K::kInt},
        {"license_key", K::kText},
        {"created_at", K::kInt}},
       {"store_id", "order_id", "line", "unit"},
       false},
      // The lifecycle's records: without them a moved deployment would not find an
      // order by its payment intent, nor know which dispute suspended a license.
      {"storefront_order_refs",
       {{"store_id", K::kInt}, {"reference", K::kText}, {"order_id", K::kText}},
       {"store_id", "reference"},
       false},
      {"storefront_status_causes",
       {{"license_key", K::kText}, {"store_id", K::kInt}, {"cause", K::kText}, {"set_at", K::kInt}},
       {"license_key"},
       false},
      {"storefront_order_periods",
       {{"store_id", K::kInt},
        {"order_id", K::kText},
        {"period_start", K::kInt},
        {"period_end", K::kInt}},
       {"store_id", "order_id"},
       false},
      {"storefront_payment_failures",
       {{"store_id", K::kInt}, {"order_id", K::kText}, {"failed_at", K::kInt}},
       {"store_id", "order_id"},
       false},
      // Admin API tokens, as their hashes: a moved deployment keeps its shop's tokens.
      {"admin_tokens",
       {{"id", K::kInt},
        {"name", K::kText},
        {"token_sha256", K::kText},
        {"read_only", K::kBool},
        {"created_at", K::kInt},
        {"last_used_at", K::kInt}},
       {"id"},
       true},
  };
  return tables;
}

std::string column_list(const DumpTable& table) {
  std::string out;
  for (const auto& c : table.columns) {
    if (!out.empty()) out += ", ";
    out += c.name;
  }
  return out;
}

std::string order_by(const DumpTable& table, const std::string& text_collation) {
  std::string out;
  for (const char* name : table.key) {
    if (!out.empty()) out += ", ";
    out += name;
    for (const auto& c : table.columns) {
      if (std::string_view(c.name) == name && c.kind == DumpKind::kText) out += text_collation;
    }
  }
  return out;
}

}  // namespace licensed
