// PgTx's part for stores a vendor sells through (docs/protocol.md §22). Exactly once under
// concurrency rests on the primary keys of storefront_events and storefront_units with ON CONFLICT
// DO NOTHING: under READ COMMITTED a second insert of a key another transaction has just inserted
// waits for that transaction, then inserts nothing (it committed) or inserts (it rolled back).
// RETURNING tells which.
#include <algorithm>
#include <string>

#include "store/postgres/pg_tx.h"

namespace licensed {
namespace {

constexpr const char* kSelectStorefronts =
    "SELECT id, provider, name, token_sha256, options, payment_grace, created_at"
    " FROM storefronts";

Storefront read_storefront(const PgResult& r, int row) {
  Storefront f;
  f.id = r.int64(row, 0);
  f.provider = r.text(row, 1);
  f.name = r.text(row, 2);
  f.token_sha256_hex = r.text(row, 3);
  f.options_json = r.text(row, 4);
  f.payment_grace_seconds = r.int64(row, 5);
  f.created_at = r.int64(row, 6);
  return f;
}

}  // namespace

Result<Storefront> PgTx::insert_storefront(const Storefront& f) {
  if (f.secrets.size() > kMaxStorefrontSecrets) {
    return Error::invalid_argument("secret", "at most 3 secrets");
  }
  PgParams p;
  p.add(std::string_view(f.provider)).add(std::string_view(f.name));
  p.add(std::string_view(f.token_sha256_hex)).add(std::string_view(f.options_json));
  p.add(f.payment_grace_seconds).add(f.created_at);
  ASSIGN_OR_RETURN(auto r, conn_.query("INSERT INTO storefronts (provider, name, token_sha256,"
                                       " options, payment_grace, created_at)"
                                       " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                                       p, "insert store"));
  Storefront out = f;
  out.id = r.int64(0, 0);
  RETURN_IF_ERROR(replace_storefront_secrets(out.id, f.secrets));
  return out;
}

Result<std::optional<Storefront>> PgTx::find_storefront(int64_t id) {
  ASSIGN_OR_RETURN(auto r, conn_.query(std::string(kSelectStorefronts) + " WHERE id = $1",
                                       PgParams().add(id), "find store"));
  if (r.rows() == 0) return std::optional<Storefront>();
  Storefront f = read_storefront(r, 0);
  ASSIGN_OR_RETURN(auto secrets, conn_.query("SELECT secret FROM storefront_secrets"
                                             " WHERE store_id = $1 ORDER BY position",
                                             PgParams().add(id), "find store secrets"));
  for (int i = 0; i < secrets.rows(); ++i) f.secrets.push_back(secrets.text(i, 0));
  return std::optional<Storefront>(std::move(f));
}

Result<std::vector<Storefront>> PgTx::list_storefronts() {
  ASSIGN_OR_RETURN(auto r, conn_.query(std::string(kSelectStorefronts) + " ORDER BY id", PgParams(),
                                       "list stores"));
  std::vector<Storefront> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_storefront(r, i));
  return out;
}

Status PgTx::replace_storefront_secrets(int64_t id, const std::vector<std::string>& secrets) {
  if (secrets.size() > kMaxStorefrontSecrets) {
    return Error::invalid_argument("secret", "at most 3 secrets");
  }
  RETURN_IF_ERROR(conn_.run("DELETE FROM storefront_secrets WHERE store_id = $1",
                            PgParams().add(id), "forget store secrets"));
  for (size_t i = 0; i < secrets.size(); ++i) {
    PgParams p;
    p.add(id).add(static_cast<int64_t>(i)).add(std::string_view(secrets[i]));
    RETURN_IF_ERROR(
        conn_.run("INSERT INTO storefront_secrets (store_id, position, secret)"
                  " VALUES ($1, $2, $3)",
                  p, "keep store secret"));
  }
  return Ok{};
}

Result<bool> PgTx::delete_storefront(int64_t id) {
  for (const char* sql : {"DELETE FROM storefront_secrets WHERE store_id = $1",
                          "DELETE FROM storefront_skus WHERE store_id = $1",
                          "DELETE FROM storefront_events WHERE store_id = $1",
                          "DELETE FROM storefront_units WHERE store_id = $1",
                          "DELETE FROM storefront_order_refs WHERE store_id = $1",
                          "DELETE FROM storefront_order_periods WHERE store_id = $1",
                          "DELETE FROM storefront_payment_failures WHERE store_id = $1",
                          "DELETE FROM storefront_status_causes WHERE store_id = $1"}) {
    RETURN_IF_ERROR(conn_.run(sql, PgParams().add(id), "delete store"));
  }
  ASSIGN_OR_RETURN(auto r, conn_.query("DELETE FROM storefronts WHERE id = $1 RETURNING id",
                                       PgParams().add(id), "delete store"));
  return r.rows() > 0;
}

Status PgTx::update_storefront(const Storefront& f) {
  PgParams p;
  p.add(std::string_view(f.name)).add(std::string_view(f.options_json));
  p.add(f.payment_grace_seconds).add(f.id);
  return conn_.run(
      "UPDATE storefronts SET name = $1, options = $2, payment_grace = $3"
      " WHERE id = $4",
      p, "update store");
}

Status PgTx::replace_sku_mappings(int64_t store_id, const std::vector<SkuMapping>& mappings) {
  RETURN_IF_ERROR(conn_.run("DELETE FROM storefront_skus WHERE store_id = $1",
                            PgParams().add(store_id), "replace store mappings"));
  for (const auto& m : mappings) RETURN_IF_ERROR(put_sku_mapping(store_id, m));
  return Ok{};
}

Status PgTx::put_sku_mapping(int64_t store_id, const SkuMapping& m) {
  PgParams p;
  p.add(store_id).add(std::string_view(m.item_id)).add(m.product_id);
  p.add(std::string_view(m.plan)).add(m.per_unit);
  return conn_.run(
      "INSERT INTO storefront_skus (store_id, item_id, product_id, plan, per_unit)"
      " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (store_id, item_id) DO UPDATE SET"
      " product_id = EXCLUDED.product_id, plan = EXCLUDED.plan, per_unit = EXCLUDED.per_unit",
      p, "put store mapping");
}

Result<std::vector<SkuMapping>> PgTx::list_sku_mappings(int64_t store_id) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT item_id, product_id, plan, per_unit"
                                       " FROM storefront_skus WHERE store_id = $1"
                                       " ORDER BY item_id COLLATE \"C\"",
                                       PgParams().add(store_id), "list store mappings"));
  std::vector<SkuMapping> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(SkuMapping{r.text(i, 0), r.int64(i, 1), r.text(i, 2), r.boolean(i, 3)});
  }
  return out;
}

