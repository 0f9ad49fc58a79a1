#include "store/sqlite/sqlite_tx.h"

#include <string>

#include "store/license_select.h"

namespace licensed {
namespace {

const std::string kSelectLicense = kSelectLicensesSql + " WHERE l.license_key = ?";
// One filter for every combination (a NULL parameter means "any"), so each statement is
// prepared once; the id keyset makes each page an index range scan. The page's LIMIT is
// the last parameter, so the count shares every other one.
const std::string kLicenseFilter =
    " WHERE l.id > ?1 AND (?2 IS NULL OR l.product_id = ?2) AND (?3 IS NULL OR l.status = ?3)"
    " AND (?5 IS NULL OR (l.expires_at IS NOT NULL AND l.expires_at <= ?6) = ?5)"
    " AND (?7 IS NULL OR lower(l.customer_email) = lower(?7))"
    " AND (?8 IS NULL OR l.source_order_id = ?8)"
    " AND (?9 IS NULL OR instr(l.license_key, ?9) > 0)"
    " AND (?10 IS NULL OR EXISTS (SELECT 1 FROM activations a WHERE a.license_id = l.id"
    " AND (instr(a.machine_id, ?10) > 0 OR instr(lower(a.machine_name), lower(?10)) > 0)))"
    " AND (l.deleted_at IS NOT NULL) = ?4";
const std::string kListLicenses = kSelectLicensesSql + kLicenseFilter + " ORDER BY l.id LIMIT ?11";
const std::string kCountLicenses = "SELECT COUNT(*) FROM licenses l" + kLicenseFilter;

// Binds ?1-?10 of kLicenseFilter.
void bind_license_filter(Statement& s, const LicenseFilter& filter, int64_t after_id) {
  s.bind(1, after_id).bind(2, filter.product_id);
  if (filter.stored_status) {
    s.bind(3, to_string(*filter.stored_status));
  } else {
    s.bind_null(3);
  }
  s.bind(4, static_cast<int64_t>(filter.deleted ? 1 : 0));
  if (filter.expired) {
    s.bind(5, static_cast<int64_t>(*filter.expired ? 1 : 0));
  } else {
    s.bind_null(5);
  }
  s.bind(6, filter.now).bind(7, filter.customer_email).bind(8, filter.order_id);
  s.bind(9, filter.key_part).bind(10, filter.machine);
}

const std::string kSelectAdminTokens =
    "SELECT id, name, token_sha256, read_only, created_at, last_used_at FROM admin_tokens";
const std::string kFindAdminToken = kSelectAdminTokens + " WHERE token_sha256 = ?";
const std::string kListAdminTokens = kSelectAdminTokens + " ORDER BY name";

Product read_product(const Statement& s, int first) {
  Product p{s.int64(first), s.text(first + 1), s.text(first + 2), {}, {}};
  p.default_plan = s.optional_text(first + 3);
  const auto trial_plan = s.optional_text(first + 4);
  const auto trial_days = s.optional_int64(first + 5);
  if (trial_plan && trial_days) p.trial = TrialOffer{*trial_plan, *trial_days};
  return p;
}

Result<Plan> read_plan(const Statement& s) {
  Plan p;
  p.id = s.int64(0);
  p.product_id = s.int64(1);
  p.code = s.text(2);
  p.name = s.text(3);
  RETURN_IF_ERROR(plan_spec_from_store(s.text(4), p));
  p.created_at = s.int64(5);
  return p;
}

Result<License> read_license(const Statement& s) {
  License l;
  l.id = s.int64(0);
  l.key = s.text(1);
  const auto status = parse_license_status(s.text(2));
  if (!status) return s.failure(SQLITE_CORRUPT, "read license status");
  l.status = *status;
  l.expires_at = s.optional_int64(3);
  l.max = s.int64(4);
  l.machine_ttl_seconds = s.optional_int64(5);
  l.created_at = s.int64(6);
  l.deleted_at = s.optional_int64(7);
  l.product = read_product(s, 8);
  l.plan = s.optional_text(14);
  ASSIGN_OR_RETURN(l.entitlements, entitlements_from_store(s.text(15)));
  l.offline_grace_seconds = s.optional_int64(16);
  l.trial = s.int64(17) != 0;
  l.valid_for_pending_seconds = s.optional_int64(18);
  auto email = s.optional_text(19);
  auto name = s.optional_text(20);
  if (email || name) l.customer = Customer{std::move(email), std::move(name)};
  if (auto provider = s.optional_text(21)) {
    l.source = LicenseSource{std::move(*provider), s.optional_int64(22).value_or(0),
                             s.optional_text(23).value_or("")};
  }
  l.offline_lease_seconds = s.optional_int64(24);
  const auto release = parse_offline_release(s.text(25));
  if (!release) return s.failure(SQLITE_CORRUPT, "read license offline_release");
  l.offline_release = *release;
  l.max_deactivations = s.optional_int64(26);
  l.max_concurrent = s.optional_int64(27);
  l.lease_ttl_seconds = s.optional_int64(28);
  l.max_borrow_seconds = s.optional_int64(29);
  return l;
}

AdminToken read_admin_token(const Statement& s) {
  return AdminToken{s.int64(0),      s.text(1),  s.text(2),
                    s.int64(3) != 0, s.int64(4), s.optional_int64(5)};
}

Activation read_activation(const Statement& s) {
  Activation a;
  a.machine_id = s.text(0);
  a.machine_name = s.optional_text(1);
  a.activated_at = s.int64(2);
  a.last_seen_at = s.int64(3);
  a.offline_until = s.optional_int64(4);
  a.offline_file_id = s.optional_text(5);
  a.offline_nonce = s.optional_text(6);
  a.offline_payload = s.optional_text(7);
  a.deactivated_at = s.optional_int64(8);
  return a;
}

}  // namespace

Result<std::optional<License>> SqliteTx::find_license(std::string_view key) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(kSelectLicense.c_str()));
  s->bind(1, key);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<License>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find license");
  ASSIGN_OR_RETURN(License l, read_license(*s));
  return std::optional<License>(std::move(l));
}

