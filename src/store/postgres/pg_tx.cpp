#include "store/postgres/pg_tx.h"

#include <climits>

#include "store/license_select.h"

namespace licensed {
namespace {

const std::string kSelectLicense = kSelectLicensesSql + " WHERE l.license_key = $1";
// One statement for every filter combination (a NULL parameter means "any"), prepared
// once per connection; the id keyset makes each page an index range scan.
// As in sqlite_tx.cpp: one filter, the page's LIMIT last so the count shares the rest.
const std::string kLicenseFilter =
    " WHERE l.id > $1 AND ($2::bigint IS NULL OR l.product_id = $2)"
    " AND ($3::text IS NULL OR l.status = $3) AND (l.deleted_at IS NOT NULL) = $4"
    " AND ($5::bigint IS NULL OR"
    " (CASE WHEN l.expires_at IS NOT NULL AND l.expires_at <= $6 THEN 1 ELSE 0 END) = $5)"
    " AND ($7::text IS NULL OR lower(l.customer_email) = lower($7))"
    " AND ($8::text IS NULL OR l.source_order_id = $8)"
    " AND ($9::text IS NULL OR strpos(l.license_key, $9) > 0)"
    " AND ($10::text IS NULL OR EXISTS (SELECT 1 FROM activations a WHERE a.license_id = l.id"
    " AND (strpos(a.machine_id, $10) > 0 OR strpos(lower(a.machine_name), lower($10)) > 0)))";
const std::string kListLicenses = kSelectLicensesSql + kLicenseFilter + " ORDER BY l.id LIMIT $11";
const std::string kCountLicenses = "SELECT COUNT(*) FROM licenses l" + kLicenseFilter;

// $1-$10 of kLicenseFilter.
PgParams license_filter_params(const LicenseFilter& filter, int64_t after_id) {
  PgParams p;
  p.add(after_id).add(filter.product_id);
  p.add(filter.stored_status ? std::optional<std::string>(to_string(*filter.stored_status))
                             : std::optional<std::string>());
  p.add(filter.deleted);
  p.add(filter.expired ? std::optional<int64_t>(*filter.expired ? 1 : 0)
                       : std::optional<int64_t>());
  p.add(filter.now).add(filter.customer_email).add(filter.order_id);
  p.add(filter.key_part).add(filter.machine);
  return p;
}

const std::string kSelectAdminTokens =
    "SELECT id, name, token_sha256, read_only, created_at, last_used_at FROM admin_tokens";
// Only the license row is locked: products are never changed by a request.
const std::string kSelectLicenseForUpdate = kSelectLicense + " FOR UPDATE OF l";

const std::string& kSelectActivation = kSelectActivationSql;

Product read_product(const PgResult& r, int row, int first) {
  Product p{r.int64(row, first), r.text(row, first + 1), r.text(row, first + 2), {}, {}};
  p.default_plan = r.optional_text(row, first + 3);
  const auto trial_plan = r.optional_text(row, first + 4);
  const auto trial_days = r.optional_int64(row, first + 5);
  if (trial_plan && trial_days) p.trial = TrialOffer{*trial_plan, *trial_days};
  return p;
}

Result<Plan> read_plan(const PgResult& r, int row) {
  Plan p;
  p.id = r.int64(row, 0);
  p.product_id = r.int64(row, 1);
  p.code = r.text(row, 2);
  p.name = r.text(row, 3);
  RETURN_IF_ERROR(plan_spec_from_store(r.text(row, 4), p));
  p.created_at = r.int64(row, 5);
  return p;
}

Result<License> read_license(const PgResult& r, int row = 0) {
  License l;
  l.id = r.int64(row, 0);
  l.key = r.text(row, 1);
  const auto status = parse_license_status(r.text(row, 2));
  if (!status) return Error::internal("read license status: unknown status in the store");
  l.status = *status;
  l.expires_at = r.optional_int64(row, 3);
  l.max = r.int64(row, 4);
  l.machine_ttl_seconds = r.optional_int64(row, 5);
  l.created_at = r.int64(row, 6);
  l.deleted_at = r.optional_int64(row, 7);
  l.product = read_product(r, row, 8);
  l.plan = r.optional_text(row, 14);
  ASSIGN_OR_RETURN(l.entitlements, entitlements_from_store(r.text(row, 15)));
  l.offline_grace_seconds = r.optional_int64(row, 16);
  l.trial = r.boolean(row, 17);
  l.valid_for_pending_seconds = r.optional_int64(row, 18);
  auto email = r.optional_text(row, 19);
  auto name = r.optional_text(row, 20);
  if (email || name) l.customer = Customer{std::move(email), std::move(name)};
  if (auto provider = r.optional_text(row, 21)) {
    l.source = LicenseSource{std::move(*provider), r.optional_int64(row, 22).value_or(0),
                             r.optional_text(row, 23).value_or("")};
  }
  l.offline_lease_seconds = r.optional_int64(row, 24);
  const auto release = parse_offline_release(r.text(row, 25));
  if (!release) return Error::internal("read license offline_release: unknown value in the store");
  l.offline_release = *release;
  l.max_deactivations = r.optional_int64(row, 26);
  l.max_concurrent = r.optional_int64(row, 27);
  l.lease_ttl_seconds = r.optional_int64(row, 28);
  l.max_borrow_seconds = r.optional_int64(row, 29);
  return l;
}

AdminToken read_admin_token(const PgResult& r, int row) {
  return AdminToken{r.int64(row, 0),   r.text(row, 1),  r.text(row, 2),
                    r.boolean(row, 3), r.int64(row, 4), r.optional_int64(row, 5)};
}

Activation read_activation(const PgResult& r, int row) {
  Activation a;
  a.machine_id = r.text(row, 0);
  a.machine_name = r.optional_text(row, 1);
  a.activated_at = r.int64(row, 2);
  a.last_seen_at = r.int64(row, 3);
  a.offline_until = r.optional_int64(row, 4);
  a.offline_file_id = r.optional_text(row, 5);
  a.offline_nonce = r.optional_text(row, 6);
  a.offline_payload = r.optional_text(row, 7);
  a.deactivated_at = r.optional_int64(row, 8);
  return a;
}

}  // namespace

Result<std::optional<License>> PgTx::select_license(std::string_view key, bool for_update) {
  ASSIGN_OR_RETURN(auto r, conn_.query(for_update ? kSelectLicenseForUpdate : kSelectLicense,
                                       PgParams().add(key), "find license"));
  if (r.rows() == 0) return std::optional<License>();
  ASSIGN_OR_RETURN(License l, read_license(r));
  return std::optional<License>(std::move(l));
}

// The row lock is held until COMMIT or ROLLBACK: see pg_store.h for why this alone keeps
// the cap exact under READ COMMITTED.
Result<std::optional<LockedLicense>> PgTx::lock_license(std::string_view key) {
  if (!write_) return lock_outside_write_transaction();
  ASSIGN_OR_RETURN(auto found, select_license(key, true));
  if (!found) return std::optional<LockedLicense>();
  return std::optional<LockedLicense>(locked(std::move(*found)));
}

// Locks in a write transaction too, so admin changes queue behind activations.
Result<std::optional<License>> PgTx::find_license(std::string_view key) {
  return select_license(key, write_);
}

Result<std::optional<Product>> PgTx::find_product(std::string_view slug) {
  ASSIGN_OR_RETURN(auto r, conn_.query(kSelectProductsSql + " WHERE slug = $1",
                                       PgParams().add(slug), "find product"));
  if (r.rows() == 0) return std::optional<Product>();
  return std::optional<Product>(read_product(r, 0, 0));
}

Result<std::vector<Product>> PgTx::list_products() {
  // COLLATE "C": byte order, as SQLite sorts, whatever the database's locale.
  ASSIGN_OR_RETURN(auto r, conn_.query(kSelectProductsSql + " ORDER BY slug COLLATE \"C\"",
                                       PgParams(), "list products"));
  std::vector<Product> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_product(r, i, 0));
  return out;
}

