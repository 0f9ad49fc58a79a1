// SqliteTx's part for stores a vendor sells through (docs/protocol.md §22): the stores, their
// secrets and mappings, and the exactly-once records of events and fulfilled units. Every write
// runs on the single writer, so a record's "new or not" is decided in series.
#include <algorithm>
#include <string>

#include "store/sqlite/sqlite_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectStorefronts =
    "SELECT id, provider, name, token_sha256, options, payment_grace, created_at"
    " FROM storefronts";

Storefront read_storefront(const Statement& s) {
  Storefront f;
  f.id = s.int64(0);
  f.provider = s.text(1);
  f.name = s.text(2);
  f.token_sha256_hex = s.text(3);
  f.options_json = s.text(4);
  f.payment_grace_seconds = s.int64(5);
  f.created_at = s.int64(6);
  return f;
}

}  // namespace

Result<Storefront> SqliteTx::insert_storefront(const Storefront& f) {
  if (f.secrets.size() > kMaxStorefrontSecrets) {
    return Error::invalid_argument("secret", "at most 3 secrets");
  }
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefronts (provider, name, token_sha256,"
                                         " options, payment_grace, created_at)"
                                         " VALUES (?, ?, ?, ?, ?, ?)"));
  s->bind(1, std::string_view(f.provider)).bind(2, std::string_view(f.name));
  s->bind(3, std::string_view(f.token_sha256_hex)).bind(4, std::string_view(f.options_json));
  s->bind(5, f.payment_grace_seconds).bind(6, f.created_at);
  RETURN_IF_ERROR(s->run("insert store"));
  Storefront out = f;
  out.id = sqlite3_last_insert_rowid(conn_.handle());
  RETURN_IF_ERROR(replace_storefront_secrets(out.id, f.secrets));
  return out;
}

Result<std::optional<Storefront>> SqliteTx::find_storefront(int64_t id) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare((std::string(kSelectStorefronts) + " WHERE id = ?").c_str()));
  s->bind(1, id);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<Storefront>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find store");
  Storefront f = read_storefront(*s);
  ASSIGN_OR_RETURN(auto secrets, conn_.prepare("SELECT secret FROM storefront_secrets"
                                               " WHERE store_id = ? ORDER BY position"));
  secrets->bind(1, id);
  int src;
  while ((src = secrets->step()) == SQLITE_ROW) f.secrets.push_back(secrets->text(0));
  if (src != SQLITE_DONE) return secrets->failure(src, "find store secrets");
  return std::optional<Storefront>(std::move(f));
}

Result<std::vector<Storefront>> SqliteTx::list_storefronts() {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare((std::string(kSelectStorefronts) + " ORDER BY id").c_str()));
  std::vector<Storefront> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_storefront(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list stores");
  return out;
}

Status SqliteTx::replace_storefront_secrets(int64_t id, const std::vector<std::string>& secrets) {
  if (secrets.size() > kMaxStorefrontSecrets) {
    return Error::invalid_argument("secret", "at most 3 secrets");
  }
  ASSIGN_OR_RETURN(auto del, conn_.prepare("DELETE FROM storefront_secrets WHERE store_id = ?"));
  RETURN_IF_ERROR(del->bind(1, id).run("forget store secrets"));
  for (size_t i = 0; i < secrets.size(); ++i) {
    ASSIGN_OR_RETURN(auto ins, conn_.prepare("INSERT INTO storefront_secrets (store_id, position,"
                                             " secret) VALUES (?, ?, ?)"));
    ins->bind(1, id).bind(2, static_cast<int64_t>(i)).bind(3, std::string_view(secrets[i]));
    RETURN_IF_ERROR(ins->run("keep store secret"));
  }
  return Ok{};
}