// The lock is the write transaction itself (see sqlite_tx.h): nothing more to take.
Result<std::optional<LockedLicense>> SqliteTx::lock_license(std::string_view key) {
  if (!write_ || !conn_.in_transaction()) return lock_outside_write_transaction();
  ASSIGN_OR_RETURN(auto found, find_license(key));
  if (!found) return std::optional<LockedLicense>();
  return std::optional<LockedLicense>(locked(std::move(*found)));
}

Result<std::optional<Product>> SqliteTx::find_product(std::string_view slug) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((kSelectProductsSql + " WHERE slug = ?").c_str()));
  s->bind(1, slug);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<Product>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find product");
  return std::optional<Product>(read_product(*s, 0));
}

Result<std::vector<Product>> SqliteTx::list_products() {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((kSelectProductsSql + " ORDER BY slug").c_str()));
  std::vector<Product> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_product(*s, 0));
  if (rc != SQLITE_DONE) return s->failure(rc, "list products");
  return out;
}

Result<Product> SqliteTx::insert_product(std::string_view slug, std::string_view name,
                                         UnixMillis now) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("INSERT INTO products (slug, name, created_at) VALUES (?, ?, ?)"));
  RETURN_IF_ERROR(s->bind(1, slug).bind(2, name).bind(3, now).run("insert product"));
  return Product{
      sqlite3_last_insert_rowid(conn_.handle()), std::string(slug), std::string(name), {}, {}};
}