Result<Product> PgTx::insert_product(std::string_view slug, std::string_view name, UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query("INSERT INTO products (slug, name, created_at)"
                                       " VALUES ($1, $2, $3) RETURNING id",
                                       PgParams().add(slug).add(name).add(now), "insert product"));
  return Product{r.int64(0, 0), std::string(slug), std::string(name), {}, {}};
}

Result<License> PgTx::insert_license(const NewLicense& n) {
  PgParams p;
  p.add(std::string_view(n.key)).add(n.product_id).add(to_string(n.status)).add(n.max);
  p.add(n.expires_at).add(n.machine_ttl_seconds).add(n.created_at).add(n.plan);
  p.add(std::string_view(entitlements_to_store(n.entitlements))).add(n.offline_grace_seconds);
  p.add(n.trial).add(n.valid_for_pending_seconds);
  const Customer customer = n.customer.value_or(Customer{});
  p.add(customer.email).add(customer.name);
  p.add(n.source ? std::optional<std::string>(n.source->provider) : std::nullopt);
  p.add(n.source ? std::optional<int64_t>(n.source->store_id) : std::nullopt);
  p.add(n.source ? std::optional<std::string>(n.source->order_id) : std::nullopt);
  p.add(n.offline_lease_seconds).add(to_string(n.offline_release)).add(n.max_deactivations);
  p.add(n.max_concurrent).add(n.lease_ttl_seconds).add(n.max_borrow_seconds);
  RETURN_IF_ERROR(
      conn_.run("INSERT INTO licenses (license_key, product_id, status,"
                " max_activations, expires_at, machine_ttl, created_at, plan, entitlements,"
                " offline_grace, trial, valid_for_pending, customer_email, customer_name,"
                " source_provider, source_store_id, source_order_id, offline_lease,"
                " offline_release, max_deactivations, max_concurrent, lease_ttl, max_borrow)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
                " $16, $17, $18, $19, $20, $21, $22, $23)",
                p, "insert license"));
  ASSIGN_OR_RETURN(auto found, find_license(n.key));
  if (!found) return Error::internal("insert license: the new row is not found");
  return std::move(*found);
}