Result<bool> PgTx::record_storefront_event(int64_t store_id, std::string_view event_key,
                                           std::string_view event_type, UnixMillis now) {
  PgParams p;
  p.add(store_id).add(event_key).add(event_type).add(now);
  ASSIGN_OR_RETURN(auto r, conn_.query("INSERT INTO storefront_events (store_id, event_key,"
                                       " event_type, received_at) VALUES ($1, $2, $3, $4)"
                                       " ON CONFLICT (store_id, event_key) DO NOTHING"
                                       " RETURNING 1",
                                       p, "record store event"));
  return r.rows() > 0;
}

Result<bool> PgTx::claim_storefront_unit(int64_t store_id, std::string_view order_id, int64_t line,
                                         int64_t unit, std::string_view license_key,
                                         UnixMillis now) {
  PgParams p;
  p.add(store_id).add(order_id).add(line).add(unit).add(license_key).add(now);
  ASSIGN_OR_RETURN(auto r, conn_.query("INSERT INTO storefront_units (store_id, order_id, line,"
                                       " unit, license_key, created_at)"
                                       " VALUES ($1, $2, $3, $4, $5, $6)"
                                       " ON CONFLICT (store_id, order_id, line, unit) DO NOTHING"
                                       " RETURNING 1",
                                       p, "claim store unit"));
  return r.rows() > 0;
}

Result<std::vector<std::string>> PgTx::order_license_keys(int64_t store_id,
                                                          std::string_view order_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT license_key FROM storefront_units"
                               " WHERE store_id = $1 AND order_id = $2"
                               " ORDER BY line, unit",
                               PgParams().add(store_id).add(order_id), "list order licenses"));
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i) {
    std::string key = r.text(i, 0);
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(std::move(key));
  }
  return out;
}

Result<std::optional<UnixMillis>> PgTx::find_storefront_event(int64_t store_id,
                                                              std::string_view event_key) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT received_at FROM storefront_events"
                               " WHERE store_id = $1 AND event_key = $2",
                               PgParams().add(store_id).add(event_key), "find store event"));
  if (r.rows() == 0) return std::optional<UnixMillis>();
  return std::optional<UnixMillis>(r.int64(0, 0));
}