Result<License> SqliteTx::insert_license(const NewLicense& n) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("INSERT INTO licenses (license_key, product_id, status,"
                                 " max_activations, expires_at, machine_ttl, created_at, plan,"
                                 " entitlements, offline_grace, trial, valid_for_pending,"
                                 " customer_email, customer_name, source_provider,"
                                 " source_store_id, source_order_id, offline_lease,"
                                 " offline_release, max_deactivations, max_concurrent,"
                                 " lease_ttl, max_borrow)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                                 " ?, ?, ?, ?, ?, ?)"));
  s->bind(1, std::string_view(n.key)).bind(2, n.product_id).bind(3, to_string(n.status));
  s->bind(4, n.max).bind(5, n.expires_at).bind(6, n.machine_ttl_seconds).bind(7, n.created_at);
  s->bind(8, n.plan).bind(9, std::string_view(entitlements_to_store(n.entitlements)));
  s->bind(10, n.offline_grace_seconds).bind(11, static_cast<int64_t>(n.trial ? 1 : 0));
  s->bind(12, n.valid_for_pending_seconds);
  const Customer customer = n.customer.value_or(Customer{});
  s->bind(13, customer.email).bind(14, customer.name);
  if (n.source) {
    s->bind(15, std::string_view(n.source->provider)).bind(16, n.source->store_id);
    s->bind(17, std::string_view(n.source->order_id));
  } else {
    s->bind(15, std::optional<std::string>()).bind(16, std::optional<int64_t>());
    s->bind(17, std::optional<std::string>());
  }
  s->bind(18, n.offline_lease_seconds).bind(19, to_string(n.offline_release));
  s->bind(20, n.max_deactivations).bind(21, n.max_concurrent).bind(22, n.lease_ttl_seconds);
  s->bind(23, n.max_borrow_seconds);
  RETURN_IF_ERROR(s->run("insert license"));
  ASSIGN_OR_RETURN(auto found, find_license(n.key));
  if (!found) return Error::internal("insert license: the new row is not found");
  return std::move(*found);
}

Status SqliteTx::update_license(const License& l) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE licenses SET status = ?, max_activations = ?,"
                                         " expires_at = ?, machine_ttl = ?, deleted_at = ?,"
                                         " plan = ?, entitlements = ?, offline_grace = ?,"
                                         " valid_for_pending = ?, offline_lease = ?,"
                                         " offline_release = ?, max_deactivations = ?,"
                                         " max_concurrent = ?, lease_ttl = ?, max_borrow = ?"
                                         " WHERE id = ?"));
  s->bind(1, to_string(l.status)).bind(2, l.max).bind(3, l.expires_at);
  s->bind(4, l.machine_ttl_seconds).bind(5, l.deleted_at).bind(6, l.plan);
  s->bind(7, std::string_view(entitlements_to_store(l.entitlements)));
  s->bind(8, l.offline_grace_seconds).bind(9, l.valid_for_pending_seconds);
  s->bind(10, l.offline_lease_seconds).bind(11, to_string(l.offline_release));
  s->bind(12, l.max_deactivations).bind(13, l.max_concurrent).bind(14, l.lease_ttl_seconds);
  s->bind(15, l.max_borrow_seconds).bind(16, l.id);
  return s->run("update license");
}

Result<std::vector<License>> SqliteTx::list_licenses(const LicenseFilter& filter, int64_t after_id,
                                                     int64_t limit) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(kListLicenses.c_str()));
  bind_license_filter(*s, filter, after_id);
  s->bind(11, limit);
  std::vector<License> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    ASSIGN_OR_RETURN(License l, read_license(*s));
    out.push_back(std::move(l));
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list licenses");
  return out;
}

Result<std::vector<License>> SqliteTx::read_licenses(const char* sql, std::string_view what,
                                                     const std::vector<int64_t>& values) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(sql));
  for (size_t i = 0; i < values.size(); ++i) s->bind(static_cast<int>(i + 1), values[i]);
  std::vector<License> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    ASSIGN_OR_RETURN(License l, read_license(*s));
    out.push_back(std::move(l));
  }
  if (rc != SQLITE_DONE) return s->failure(rc, what);
  return out;
}

Result<std::vector<License>> SqliteTx::licenses_expiring_between(UnixMillis from, UnixMillis to,
                                                                 int64_t after_id, int64_t limit) {
  static const std::string sql =
      kSelectLicensesSql +
      " WHERE l.deleted_at IS NULL AND l.status = 'ACTIVE' AND l.expires_at > ?"
      " AND l.expires_at <= ? AND l.id > ? ORDER BY l.id LIMIT ?";
  return read_licenses(sql.c_str(), "licenses expiring", {from, to, after_id, limit});
}

Result<std::vector<License>> SqliteTx::licenses_with_entitlements(int64_t after_id, int64_t limit) {
  static const std::string sql = kSelectLicensesSql +
                                 " WHERE l.deleted_at IS NULL AND l.entitlements IS NOT NULL"
                                 " AND l.entitlements <> '[]' AND l.id > ? ORDER BY l.id LIMIT ?";
  return read_licenses(sql.c_str(), "licenses with entitlements", {after_id, limit});
}