Status PgTx::update_license(const License& l) {
  PgParams p;
  p.add(to_string(l.status)).add(l.max).add(l.expires_at).add(l.machine_ttl_seconds);
  p.add(l.deleted_at).add(l.id).add(l.plan);
  p.add(std::string_view(entitlements_to_store(l.entitlements))).add(l.offline_grace_seconds);
  p.add(l.valid_for_pending_seconds);
  p.add(l.offline_lease_seconds).add(to_string(l.offline_release)).add(l.max_deactivations);
  p.add(l.max_concurrent).add(l.lease_ttl_seconds).add(l.max_borrow_seconds);
  return conn_.run(
      "UPDATE licenses SET status = $1, max_activations = $2, expires_at = $3,"
      " machine_ttl = $4, deleted_at = $5, plan = $7, entitlements = $8, offline_grace = $9,"
      " valid_for_pending = $10, offline_lease = $11, offline_release = $12,"
      " max_deactivations = $13, max_concurrent = $14, lease_ttl = $15, max_borrow = $16"
      " WHERE id = $6",
      p, "update license");
}

Result<std::vector<License>> PgTx::list_licenses(const LicenseFilter& filter, int64_t after_id,
                                                 int64_t limit) {
  PgParams p = license_filter_params(filter, after_id);
  p.add(limit);
  ASSIGN_OR_RETURN(auto r, conn_.query(kListLicenses, p, "list licenses"));
  std::vector<License> out;
  for (int i = 0; i < r.rows(); ++i) {
    ASSIGN_OR_RETURN(License l, read_license(r, i));
    out.push_back(std::move(l));
  }
  return out;
}

Result<std::vector<License>> PgTx::read_licenses(const std::string& sql, const PgParams& params,
                                                 std::string_view what) {
  ASSIGN_OR_RETURN(auto r, conn_.query(sql, params, what));
  std::vector<License> out;
  for (int i = 0; i < r.rows(); ++i) {
    ASSIGN_OR_RETURN(License l, read_license(r, i));
    out.push_back(std::move(l));
  }
  return out;
}

Result<std::vector<License>> PgTx::licenses_expiring_between(UnixMillis from, UnixMillis to,
                                                             int64_t after_id, int64_t limit) {
  static const std::string sql =
      kSelectLicensesSql +
      " WHERE l.deleted_at IS NULL AND l.status = 'ACTIVE' AND l.expires_at > $1"
      " AND l.expires_at <= $2 AND l.id > $3 ORDER BY l.id LIMIT $4";
  return read_licenses(sql, PgParams().add(from).add(to).add(after_id).add(limit),
                       "licenses expiring");
}

Result<std::vector<License>> PgTx::licenses_with_entitlements(int64_t after_id, int64_t limit) {
  static const std::string sql = kSelectLicensesSql +
                                 " WHERE l.deleted_at IS NULL AND l.entitlements IS NOT NULL"
                                 " AND l.entitlements <> '[]' AND l.id > $1 ORDER BY l.id LIMIT $2";
  return read_licenses(sql, PgParams().add(after_id).add(limit), "licenses with entitlements");
}