Result<bool> SqliteTx::delete_storefront(int64_t id) {
  for (const char* sql : {"DELETE FROM storefront_secrets WHERE store_id = ?",
                          "DELETE FROM storefront_skus WHERE store_id = ?",
                          "DELETE FROM storefront_events WHERE store_id = ?",
                          "DELETE FROM storefront_units WHERE store_id = ?",
                          "DELETE FROM storefront_order_refs WHERE store_id = ?",
                          "DELETE FROM storefront_order_periods WHERE store_id = ?",
                          "DELETE FROM storefront_payment_failures WHERE store_id = ?",
                          "DELETE FROM storefront_status_causes WHERE store_id = ?"}) {
    ASSIGN_OR_RETURN(auto s, conn_.prepare(sql));
    RETURN_IF_ERROR(s->bind(1, id).run("delete store"));
  }
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM storefronts WHERE id = ?"));
  RETURN_IF_ERROR(s->bind(1, id).run("delete store"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Status SqliteTx::update_storefront(const Storefront& f) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE storefronts SET name = ?, options = ?,"
                                         " payment_grace = ? WHERE id = ?"));
  s->bind(1, std::string_view(f.name)).bind(2, std::string_view(f.options_json));
  return s->bind(3, f.payment_grace_seconds).bind(4, f.id).run("update store");
}

Status SqliteTx::replace_sku_mappings(int64_t store_id, const std::vector<SkuMapping>& mappings) {
  ASSIGN_OR_RETURN(auto del, conn_.prepare("DELETE FROM storefront_skus WHERE store_id = ?"));
  RETURN_IF_ERROR(del->bind(1, store_id).run("replace store mappings"));
  for (const auto& m : mappings) RETURN_IF_ERROR(put_sku_mapping(store_id, m));
  return Ok{};
}

Status SqliteTx::put_sku_mapping(int64_t store_id, const SkuMapping& m) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_skus (store_id, item_id,"
                                         " product_id, plan, per_unit) VALUES (?, ?, ?, ?, ?)"
                                         " ON CONFLICT (store_id, item_id) DO UPDATE SET"
                                         " product_id = excluded.product_id,"
                                         " plan = excluded.plan, per_unit = excluded.per_unit"));
  s->bind(1, store_id).bind(2, std::string_view(m.item_id)).bind(3, m.product_id);
  s->bind(4, std::string_view(m.plan)).bind(5, static_cast<int64_t>(m.per_unit ? 1 : 0));
  return s->run("put store mapping");
}

Result<std::vector<SkuMapping>> SqliteTx::list_sku_mappings(int64_t store_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT item_id, product_id, plan, per_unit"
                                         " FROM storefront_skus WHERE store_id = ?"
                                         " ORDER BY item_id"));
  s->bind(1, store_id);
  std::vector<SkuMapping> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    out.push_back(SkuMapping{s->text(0), s->int64(1), s->text(2), s->int64(3) != 0});
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list store mappings");
  return out;
}

Result<bool> SqliteTx::record_storefront_event(int64_t store_id, std::string_view event_key,
                                               std::string_view event_type, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_events (store_id, event_key,"
                                         " event_type, received_at) VALUES (?, ?, ?, ?)"
                                         " ON CONFLICT (store_id, event_key) DO NOTHING"));
  s->bind(1, store_id).bind(2, event_key).bind(3, event_type).bind(4, now);
  RETURN_IF_ERROR(s->run("record store event"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<bool> SqliteTx::claim_storefront_unit(int64_t store_id, std::string_view order_id,
                                             int64_t line, int64_t unit,
                                             std::string_view license_key, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_units (store_id, order_id, line,"
                                         " unit, license_key, created_at)"
                                         " VALUES (?, ?, ?, ?, ?, ?)"
                                         " ON CONFLICT (store_id, order_id, line, unit)"
                                         " DO NOTHING"));
  s->bind(1, store_id).bind(2, order_id).bind(3, line).bind(4, unit).bind(5, license_key);
  s->bind(6, now);
  RETURN_IF_ERROR(s->run("claim store unit"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<std::vector<std::string>> SqliteTx::order_license_keys(int64_t store_id,
                                                              std::string_view order_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT license_key FROM storefront_units"
                                         " WHERE store_id = ? AND order_id = ?"
                                         " ORDER BY line, unit"));
  s->bind(1, store_id).bind(2, order_id);
  std::vector<std::string> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    std::string key = s->text(0);
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(std::move(key));
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list order licenses");
  return out;
}

Result<std::optional<UnixMillis>> SqliteTx::find_storefront_event(int64_t store_id,
                                                                  std::string_view event_key) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT received_at FROM storefront_events"
                                         " WHERE store_id = ? AND event_key = ?"));
  s->bind(1, store_id).bind(2, event_key);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<UnixMillis>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find store event");
  return std::optional<UnixMillis>(s->int64(0));
}