Result<std::vector<License>> SqliteTx::licenses_with_offline_ending_between(UnixMillis from,
                                                                            UnixMillis to,
                                                                            int64_t after_id,
                                                                            int64_t limit) {
  static const std::string sql =
      kSelectLicensesSql +
      " WHERE l.deleted_at IS NULL AND l.id > ?1 AND EXISTS (SELECT 1 FROM activations a"
      " WHERE a.license_id = l.id AND a.deactivated_at IS NULL AND a.offline_until > ?2"
      " AND a.offline_until <= ?3) ORDER BY l.id LIMIT ?4";
  return read_licenses(sql.c_str(), "licenses with offline files ending",
                       {after_id, from, to, limit});
}

Result<int64_t> SqliteTx::count_licenses(const LicenseFilter& filter) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(kCountLicenses.c_str()));
  bind_license_filter(*s, filter, 0);
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "count licenses");
  return s->int64(0);
}

Result<std::optional<Activation>> SqliteTx::find_activation(int64_t license_id,
                                                            std::string_view machine_id) {
  ASSIGN_OR_RETURN(
      auto s,
      conn_.prepare((kSelectActivationSql + " WHERE license_id = ? AND machine_id = ?").c_str()));
  s->bind(1, license_id).bind(2, machine_id);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<Activation>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find activation");
  return std::optional<Activation>(read_activation(*s));
}

// holds_slot (core/license.h) in SQL: an offline activation until its end, an online one
// while seen since ?3 (any time when NULL).
Result<int64_t> SqliteTx::count_activations(int64_t license_id, const Freshness& fresh) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT COUNT(*) FROM activations WHERE license_id = ?1"
                                         " AND CASE WHEN offline_until IS NOT NULL"
                                         " THEN offline_until > ?2"
                                         " ELSE (?3 IS NULL OR last_seen_at >= ?3) END"));
  s->bind(1, license_id).bind(2, fresh.now).bind(3, fresh.seen_since);
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "count activations");
  return s->int64(0);
}

Result<std::vector<Activation>> SqliteTx::list_activations(int64_t license_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare((kSelectActivationSql +
                                          " WHERE license_id = ? ORDER BY activated_at, machine_id")
                                             .c_str()));
  s->bind(1, license_id);
  std::vector<Activation> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_activation(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list activations");
  return out;
}

Status SqliteTx::insert_activation(const LockedLicense& license, const Activation& a) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("INSERT INTO activations (license_id, machine_id, machine_name,"
                                 " activated_at, last_seen_at, offline_until, offline_file_id,"
                                 " offline_nonce, offline_payload, deactivated_at)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  s->bind(1, license->id).bind(2, std::string_view(a.machine_id)).bind(3, a.machine_name);
  s->bind(4, a.activated_at).bind(5, a.last_seen_at).bind(6, a.offline_until);
  s->bind(7, a.offline_file_id).bind(8, a.offline_nonce).bind(9, a.offline_payload);
  s->bind(10, a.deactivated_at);
  return s->run("insert activation");
}

Status SqliteTx::update_offline_activation(const LockedLicense& license, const Activation& a) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("UPDATE activations SET machine_name = ?, last_seen_at = ?,"
                                 " offline_until = ?, offline_file_id = ?,"
                                 " offline_nonce = ?, offline_payload = ?,"
                                 " deactivated_at = ?"
                                 " WHERE license_id = ? AND machine_id = ?"));
  s->bind(1, a.machine_name).bind(2, a.last_seen_at).bind(3, a.offline_until);
  s->bind(4, a.offline_file_id).bind(5, a.offline_nonce).bind(6, a.offline_payload);
  s->bind(7, a.deactivated_at).bind(8, license->id).bind(9, std::string_view(a.machine_id));
  return s->run("update offline activation");
}

Status SqliteTx::append_deactivation(const LockedLicense& license, std::string_view machine_id,
                                     UnixMillis at, bool counted, bool offline) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO deactivations (license_id, machine_id, at,"
                                         " counted, offline) VALUES (?, ?, ?, ?, ?)"));
  s->bind(1, license->id).bind(2, machine_id).bind(3, at);
  s->bind(4, static_cast<int64_t>(counted ? 1 : 0)).bind(5, static_cast<int64_t>(offline ? 1 : 0));
  return s->run("append deactivation");
}