Result<std::vector<License>> PgTx::licenses_with_offline_ending_between(UnixMillis from,
                                                                        UnixMillis to,
                                                                        int64_t after_id,
                                                                        int64_t limit) {
  static const std::string sql =
      kSelectLicensesSql +
      " WHERE l.deleted_at IS NULL AND l.id > $1 AND EXISTS (SELECT 1 FROM activations a"
      " WHERE a.license_id = l.id AND a.deactivated_at IS NULL AND a.offline_until > $2"
      " AND a.offline_until <= $3) ORDER BY l.id LIMIT $4";
  return read_licenses(sql, PgParams().add(after_id).add(from).add(to).add(limit),
                       "licenses with offline files ending");
}

Result<int64_t> PgTx::count_licenses(const LicenseFilter& filter) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query(kCountLicenses, license_filter_params(filter, 0), "count licenses"));
  return r.int64(0, 0);
}

Result<std::optional<Activation>> PgTx::find_activation(int64_t license_id,
                                                        std::string_view machine_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query(kSelectActivation + " WHERE license_id = $1 AND machine_id = $2",
                               PgParams().add(license_id).add(machine_id), "find activation"));
  if (r.rows() == 0) return std::optional<Activation>();
  return std::optional<Activation>(read_activation(r, 0));
}

// holds_slot (core/license.h) in SQL; see sqlite_tx.cpp.
Result<int64_t> PgTx::count_activations(int64_t license_id, const Freshness& fresh) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT COUNT(*) FROM activations WHERE license_id = $1"
                               " AND CASE WHEN offline_until IS NOT NULL"
                               " THEN offline_until > $2"
                               " ELSE ($3::bigint IS NULL OR last_seen_at >= $3) END",
                               PgParams().add(license_id).add(fresh.now).add(fresh.seen_since),
                               "count activations"));
  return r.int64(0, 0);
}

Result<std::vector<Activation>> PgTx::list_activations(int64_t license_id) {
  ASSIGN_OR_RETURN(
      auto r, conn_.query(kSelectActivation + " WHERE license_id = $1"
                                              " ORDER BY activated_at, machine_id COLLATE \"C\"",
                          PgParams().add(license_id), "list activations"));
  std::vector<Activation> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_activation(r, i));
  return out;
}

// The writes of an activation go with the transaction's next round trip (the next job's
// first statement, or COMMIT): nothing reads their rows, and a failure fails that round
// trip and is told to be this job's, so the job is never acknowledged without them.
Status PgTx::insert_activation(const LockedLicense& license, const Activation& a) {
  PgParams p;
  p.add(license->id).add(std::string_view(a.machine_id)).add(a.machine_name);
  p.add(a.activated_at).add(a.last_seen_at).add(a.offline_until).add(a.offline_file_id);
  p.add(a.offline_nonce).add(a.offline_payload).add(a.deactivated_at);
  conn_.defer(
      "INSERT INTO activations (license_id, machine_id, machine_name,"
      " activated_at, last_seen_at, offline_until, offline_file_id, offline_nonce,"
      " offline_payload, deactivated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
      p, "insert activation");
  return Ok{};
}

Status PgTx::update_offline_activation(const LockedLicense& license, const Activation& a) {
  PgParams p;
  p.add(a.machine_name).add(a.last_seen_at).add(a.offline_until).add(a.offline_file_id);
  p.add(a.offline_nonce).add(a.offline_payload).add(a.deactivated_at).add(license->id);
  p.add(std::string_view(a.machine_id));
  return conn_.run(
      "UPDATE activations SET machine_name = $1, last_seen_at = $2, offline_until = $3,"
      " offline_file_id = $4, offline_nonce = $5, offline_payload = $6, deactivated_at = $7"
      " WHERE license_id = $8 AND machine_id = $9",
      p, "update offline activation");
}

Status PgTx::append_deactivation(const LockedLicense& license, std::string_view machine_id,
                                 UnixMillis at, bool counted, bool offline) {
  return conn_.run(
      "INSERT INTO deactivations (license_id, machine_id, at, counted, offline)"
      " VALUES ($1, $2, $3, $4, $5)",
      PgParams().add(license->id).add(machine_id).add(at).add(counted).add(offline),
      "append deactivation");
}

Result<std::vector<UnixMillis>> PgTx::counted_deactivations_since(const LockedLicense& license,
                                                                  UnixMillis since) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT at FROM deactivations WHERE license_id = $1"
                               " AND counted AND at >= $2 ORDER BY at",
                               PgParams().add(license->id).add(since), "count deactivations"));
  std::vector<UnixMillis> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.int64(i, 0));
  return out;
}