Status PgTx::put_order_reference(int64_t store_id, std::string_view reference,
                                 std::string_view order_id) {
  return conn_.run(
      "INSERT INTO storefront_order_refs (store_id, reference, order_id)"
      " VALUES ($1, $2, $3) ON CONFLICT (store_id, reference) DO NOTHING",
      PgParams().add(store_id).add(reference).add(order_id), "keep order reference");
}

Result<std::optional<std::string>> PgTx::find_order_by_reference(int64_t store_id,
                                                                 std::string_view reference) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT order_id FROM storefront_order_refs"
                               " WHERE store_id = $1 AND reference = $2",
                               PgParams().add(store_id).add(reference), "find order reference"));
  if (r.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.text(0, 0));
}

Result<std::optional<std::string>> PgTx::find_status_cause(std::string_view license_key) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT cause FROM storefront_status_causes WHERE license_key = $1",
                               PgParams().add(license_key), "find status cause"));
  if (r.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.text(0, 0));
}

Status PgTx::set_status_cause(std::string_view license_key, int64_t store_id,
                              std::string_view cause, UnixMillis now) {
  return conn_.run(
      "INSERT INTO storefront_status_causes (license_key, store_id, cause, set_at)"
      " VALUES ($1, $2, $3, $4) ON CONFLICT (license_key) DO UPDATE SET"
      " store_id = EXCLUDED.store_id, cause = EXCLUDED.cause, set_at = EXCLUDED.set_at",
      PgParams().add(license_key).add(store_id).add(cause).add(now), "keep status cause");
}

Status PgTx::clear_status_cause(std::string_view license_key) {
  return conn_.run("DELETE FROM storefront_status_causes WHERE license_key = $1",
                   PgParams().add(license_key), "clear status cause");
}

Result<std::optional<OrderPeriod>> PgTx::find_order_period(int64_t store_id,
                                                           std::string_view order_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT period_start, period_end"
                               " FROM storefront_order_periods"
                               " WHERE store_id = $1 AND order_id = $2",
                               PgParams().add(store_id).add(order_id), "find order period"));
  if (r.rows() == 0) return std::optional<OrderPeriod>();
  return std::optional<OrderPeriod>(OrderPeriod{r.optional_int64(0, 0), r.int64(0, 1)});
}

Status PgTx::put_order_period(int64_t store_id, std::string_view order_id,
                              const OrderPeriod& period) {
  PgParams p;
  p.add(store_id).add(order_id).add(period.start).add(period.end);
  return conn_.run(
      "INSERT INTO storefront_order_periods (store_id, order_id, period_start, period_end)"
      " VALUES ($1, $2, $3, $4) ON CONFLICT (store_id, order_id) DO UPDATE SET"
      " period_start = EXCLUDED.period_start, period_end = EXCLUDED.period_end",
      p, "keep order period");
}

Status PgTx::record_payment_failure(int64_t store_id, std::string_view order_id,
                                    UnixMillis failed_at) {
  return conn_.run(
      "INSERT INTO storefront_payment_failures (store_id, order_id, failed_at)"
      " VALUES ($1, $2, $3) ON CONFLICT (store_id, order_id) DO NOTHING",
      PgParams().add(store_id).add(order_id).add(failed_at), "record payment failure");
}

Result<bool> PgTx::clear_payment_failure(int64_t store_id, std::string_view order_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("DELETE FROM storefront_payment_failures"
                               " WHERE store_id = $1 AND order_id = $2 RETURNING 1",
                               PgParams().add(store_id).add(order_id), "clear payment failure"));
  return r.rows() > 0;
}

Result<std::vector<PendingPaymentFailure>> PgTx::due_payment_failures(UnixMillis now,
                                                                      int64_t limit) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT f.store_id, f.order_id, f.failed_at"
                               " FROM storefront_payment_failures f"
                               " JOIN storefronts s ON s.id = f.store_id"
                               " WHERE f.failed_at + s.payment_grace * 1000 <= $1"
                               " ORDER BY f.failed_at, f.store_id,"
                               " f.order_id COLLATE \"C\" LIMIT $2",
                               PgParams().add(now).add(limit), "list due payment failures"));
  std::vector<PendingPaymentFailure> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back(PendingPaymentFailure{r.int64(i, 0), r.text(i, 1), r.int64(i, 2)});
  }
  return out;
}

}  // namespace licensed