Result<std::vector<UnixMillis>> SqliteTx::counted_deactivations_since(const LockedLicense& license,
                                                                      UnixMillis since) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT at FROM deactivations WHERE license_id = ?"
                                         " AND counted = 1 AND at >= ? ORDER BY at"));
  s->bind(1, license->id).bind(2, since);
  std::vector<UnixMillis> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(s->int64(0));
  if (rc != SQLITE_DONE) return s->failure(rc, "count deactivations");
  return out;
}

Result<std::optional<UnixMillis>> SqliteTx::latest_deactivation(int64_t license_id,
                                                                std::string_view machine_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT MAX(at) FROM deactivations"
                                         " WHERE license_id = ? AND machine_id = ?"));
  s->bind(1, license_id).bind(2, machine_id);
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "latest deactivation");
  return s->optional_int64(0);
}

Status SqliteTx::update_activation(int64_t license_id, const Activation& a) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE activations SET machine_name = ?, last_seen_at = ?"
                                         " WHERE license_id = ? AND machine_id = ?"));
  s->bind(1, a.machine_name).bind(2, a.last_seen_at).bind(3, license_id);
  s->bind(4, std::string_view(a.machine_id));
  return s->run("update activation");
}

// The leases go with LicenseTx::delete_activation, which reports them.
Result<bool> SqliteTx::erase_activation(const LockedLicense& license, std::string_view machine_id) {
  ASSIGN_OR_RETURN(
      auto s, conn_.prepare("DELETE FROM activations WHERE license_id = ? AND machine_id = ?"));
  RETURN_IF_ERROR(s->bind(1, license->id).bind(2, machine_id).run("delete activation"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Result<std::vector<Activation>> SqliteTx::erase_stale_activations(const LockedLicense& license,
                                                                  const Freshness& fresh) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(("DELETE FROM activations WHERE license_id = ?1"
                                          " AND CASE WHEN offline_until IS NOT NULL"
                                          " THEN offline_until <= ?2"
                                          " ELSE (?3 IS NOT NULL AND last_seen_at < ?3) END"
                                          " RETURNING " +
                                          kActivationColumnsSql)
                                             .c_str()));
  s->bind(1, license->id).bind(2, fresh.now).bind(3, fresh.seen_since);
  std::vector<Activation> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_activation(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "reclaim stale activations");
  return out;
}

Status SqliteTx::insert_audit(const AuditEntry& e) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare("INSERT INTO audit_log (at, action, license_key, machine_id,"
                                 " refresh, actor, actor_name, ip, key_id, request_id,"
                                 " changes, reason, source, offline)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  s->bind(1, e.at).bind(2, std::string_view(e.action)).bind(3, std::string_view(e.license_key));
  s->bind(4, e.machine_id).bind(5, static_cast<int64_t>(e.refresh ? 1 : 0));
  s->bind(6, to_string(e.actor)).bind(7, e.actor_name).bind(8, e.ip).bind(9, e.key_id);
  s->bind(10, e.request_id).bind(11, e.changes).bind(12, e.reason).bind(13, e.source);
  s->bind(14, static_cast<int64_t>(e.offline ? 1 : 0));
  return s->run("append audit record");
}

namespace {

// One row of kAuditColumns.
AuditEntry read_audit_entry(const Statement& s) {
  AuditEntry e;
  e.id = s.int64(0);
  e.at = s.int64(1);
  e.action = s.text(2);
  e.license_key = s.text(3);
  e.machine_id = s.optional_text(4);
  e.refresh = s.int64(5) != 0;
  e.actor = parse_actor(s.text(6));
  e.actor_name = s.optional_text(7);
  e.ip = s.optional_text(8);
  e.key_id = s.optional_text(9);
  e.request_id = s.optional_text(10);
  e.changes = s.optional_text(11);
  e.reason = s.optional_text(12);
  e.source = s.optional_text(13);
  e.offline = s.int64(14) != 0;
  return e;
}

}  // namespace

Result<std::vector<AuditEntry>> SqliteTx::list_audit(std::string_view license_key, AuditOrder order,
                                                     int64_t past_id, int64_t limit) {
  // Both walk the index on (license_key, id) from the bound, in the page's order.
  static constexpr const char* kOldestFirst =
      "SELECT id, at, action, license_key, machine_id, refresh, actor, actor_name, ip,"
      " key_id, request_id, changes, reason, source, offline FROM audit_log WHERE license_key = ? "
      "AND id > ?"
      " ORDER BY id LIMIT ?";
  static constexpr const char* kNewestFirst =
      "SELECT id, at, action, license_key, machine_id, refresh, actor, actor_name, ip,"
      " key_id, request_id, changes, reason, source, offline FROM audit_log WHERE license_key = ? "
      "AND id < ?"
      " ORDER BY id DESC LIMIT ?";
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare(order == AuditOrder::kOldestFirst ? kOldestFirst : kNewestFirst));
  s->bind(1, license_key).bind(2, audit_id_bound(order, past_id)).bind(3, limit);
  std::vector<AuditEntry> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_audit_entry(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list audit records");
  return out;
}

Result<std::vector<AuditEntry>> SqliteTx::list_keyless_audit(std::string_view action,
                                                             std::string_view source,
                                                             int64_t past_id, int64_t limit) {
  ASSIGN_OR_RETURN(
      auto s,
      conn_.prepare("SELECT id, at, action, license_key, machine_id, refresh, actor,"
                    " actor_name, ip, key_id, request_id, changes, reason, source,"
                    " offline FROM audit_log WHERE license_key = '' AND id < ? AND action = ?"
                    " AND source = ? ORDER BY id DESC LIMIT ?"));
  s->bind(1, audit_id_bound(AuditOrder::kNewestFirst, past_id))
      .bind(2, action)
      .bind(3, source)
      .bind(4, limit);
  std::vector<AuditEntry> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_audit_entry(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list keyless audit records");
  return out;
}

Status SqliteTx::remember_nonce(std::string_view key_id, std::string_view nonce,
                                UnixMillis expires_at) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT OR REPLACE INTO remembered_nonces"
                                         " (key_id, nonce, expires_at) VALUES (?, ?, ?)"));
  return s->bind(1, key_id).bind(2, nonce).bind(3, expires_at).run("remember nonce");
}