Result<std::optional<UnixMillis>> PgTx::latest_deactivation(int64_t license_id,
                                                            std::string_view machine_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT MAX(at) FROM deactivations"
                               " WHERE license_id = $1 AND machine_id = $2",
                               PgParams().add(license_id).add(machine_id), "latest deactivation"));
  return r.optional_int64(0, 0);
}

Status PgTx::update_activation(int64_t license_id, const Activation& a) {
  PgParams p;
  p.add(a.machine_name).add(a.last_seen_at).add(license_id).add(std::string_view(a.machine_id));
  conn_.defer(
      "UPDATE activations SET machine_name = $1, last_seen_at = $2"
      " WHERE license_id = $3 AND machine_id = $4",
      p, "update activation");
  return Ok{};
}

// The leases go with LicenseTx::delete_activation, which reports them.
Result<bool> PgTx::erase_activation(const LockedLicense& license, std::string_view machine_id) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("DELETE FROM activations WHERE license_id = $1 AND machine_id = $2",
                               PgParams().add(license->id).add(machine_id), "delete activation"));
  return r.affected() > 0;
}

Result<std::vector<Activation>> PgTx::erase_stale_activations(const LockedLicense& license,
                                                              const Freshness& fresh) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("DELETE FROM activations WHERE license_id = $1"
                               " AND CASE WHEN offline_until IS NOT NULL"
                               " THEN offline_until <= $2"
                               " ELSE ($3::bigint IS NOT NULL AND last_seen_at < $3) END"
                               " RETURNING " +
                                   kActivationColumnsSql,
                               PgParams().add(license->id).add(fresh.now).add(fresh.seen_since),
                               "reclaim stale activations"));
  std::vector<Activation> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_activation(r, i));
  return out;
}

Status PgTx::insert_audit(const AuditEntry& e) {
  PgParams p;
  p.add(e.at).add(std::string_view(e.action)).add(std::string_view(e.license_key));
  p.add(e.machine_id).add(e.refresh).add(to_string(e.actor)).add(e.actor_name).add(e.ip);
  p.add(e.key_id).add(e.request_id).add(e.changes).add(e.reason).add(e.source).add(e.offline);
  conn_.defer(
      "INSERT INTO audit_log (at, action, license_key, machine_id, refresh, actor,"
      " actor_name, ip, key_id, request_id, changes, reason, source, offline)"
      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
      p, "append audit record");
  return Ok{};
}

namespace {

// Row `i` of kAuditColumns.
AuditEntry read_audit_entry(const PgResult& r, int i) {
  AuditEntry e;
  e.id = r.int64(i, 0);
  e.at = r.int64(i, 1);
  e.action = r.text(i, 2);
  e.license_key = r.text(i, 3);
  e.machine_id = r.optional_text(i, 4);
  e.refresh = r.boolean(i, 5);
  e.actor = parse_actor(r.text(i, 6));
  e.actor_name = r.optional_text(i, 7);
  e.ip = r.optional_text(i, 8);
  e.key_id = r.optional_text(i, 9);
  e.request_id = r.optional_text(i, 10);
  e.changes = r.optional_text(i, 11);
  e.reason = r.optional_text(i, 12);
  e.source = r.optional_text(i, 13);
  e.offline = r.boolean(i, 14);
  return e;
}

}  // namespace

Result<std::vector<AuditEntry>> PgTx::list_audit(std::string_view license_key, AuditOrder order,
                                                 int64_t past_id, int64_t limit) {
  // Both walk the index on (license_key, id) from the bound, in the page's order.
  static const std::string kOldestFirst =
      "SELECT id, at, action, license_key, machine_id, refresh, actor, actor_name, ip,"
      " key_id, request_id, changes, reason, source, offline FROM audit_log WHERE license_key = $1 "
      "AND id > "
      "$2"
      " ORDER BY id"
      " LIMIT $3";
  static const std::string kNewestFirst =
      "SELECT id, at, action, license_key, machine_id, refresh, actor, actor_name, ip,"
      " key_id, request_id, changes, reason, source, offline FROM audit_log WHERE license_key = $1 "
      "AND id < "
      "$2"
      " ORDER BY id DESC LIMIT $3";
  ASSIGN_OR_RETURN(
      auto r,
      conn_.query(order == AuditOrder::kOldestFirst ? kOldestFirst : kNewestFirst,
                  PgParams().add(license_key).add(audit_id_bound(order, past_id)).add(limit),
                  "list audit records"));
  std::vector<AuditEntry> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_audit_entry(r, i));
  return out;
}