Status SqliteTx::put_order_reference(int64_t store_id, std::string_view reference,
                                     std::string_view order_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_order_refs (store_id, reference,"
                                         " order_id) VALUES (?, ?, ?)"
                                         " ON CONFLICT (store_id, reference) DO NOTHING"));
  s->bind(1, store_id).bind(2, reference).bind(3, order_id);
  return s->run("keep order reference");
}

Result<std::optional<std::string>> SqliteTx::find_order_by_reference(int64_t store_id,
                                                                     std::string_view reference) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT order_id FROM storefront_order_refs"
                                         " WHERE store_id = ? AND reference = ?"));
  s->bind(1, store_id).bind(2, reference);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find order reference");
  return std::optional<std::string>(s->text(0));
}

Result<std::optional<std::string>> SqliteTx::find_status_cause(std::string_view license_key) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT cause FROM storefront_status_causes"
                                         " WHERE license_key = ?"));
  s->bind(1, license_key);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find status cause");
  return std::optional<std::string>(s->text(0));
}

Status SqliteTx::set_status_cause(std::string_view license_key, int64_t store_id,
                                  std::string_view cause, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_status_causes (license_key,"
                                         " store_id, cause, set_at) VALUES (?, ?, ?, ?)"
                                         " ON CONFLICT (license_key) DO UPDATE SET"
                                         " store_id = excluded.store_id, cause = excluded.cause,"
                                         " set_at = excluded.set_at"));
  s->bind(1, license_key).bind(2, store_id).bind(3, cause).bind(4, now);
  return s->run("keep status cause");
}

Status SqliteTx::clear_status_cause(std::string_view license_key) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("DELETE FROM storefront_status_causes WHERE license_key = ?"));
  return s->bind(1, license_key).run("clear status cause");
}

Result<std::optional<OrderPeriod>> SqliteTx::find_order_period(int64_t store_id,
                                                               std::string_view order_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT period_start, period_end"
                                         " FROM storefront_order_periods"
                                         " WHERE store_id = ? AND order_id = ?"));
  s->bind(1, store_id).bind(2, order_id);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<OrderPeriod>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find order period");
  return std::optional<OrderPeriod>(OrderPeriod{s->optional_int64(0), s->int64(1)});
}

Status SqliteTx::put_order_period(int64_t store_id, std::string_view order_id,
                                  const OrderPeriod& period) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_order_periods (store_id,"
                                         " order_id, period_start, period_end)"
                                         " VALUES (?, ?, ?, ?)"
                                         " ON CONFLICT (store_id, order_id) DO UPDATE SET"
                                         " period_start = excluded.period_start,"
                                         " period_end = excluded.period_end"));
  s->bind(1, store_id).bind(2, order_id).bind(3, period.start).bind(4, period.end);
  return s->run("keep order period");
}

Status SqliteTx::record_payment_failure(int64_t store_id, std::string_view order_id,
                                        UnixMillis failed_at) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO storefront_payment_failures (store_id,"
                                         " order_id, failed_at) VALUES (?, ?, ?)"
                                         " ON CONFLICT (store_id, order_id) DO NOTHING"));
  s->bind(1, store_id).bind(2, order_id).bind(3, failed_at);
  return s->run("record payment failure");
}

Result<bool> SqliteTx::clear_payment_failure(int64_t store_id, std::string_view order_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM storefront_payment_failures"
                                         " WHERE store_id = ? AND order_id = ?"));
  RETURN_IF_ERROR(s->bind(1, store_id).bind(2, order_id).run("clear payment failure"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<std::vector<PendingPaymentFailure>> SqliteTx::due_payment_failures(UnixMillis now,
                                                                          int64_t limit) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT f.store_id, f.order_id, f.failed_at"
                                         " FROM storefront_payment_failures f"
                                         " JOIN storefronts s ON s.id = f.store_id"
                                         " WHERE f.failed_at + s.payment_grace * 1000 <= ?"
                                         " ORDER BY f.failed_at, f.store_id, f.order_id"
                                         " LIMIT ?"));
  s->bind(1, now).bind(2, limit);
  std::vector<PendingPaymentFailure> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    out.push_back(PendingPaymentFailure{s->int64(0), s->text(1), s->int64(2)});
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list due payment failures");
  return out;
}

}  // namespace licensed