Result<std::vector<StoreTx::RememberedNonce>> SqliteTx::load_nonces(UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT key_id, nonce, expires_at FROM remembered_nonces"
                                         " WHERE expires_at > ?"));
  s->bind(1, now);
  std::vector<RememberedNonce> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back({s->text(0), s->text(1), s->int64(2)});
  if (rc != SQLITE_DONE) return s->failure(rc, "load nonces");
  return out;
}

Status SqliteTx::purge_nonces(UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM remembered_nonces WHERE expires_at <= ?"));
  return s->bind(1, now).run("purge nonces");
}

Status SqliteTx::insert_admin_token(const AdminToken& t) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO admin_tokens (name, token_sha256, read_only,"
                                         " created_at) VALUES (?, ?, ?, ?)"));
  s->bind(1, std::string_view(t.name)).bind(2, std::string_view(t.token_sha256_hex));
  s->bind(3, static_cast<int64_t>(t.read_only ? 1 : 0)).bind(4, t.created_at);
  return s->run("insert admin token");
}

Result<std::optional<AdminToken>> SqliteTx::find_admin_token(std::string_view token_sha256_hex) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(kFindAdminToken.c_str()));
  s->bind(1, token_sha256_hex);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<AdminToken>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find admin token");
  return std::optional<AdminToken>(read_admin_token(*s));
}

Result<std::vector<AdminToken>> SqliteTx::list_admin_tokens() {
  ASSIGN_OR_RETURN(auto s, conn_.prepare(kListAdminTokens.c_str()));
  std::vector<AdminToken> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(read_admin_token(*s));
  if (rc != SQLITE_DONE) return s->failure(rc, "list admin tokens");
  return out;
}

Result<bool> SqliteTx::delete_admin_token(std::string_view name) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM admin_tokens WHERE name = ?"));
  RETURN_IF_ERROR(s->bind(1, name).run("delete admin token"));
  return sqlite3_changes(conn_.handle()) > 0;
}

Status SqliteTx::touch_admin_token(int64_t id, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE admin_tokens SET last_used_at = ? WHERE id = ?"));
  return s->bind(1, now).bind(2, id).run("touch admin token");
}

Result<std::vector<std::string>> SqliteTx::find_response_keys() {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT private_key FROM response_keys ORDER BY id"));
  std::vector<std::string> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) out.push_back(s->text(0));
  if (rc != SQLITE_DONE) return s->failure(rc, "find response keys");
  return out;
}