Result<std::vector<AuditEntry>> PgTx::list_keyless_audit(std::string_view action,
                                                         std::string_view source, int64_t past_id,
                                                         int64_t limit) {
  ASSIGN_OR_RETURN(
      auto r,
      conn_.query("SELECT id, at, action, license_key, machine_id, refresh, actor,"
                  " actor_name, ip, key_id, request_id, changes, reason, source,"
                  " offline FROM audit_log WHERE license_key = '' AND id < $1 AND action = $2"
                  " AND source = $3 ORDER BY id DESC LIMIT $4",
                  PgParams()
                      .add(audit_id_bound(AuditOrder::kNewestFirst, past_id))
                      .add(action)
                      .add(source)
                      .add(limit),
                  "list keyless audit records"));
  std::vector<AuditEntry> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_audit_entry(r, i));
  return out;
}

Status PgTx::remember_nonce(std::string_view key_id, std::string_view nonce,
                            UnixMillis expires_at) {
  return conn_.run(
      "INSERT INTO remembered_nonces (key_id, nonce, expires_at) VALUES ($1, $2, $3)"
      " ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at",
      PgParams().add(key_id).add(nonce).add(expires_at), "remember nonce");
}

Result<std::vector<StoreTx::RememberedNonce>> PgTx::load_nonces(UnixMillis now) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT key_id, nonce, expires_at FROM remembered_nonces"
                                       " WHERE expires_at > $1",
                                       PgParams().add(now), "load nonces"));
  std::vector<RememberedNonce> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back({r.text(i, 0), r.text(i, 1), r.int64(i, 2)});
  return out;
}

Status PgTx::purge_nonces(UnixMillis now) {
  return conn_.run("DELETE FROM remembered_nonces WHERE expires_at <= $1", PgParams().add(now),
                   "purge nonces");
}

Status PgTx::insert_admin_token(const AdminToken& t) {
  PgParams p;
  p.add(std::string_view(t.name)).add(std::string_view(t.token_sha256_hex)).add(t.read_only);
  p.add(t.created_at);
  return conn_.run(
      "INSERT INTO admin_tokens (name, token_sha256, read_only, created_at)"
      " VALUES ($1, $2, $3, $4)",
      p, "insert admin token");
}

Result<std::optional<AdminToken>> PgTx::find_admin_token(std::string_view token_sha256_hex) {
  ASSIGN_OR_RETURN(auto r, conn_.query(kSelectAdminTokens + " WHERE token_sha256 = $1",
                                       PgParams().add(token_sha256_hex), "find admin token"));
  if (r.rows() == 0) return std::optional<AdminToken>();
  return std::optional<AdminToken>(read_admin_token(r, 0));
}

Result<std::vector<AdminToken>> PgTx::list_admin_tokens() {
  // COLLATE "C": byte order, as SQLite sorts.
  ASSIGN_OR_RETURN(auto r, conn_.query(kSelectAdminTokens + " ORDER BY name COLLATE \"C\"",
                                       PgParams(), "list admin tokens"));
  std::vector<AdminToken> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_admin_token(r, i));
  return out;
}

Result<bool> PgTx::delete_admin_token(std::string_view name) {
  ASSIGN_OR_RETURN(auto r, conn_.query("DELETE FROM admin_tokens WHERE name = $1",
                                       PgParams().add(name), "delete admin token"));
  return r.affected() > 0;
}

Status PgTx::touch_admin_token(int64_t id, UnixMillis now) {
  return conn_.run("UPDATE admin_tokens SET last_used_at = $1 WHERE id = $2",
                   PgParams().add(now).add(id), "touch admin token");
}

Result<std::vector<std::string>> PgTx::find_response_keys() {
  // Servers starting together on one database must agree on one key: the first to make
  // it holds this lock until it commits, and the others then find its key.
  if (write_) {
    RETURN_IF_ERROR(conn_.run("LOCK TABLE response_keys IN SHARE ROW EXCLUSIVE MODE", PgParams(),
                              "lock response keys"));
  }
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT private_key FROM response_keys ORDER BY id",
                                       PgParams(), "find response keys"));
  std::vector<std::string> out;
  for (int row = 0; row < r.rows(); ++row) out.push_back(r.text(row, 0));
  return out;
}