Status SqliteTx::insert_response_key(std::string_view private_key_pem, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO response_keys (private_key, created_at)"
                                         " VALUES (?, ?)"));
  return s->bind(1, private_key_pem).bind(2, now).run("insert response key");
}

Result<std::vector<DumpRow>> SqliteTx::dump_rows(const DumpTable& table) {
  const std::string sql =
      "SELECT " + column_list(table) + " FROM " + table.name + " ORDER BY " + order_by(table, "");
  ASSIGN_OR_RETURN(auto s, conn_.prepare(sql.c_str()));
  std::vector<DumpRow> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    DumpRow row;
    for (int i = 0; i < static_cast<int>(table.columns.size()); ++i) {
      if (s->is_null(i)) {
        row.emplace_back(std::monostate{});
      } else if (table.columns[i].kind == DumpKind::kText) {
        row.emplace_back(s->text(i));
      } else {
        row.emplace_back(s->int64(i));
      }
    }
    out.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "export rows");
  return out;
}

Result<bool> SqliteTx::table_is_empty(const DumpTable& table) {
  const std::string sql = std::string("SELECT NOT EXISTS (SELECT 1 FROM ") + table.name + ")";
  ASSIGN_OR_RETURN(auto s, conn_.prepare(sql.c_str()));
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "check the store is empty");
  return s->int64(0) != 0;
}

Status SqliteTx::restore_row(const DumpTable& table, const DumpRow& row) {
  std::string sql =
      "INSERT INTO " + std::string(table.name) + " (" + column_list(table) + ") VALUES (";
  for (size_t i = 0; i < table.columns.size(); ++i) sql += i == 0 ? "?" : ", ?";
  sql += ")";
  ASSIGN_OR_RETURN(auto s, conn_.prepare(sql.c_str()));
  for (size_t i = 0; i < row.size(); ++i) {
    const int index = static_cast<int>(i) + 1;
    if (const auto* n = std::get_if<int64_t>(&row[i])) {
      s->bind(index, *n);
    } else if (const auto* t = std::get_if<std::string>(&row[i])) {
      s->bind(index, std::string_view(*t));
    } else {
      s->bind_null(index);
    }
  }
  return s->run("import row");
}

// AUTOINCREMENT keeps its counter above any id inserted explicitly: nothing to move.
Status SqliteTx::finish_restore() {
  return Ok{};
}

}  // namespace licensed

namespace licensed {

Status SqliteTx::update_product(const Product& p) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE products SET default_plan = ?, trial_plan = ?,"
                                         " trial_days = ? WHERE id = ?"));
  s->bind(1, p.default_plan);
  s->bind(2, p.trial ? std::optional<std::string>(p.trial->plan) : std::nullopt);
  s->bind(3, p.trial ? std::optional<int64_t>(p.trial->days) : std::nullopt).bind(4, p.id);
  return s->run("update product");
}

Result<std::vector<Plan>> SqliteTx::list_plans(int64_t product_id) {
  ASSIGN_OR_RETURN(
      auto s, conn_.prepare((kSelectPlansSql + " WHERE product_id = ? ORDER BY code").c_str()));
  s->bind(1, product_id);
  std::vector<Plan> out;
  int rc;
  while ((rc = s->step()) == SQLITE_ROW) {
    ASSIGN_OR_RETURN(Plan p, read_plan(*s));
    out.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return s->failure(rc, "list plans");
  return out;
}

Result<std::optional<Plan>> SqliteTx::find_plan(int64_t product_id, std::string_view code) {
  ASSIGN_OR_RETURN(auto s,
                   conn_.prepare((kSelectPlansSql + " WHERE product_id = ? AND code = ?").c_str()));
  s->bind(1, product_id).bind(2, code);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<Plan>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find plan");
  ASSIGN_OR_RETURN(Plan p, read_plan(*s));
  return std::optional<Plan>(std::move(p));
}

Result<Plan> SqliteTx::insert_plan(const Plan& p) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO plans (product_id, code, name, spec,"
                                         " created_at) VALUES (?, ?, ?, ?, ?)"));
  s->bind(1, p.product_id).bind(2, std::string_view(p.code)).bind(3, std::string_view(p.name));
  s->bind(4, std::string_view(plan_spec_to_store(p))).bind(5, p.created_at);
  RETURN_IF_ERROR(s->run("insert plan"));
  Plan out = p;
  out.id = sqlite3_last_insert_rowid(conn_.handle());
  return out;
}