Status PgTx::insert_response_key(std::string_view private_key_pem, UnixMillis now) {
  return conn_.run("INSERT INTO response_keys (private_key, created_at) VALUES ($1, $2)",
                   PgParams().add(private_key_pem).add(now), "insert response key");
}

Result<std::vector<DumpRow>> PgTx::dump_rows(const DumpTable& table) {
  const std::string sql = "SELECT " + column_list(table) + " FROM " + table.name + " ORDER BY " +
                          order_by(table, " COLLATE \"C\"");
  ASSIGN_OR_RETURN(auto r, conn_.query(sql, PgParams(), "export rows"));
  std::vector<DumpRow> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int row = 0; row < r.rows(); ++row) {
    DumpRow values;
    for (int i = 0; i < static_cast<int>(table.columns.size()); ++i) {
      const DumpKind kind = table.columns[i].kind;
      if (r.is_null(row, i)) {
        values.emplace_back(std::monostate{});
      } else if (kind == DumpKind::kText) {
        values.emplace_back(r.text(row, i));
      } else if (kind == DumpKind::kBool) {
        values.emplace_back(int64_t{r.boolean(row, i) ? 1 : 0});
      } else {
        values.emplace_back(r.int64(row, i));
      }
    }
    out.push_back(std::move(values));
  }
  return out;
}

Result<bool> PgTx::table_is_empty(const DumpTable& table) {
  const std::string sql = std::string("SELECT NOT EXISTS (SELECT 1 FROM ") + table.name + ")";
  ASSIGN_OR_RETURN(auto r, conn_.query(sql, PgParams(), "check the store is empty"));
  return r.boolean(0, 0);
}

Status PgTx::restore_row(const DumpTable& table, const DumpRow& row) {
  std::string sql =
      "INSERT INTO " + std::string(table.name) + " (" + column_list(table) + ") VALUES (";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    sql += (i == 0 ? "$" : ", $") + std::to_string(i + 1);
  }
  sql += ")";
  PgParams p;
  for (size_t i = 0; i < row.size(); ++i) {
    if (const auto* n = std::get_if<int64_t>(&row[i])) {
      if (table.columns[i].kind == DumpKind::kBool) {
        p.add(*n != 0);
      } else {
        p.add(*n);
      }
    } else if (const auto* t = std::get_if<std::string>(&row[i])) {
      p.add(std::string_view(*t));
    } else {
      p.add(std::optional<std::string>());
    }
  }
  return conn_.run(sql, p, "import row");
}

Status PgTx::finish_restore() {
  // Ids written explicitly leave the identity's sequence behind: move it past them, or
  // the next insert would collide with an imported row.
  for (const auto& table : dump_tables()) {
    if (!table.has_id) continue;
    const std::string t = table.name;
    RETURN_IF_ERROR(conn_.run("SELECT setval(pg_get_serial_sequence('" + t +
                                  "', 'id'),"
                                  " COALESCE((SELECT MAX(id) FROM " +
                                  t + "), 0) + 1, false)",
                              PgParams(), "move id counters"));
  }
  return Ok{};
}

}  // namespace licensed

namespace licensed {

Status PgTx::update_product(const Product& p) {
  PgParams params;
  params.add(p.default_plan);
  params.add(p.trial ? std::optional<std::string>(p.trial->plan) : std::nullopt);
  params.add(p.trial ? std::optional<int64_t>(p.trial->days) : std::nullopt).add(p.id);
  return conn_.run(
      "UPDATE products SET default_plan = $1, trial_plan = $2, trial_days = $3"
      " WHERE id = $4",
      params, "update product");
}

Result<std::vector<Plan>> PgTx::list_plans(int64_t product_id) {
  ASSIGN_OR_RETURN(
      auto r, conn_.query(kSelectPlansSql + " WHERE product_id = $1 ORDER BY code COLLATE \"C\"",
                          PgParams().add(product_id), "list plans"));
  std::vector<Plan> out;
  for (int i = 0; i < r.rows(); ++i) {
    ASSIGN_OR_RETURN(Plan p, read_plan(r, i));
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::optional<Plan>> PgTx::find_plan(int64_t product_id, std::string_view code) {
  ASSIGN_OR_RETURN(auto r, conn_.query(kSelectPlansSql + " WHERE product_id = $1 AND code = $2",
                                       PgParams().add(product_id).add(code), "find plan"));
  if (r.rows() == 0) return std::optional<Plan>();
  ASSIGN_OR_RETURN(Plan p, read_plan(r, 0));
  return std::optional<Plan>(std::move(p));
}

Result<Plan> PgTx::insert_plan(const Plan& p) {
  PgParams params;
  params.add(p.product_id).add(std::string_view(p.code)).add(std::string_view(p.name));
  params.add(std::string_view(plan_spec_to_store(p))).add(p.created_at);
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("INSERT INTO plans (product_id, code, name, spec, created_at)"
                               " VALUES ($1, $2, $3, $4, $5) RETURNING id",
                               params, "insert plan"));
  Plan out = p;
  out.id = r.int64(0, 0);
  return out;
}

Status PgTx::update_plan(const Plan& p) {
  PgParams params;
  params.add(std::string_view(p.name)).add(std::string_view(plan_spec_to_store(p))).add(p.id);
  return conn_.run("UPDATE plans SET name = $1, spec = $2 WHERE id = $3", params, "update plan");
}

Status PgTx::delete_plan(int64_t plan_id) {
  return conn_.run("DELETE FROM plans WHERE id = $1", PgParams().add(plan_id), "delete plan");
}

// The product row's lock, held to COMMIT or ROLLBACK: trial creations of one product queue.
Status PgTx::lock_product_trials(int64_t product_id) {
  if (!write_) return lock_outside_write_transaction();
  return conn_.run("SELECT id FROM products WHERE id = $1 FOR UPDATE", PgParams().add(product_id),
                   "lock product trials");
}

Result<std::optional<std::string>> PgTx::find_trial(int64_t product_id,
                                                    std::string_view machine_hmac) {
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT license_key FROM trials WHERE product_id = $1"
                                       " AND machine_hmac = $2",
                                       PgParams().add(product_id).add(machine_hmac), "find trial"));
  if (r.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.text(0, 0));
}

Result<std::optional<std::string>> PgTx::find_trial_email(int64_t product_id,
                                                          std::string_view email_hmac) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("SELECT license_key FROM trial_emails WHERE product_id = $1"
                               " AND email_hmac = $2",
                               PgParams().add(product_id).add(email_hmac), "find trial email"));
  if (r.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.text(0, 0));
}

Status PgTx::insert_trial(int64_t product_id, std::string_view machine_hmac,
                          std::string_view license_key, UnixMillis now) {
  return conn_.run(
      "INSERT INTO trials (product_id, machine_hmac, license_key, created_at)"
      " VALUES ($1, $2, $3, $4)",
      PgParams().add(product_id).add(machine_hmac).add(license_key).add(now), "insert trial");
}

Status PgTx::insert_trial_email(int64_t product_id, std::string_view email_hmac,
                                std::string_view license_key, UnixMillis now) {
  return conn_.run(
      "INSERT INTO trial_emails (product_id, email_hmac, license_key, created_at)"
      " VALUES ($1, $2, $3, $4)",
      PgParams().add(product_id).add(email_hmac).add(license_key).add(now), "insert trial email");
}

Result<std::vector<std::string>> PgTx::delete_trial(int64_t product_id,
                                                    std::string_view machine_hmac) {
  ASSIGN_OR_RETURN(auto r,
                   conn_.query("DELETE FROM trials WHERE product_id = $1 AND"
                               " machine_hmac = $2 RETURNING license_key",
                               PgParams().add(product_id).add(machine_hmac), "delete trial"));
  std::vector<std::string> keys;
  for (int i = 0; i < r.rows(); ++i) {
    keys.push_back(r.text(i, 0));
    RETURN_IF_ERROR(conn_.run("DELETE FROM trial_emails WHERE product_id = $1 AND license_key = $2",
                              PgParams().add(product_id).add(std::string_view(keys.back())),
                              "delete trial"));
  }
  return keys;
}

Result<std::string> PgTx::ensure_server_secret(std::string_view name, std::string_view candidate,
                                               UnixMillis now) {
  RETURN_IF_ERROR(
      conn_.run("INSERT INTO server_secrets (name, secret, created_at)"
                " VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                PgParams().add(name).add(candidate).add(now), "keep server secret"));
  ASSIGN_OR_RETURN(auto r, conn_.query("SELECT secret FROM server_secrets WHERE name = $1",
                                       PgParams().add(name), "read server secret"));
  if (r.rows() == 0) return Error::internal("read server secret: not found after insert");
  return r.text(0, 0);
}

}  // namespace licensed