Status SqliteTx::update_plan(const Plan& p) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("UPDATE plans SET name = ?, spec = ? WHERE id = ?"));
  s->bind(1, std::string_view(p.name)).bind(2, std::string_view(plan_spec_to_store(p)));
  return s->bind(3, p.id).run("update plan");
}

Status SqliteTx::delete_plan(int64_t plan_id) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM plans WHERE id = ?"));
  return s->bind(1, plan_id).run("delete plan");
}

// The writer's transaction admits one writer to the whole file: nothing more to take.
Status SqliteTx::lock_product_trials(int64_t) {
  if (!write_ || !conn_.in_transaction()) return lock_outside_write_transaction();
  return Ok{};
}

Result<std::optional<std::string>> SqliteTx::find_trial(int64_t product_id,
                                                        std::string_view machine_hmac) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT license_key FROM trials"
                                         " WHERE product_id = ? AND machine_hmac = ?"));
  s->bind(1, product_id).bind(2, machine_hmac);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find trial");
  return std::optional<std::string>(s->text(0));
}

Result<std::optional<std::string>> SqliteTx::find_trial_email(int64_t product_id,
                                                              std::string_view email_hmac) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT license_key FROM trial_emails"
                                         " WHERE product_id = ? AND email_hmac = ?"));
  s->bind(1, product_id).bind(2, email_hmac);
  const int rc = s->step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return s->failure(rc, "find trial email");
  return std::optional<std::string>(s->text(0));
}

Status SqliteTx::insert_trial(int64_t product_id, std::string_view machine_hmac,
                              std::string_view license_key, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO trials (product_id, machine_hmac,"
                                         " license_key, created_at) VALUES (?, ?, ?, ?)"));
  s->bind(1, product_id).bind(2, machine_hmac).bind(3, license_key).bind(4, now);
  return s->run("insert trial");
}

Status SqliteTx::insert_trial_email(int64_t product_id, std::string_view email_hmac,
                                    std::string_view license_key, UnixMillis now) {
  ASSIGN_OR_RETURN(auto s, conn_.prepare("INSERT INTO trial_emails (product_id, email_hmac,"
                                         " license_key, created_at) VALUES (?, ?, ?, ?)"));
  s->bind(1, product_id).bind(2, email_hmac).bind(3, license_key).bind(4, now);
  return s->run("insert trial email");
}

Result<std::vector<std::string>> SqliteTx::delete_trial(int64_t product_id,
                                                        std::string_view machine_hmac) {
  ASSIGN_OR_RETURN(auto found, find_trial(product_id, machine_hmac));
  if (!found) return std::vector<std::string>();
  ASSIGN_OR_RETURN(auto s, conn_.prepare("DELETE FROM trials WHERE product_id = ? AND"
                                         " machine_hmac = ?"));
  RETURN_IF_ERROR(s->bind(1, product_id).bind(2, machine_hmac).run("delete trial"));
  ASSIGN_OR_RETURN(auto e, conn_.prepare("DELETE FROM trial_emails WHERE product_id = ? AND"
                                         " license_key = ?"));
  RETURN_IF_ERROR(e->bind(1, product_id).bind(2, std::string_view(*found)).run("delete trial"));
  return std::vector<std::string>{*found};
}

Result<std::string> SqliteTx::ensure_server_secret(std::string_view name,
                                                   std::string_view candidate, UnixMillis now) {
  ASSIGN_OR_RETURN(auto ins, conn_.prepare("INSERT OR IGNORE INTO server_secrets (name, secret,"
                                           " created_at) VALUES (?, ?, ?)"));
  RETURN_IF_ERROR(ins->bind(1, name).bind(2, candidate).bind(3, now).run("keep server secret"));
  ASSIGN_OR_RETURN(auto s, conn_.prepare("SELECT secret FROM server_secrets WHERE name = ?"));
  s->bind(1, name);
  const int rc = s->step();
  if (rc != SQLITE_ROW) return s->failure(rc, "read server secret");
  return s->text(0);
}

}  // namespace licensed
