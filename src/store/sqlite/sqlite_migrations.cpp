#include "store/sqlite/sqlite_migrations.h"

#include <spdlog/spdlog.h>

#include <span>

#include "store/migration.h"

namespace licensed {
namespace {

constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE products (
  id          INTEGER PRIMARY KEY,
  slug        TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE TABLE licenses (
  id              INTEGER PRIMARY KEY,
  license_key     TEXT NOT NULL UNIQUE,
  product_id      INTEGER NOT NULL REFERENCES products(id),
  status          TEXT NOT NULL CHECK (status IN ('ACTIVE','SUSPENDED','REFUNDED','REVOKED')),
  max_activations INTEGER NOT NULL CHECK (max_activations >= 0),
  expires_at      INTEGER,
  machine_ttl     INTEGER CHECK (machine_ttl IS NULL OR machine_ttl > 0),
  created_at      INTEGER NOT NULL,
  deleted_at      INTEGER
);
CREATE TABLE activations (
  license_id    INTEGER NOT NULL REFERENCES licenses(id),
  machine_id    TEXT NOT NULL,
  machine_name  TEXT,
  activated_at  INTEGER NOT NULL,
  last_seen_at  INTEGER NOT NULL,
  PRIMARY KEY (license_id, machine_id)
) WITHOUT ROWID;
CREATE TABLE audit_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  at          INTEGER NOT NULL,
  action      TEXT NOT NULL,
  license_key TEXT NOT NULL,
  machine_id  TEXT,
  refresh     INTEGER NOT NULL DEFAULT 0,
  actor       TEXT NOT NULL,
  actor_name  TEXT,
  ip          TEXT,
  key_id      TEXT,
  request_id  TEXT
);
CREATE INDEX audit_log_by_license ON audit_log (license_key, id);
CREATE TABLE remembered_nonces (
  key_id      TEXT NOT NULL,
  nonce       TEXT NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (key_id, nonce)
) WITHOUT ROWID;
CREATE INDEX remembered_nonces_by_expiry ON remembered_nonces (expires_at);
)sql"},
    // The server's own Ed25519 response key (docs/protocol.md §14), made on the first start
    // without --response-key. The private key sits in the database file, which is
    // already as sensitive: whoever can write it can grant any license.
    {2, R"sql(
CREATE TABLE response_keys (
  id           INTEGER PRIMARY KEY,
  private_key  TEXT NOT NULL,
  created_at   INTEGER NOT NULL
);
)sql"},
    // Admin API bearer tokens (docs/protocol.md §18): only their SHA-256 is kept, so
    // a copy of the database does not hand out admin access. The licenses index serves
    // the admin API's keyset pages filtered by product.
    {3, R"sql(
CREATE TABLE admin_tokens (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  token_sha256  TEXT NOT NULL UNIQUE,
  read_only     INTEGER NOT NULL,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER
);
CREATE INDEX licenses_by_product ON licenses (product_id, id);
)sql"},
    // What an admin change changed, and why (docs/protocol.md §17).
    {4, R"sql(
ALTER TABLE audit_log ADD COLUMN changes TEXT;
ALTER TABLE audit_log ADD COLUMN reason TEXT;
)sql"},
    // Plans, entitlements, trials and signed grace (docs/protocol.md §19). A license's
    // entitlements are a JSON array on its row (read and written with the license, never
    // queried apart); a plan's members are a JSON object beside its code and name. Trials
    // are kept by HMACs of the machine id and email under the server's own secret.
    {5, R"sql(
ALTER TABLE products ADD COLUMN default_plan TEXT;
ALTER TABLE products ADD COLUMN trial_plan TEXT;
ALTER TABLE products ADD COLUMN trial_days INTEGER CHECK (trial_days IS NULL OR trial_days > 0);
ALTER TABLE licenses ADD COLUMN plan TEXT;
ALTER TABLE licenses ADD COLUMN entitlements TEXT NOT NULL DEFAULT '[]';
ALTER TABLE licenses ADD COLUMN offline_grace INTEGER
  CHECK (offline_grace IS NULL OR offline_grace > 0);
ALTER TABLE licenses ADD COLUMN trial INTEGER NOT NULL DEFAULT 0;
ALTER TABLE licenses ADD COLUMN valid_for_pending INTEGER;
CREATE TABLE plans (
  id          INTEGER PRIMARY KEY,
  product_id  INTEGER NOT NULL REFERENCES products(id),
  code        TEXT NOT NULL,
  name        TEXT NOT NULL,
  spec        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (product_id, code)
);
CREATE TABLE trials (
  product_id    INTEGER NOT NULL REFERENCES products(id),
  machine_hmac  TEXT NOT NULL,
  license_key   TEXT NOT NULL REFERENCES licenses(license_key),
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (product_id, machine_hmac)
) WITHOUT ROWID;
CREATE TABLE trial_emails (
  product_id   INTEGER NOT NULL REFERENCES products(id),
  email_hmac   TEXT NOT NULL,
  license_key  TEXT NOT NULL REFERENCES licenses(license_key),
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (product_id, email_hmac)
) WITHOUT ROWID;
CREATE TABLE server_secrets (
  name        TEXT PRIMARY KEY,
  secret      TEXT NOT NULL,
  created_at  INTEGER NOT NULL
) WITHOUT ROWID;
)sql"},
    // Store fulfilment (docs/protocol.md §22): the stores a vendor sells
    // through (C++: Storefront, so as not to be confused with the database), their
    // secrets (kept as given: they key the providers' HMACs) and SKU mappings, every
    // inbound event by (store, event key) and every fulfilled unit by (store, order,
    // line, unit). A unit names its license by key without a foreign key: the unit is
    // claimed first, then its license made, in one transaction. Licenses from a sale
    // keep their customer and source; support searches both.
    {6, R"sql(
ALTER TABLE audit_log ADD COLUMN source TEXT;
ALTER TABLE licenses ADD COLUMN customer_email TEXT;
ALTER TABLE licenses ADD COLUMN customer_name TEXT;
ALTER TABLE licenses ADD COLUMN source_provider TEXT;
ALTER TABLE licenses ADD COLUMN source_store_id INTEGER;
ALTER TABLE licenses ADD COLUMN source_order_id TEXT;
CREATE INDEX licenses_by_customer_email ON licenses (lower(customer_email));
CREATE INDEX licenses_by_source_order ON licenses (source_order_id);
CREATE TABLE storefronts (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  provider        TEXT NOT NULL,
  name            TEXT NOT NULL,
  token_sha256    TEXT NOT NULL UNIQUE,
  options         TEXT NOT NULL DEFAULT '{}',
  payment_grace   INTEGER NOT NULL CHECK (payment_grace >= 0),
  created_at      INTEGER NOT NULL
);
CREATE TABLE storefront_secrets (
  store_id    INTEGER NOT NULL REFERENCES storefronts(id),
  position    INTEGER NOT NULL CHECK (position >= 0 AND position < 3),
  secret      TEXT NOT NULL,
  PRIMARY KEY (store_id, position)
) WITHOUT ROWID;
CREATE TABLE storefront_skus (
  store_id    INTEGER NOT NULL REFERENCES storefronts(id),
  item_id     TEXT NOT NULL,
  product_id  INTEGER NOT NULL REFERENCES products(id),
  plan        TEXT NOT NULL,
  per_unit    INTEGER NOT NULL,
  PRIMARY KEY (store_id, item_id)
) WITHOUT ROWID;
CREATE TABLE storefront_events (
  store_id     INTEGER NOT NULL REFERENCES storefronts(id),
  event_key    TEXT NOT NULL,
  event_type   TEXT NOT NULL,
  received_at  INTEGER NOT NULL,
  PRIMARY KEY (store_id, event_key)
) WITHOUT ROWID;
CREATE TABLE storefront_units (
  store_id     INTEGER NOT NULL REFERENCES storefronts(id),
  order_id     TEXT NOT NULL,
  line         INTEGER NOT NULL CHECK (line >= 0),
  unit         INTEGER NOT NULL CHECK (unit >= 0),
  license_key  TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (store_id, order_id, line, unit)
) WITHOUT ROWID;
)sql"},
    // The store lifecycle (docs/protocol.md §22.7): the ids later events cite an order by (its
    // own, a payment intent, a subscription), filled for orders fulfilled before; which store
    // event set a license's status, so a won dispute or a payment restores only its own;
    // the latest subscription period per order, so an older one never moves expiresAt;
    // failed payments waiting out their store's paymentGrace.
    {7, R"sql(
CREATE TABLE storefront_order_refs (
  store_id    INTEGER NOT NULL REFERENCES storefronts(id),
  reference   TEXT NOT NULL,
  order_id    TEXT NOT NULL,
  PRIMARY KEY (store_id, reference)
) WITHOUT ROWID;
INSERT INTO storefront_order_refs (store_id, reference, order_id)
  SELECT DISTINCT store_id, order_id, order_id FROM storefront_units;
CREATE TABLE storefront_status_causes (
  license_key  TEXT PRIMARY KEY,
  store_id     INTEGER NOT NULL REFERENCES storefronts(id),
  cause        TEXT NOT NULL,
  set_at       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE storefront_order_periods (
  store_id      INTEGER NOT NULL REFERENCES storefronts(id),
  order_id      TEXT NOT NULL,
  period_start  INTEGER,
  period_end    INTEGER NOT NULL,
  PRIMARY KEY (store_id, order_id)
) WITHOUT ROWID;
CREATE TABLE storefront_payment_failures (
  store_id   INTEGER NOT NULL REFERENCES storefronts(id),
  order_id   TEXT NOT NULL,
  failed_at  INTEGER NOT NULL,
  PRIMARY KEY (store_id, order_id)
) WITHOUT ROWID;
)sql"},
    // Offline activation (docs/protocol.md §21): a license's lease, release rule and
    // deactivation quota; an activation's file (its id, the request nonce that made it, the
    // payload, answered again for the same nonce), its end, and when it was deactivated; the
    // log of deactivations the quota counts over a rolling 30 days.
    {8, R"sql(
ALTER TABLE licenses ADD COLUMN offline_lease INTEGER CHECK (offline_lease IS NULL OR offline_lease > 0);
ALTER TABLE licenses ADD COLUMN offline_release TEXT NOT NULL DEFAULT 'expiry'
  CHECK (offline_release IN ('expiry','deactivation'));
ALTER TABLE licenses ADD COLUMN max_deactivations INTEGER
  CHECK (max_deactivations IS NULL OR max_deactivations >= 0);
ALTER TABLE activations ADD COLUMN offline_until INTEGER;
ALTER TABLE activations ADD COLUMN offline_file_id TEXT;
ALTER TABLE activations ADD COLUMN offline_nonce TEXT;
ALTER TABLE activations ADD COLUMN offline_payload TEXT;
ALTER TABLE activations ADD COLUMN deactivated_at INTEGER;
CREATE TABLE deactivations (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  license_id  INTEGER NOT NULL REFERENCES licenses(id),
  machine_id  TEXT NOT NULL,
  at          INTEGER NOT NULL,
  counted     INTEGER NOT NULL CHECK (counted IN (0, 1)),
  offline     INTEGER NOT NULL CHECK (offline IN (0, 1))
);
CREATE INDEX deactivations_by_license ON deactivations (license_id, at);
ALTER TABLE audit_log ADD COLUMN offline INTEGER NOT NULL DEFAULT 0 CHECK (offline IN (0, 1));
)sql"},
    // Webhooks (docs/protocol.md §25): endpoints with their secrets (two sign during a
    // rotation, the old one until retires_at), the outbox of events written by the transaction
    // of the change each reports with one delivery row per endpoint, and the marks that keep a
    // sweep's event once.
    {9, R"sql(
CREATE TABLE webhook_endpoints (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  url              TEXT NOT NULL,
  description      TEXT NOT NULL DEFAULT '',
  events           TEXT NOT NULL,
  enabled          INTEGER NOT NULL,
  failing_since    INTEGER,
  disabled_reason  TEXT,
  created_at       INTEGER NOT NULL
);
CREATE TABLE webhook_secrets (
  endpoint_id  INTEGER NOT NULL REFERENCES webhook_endpoints(id),
  secret       TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  retires_at   INTEGER,
  PRIMARY KEY (endpoint_id, secret)
) WITHOUT ROWID;
CREATE TABLE webhook_events (
  id    INTEGER PRIMARY KEY AUTOINCREMENT,
  type  TEXT NOT NULL,
  at    INTEGER NOT NULL,
  body  TEXT NOT NULL
);
CREATE INDEX webhook_events_by_time ON webhook_events (at);
CREATE TABLE webhook_deliveries (
  endpoint_id      INTEGER NOT NULL REFERENCES webhook_endpoints(id),
  event_id         INTEGER NOT NULL REFERENCES webhook_events(id),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  failed           INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (endpoint_id, event_id)
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
CREATE TABLE webhook_marks (
  mark  TEXT PRIMARY KEY,
  at    INTEGER NOT NULL
) WITHOUT ROWID;
)sql"},
    // The support console (docs/protocol.md §26): refused requests, kept 30 days and 1,000
    // per license (not audit records: those record accepted changes); the audit index the
    // overview's activations per day walk.
    {10, R"sql(
CREATE TABLE refusals (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  at            INTEGER NOT NULL,
  code          INTEGER NOT NULL,
  license_key   TEXT NOT NULL,
  machine_id    TEXT,
  machine_name  TEXT,
  ip            TEXT,
  key_id        TEXT,
  request_id    TEXT
);
CREATE INDEX refusals_by_license ON refusals (license_key, id);
CREATE INDEX refusals_by_time ON refusals (at);
CREATE INDEX audit_log_by_action ON audit_log (action, at);
)sql"},
    // Concurrent seats (docs/protocol.md §27): a license's seat cap, lease length and longest
    // borrow; the leases, one per (machine, session), each counted until it ends. Version 11:
    // 9 and 10 belong to the webhooks and refusals work.
    {11, R"sql(
ALTER TABLE licenses ADD COLUMN max_concurrent INTEGER
  CHECK (max_concurrent IS NULL OR max_concurrent >= 1);
ALTER TABLE licenses ADD COLUMN lease_ttl INTEGER CHECK (lease_ttl IS NULL OR lease_ttl >= 60);
ALTER TABLE licenses ADD COLUMN max_borrow INTEGER CHECK (max_borrow IS NULL OR max_borrow > 0);
CREATE TABLE leases (
  license_id  INTEGER NOT NULL REFERENCES licenses(id),
  machine_id  TEXT NOT NULL,
  session_id  TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  borrowed    INTEGER NOT NULL DEFAULT 0 CHECK (borrowed IN (0, 1)),
  PRIMARY KEY (license_id, machine_id, session_id)
) WITHOUT ROWID;
CREATE INDEX leases_by_end ON leases (license_id, expires_at);
)sql"},
};

Result<int64_t> current_version(SqliteConnection& conn) {
  RETURN_IF_ERROR(conn.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      " version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL DEFAULT (unixepoch()))"));
  ASSIGN_OR_RETURN(auto stmt,
                   conn.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
  const int rc = stmt->step();
  if (rc != SQLITE_ROW) return stmt->failure(rc, "read schema version");
  return stmt->int64(0);
}

Status record_migration(SqliteConnection& conn, int version) {
  ASSIGN_OR_RETURN(auto record, conn.prepare("INSERT INTO schema_migrations (version) VALUES (?)"));
  return record->bind(1, static_cast<int64_t>(version)).run("record migration");
}

// One migration and its record, in one transaction: whichever step fails, the guard
// rolls it back and the database stays at the version before.
Status apply_migration(SqliteConnection& conn, const Migration& m) {
  ASSIGN_OR_RETURN(auto tx, SqliteTxGuard::begin(conn, "BEGIN IMMEDIATE"));
  RETURN_IF_ERROR(conn.exec(m.sql, "schema migration " + std::to_string(m.version)));
  RETURN_IF_ERROR(record_migration(conn, m.version));
  return tx.commit();
}

}  // namespace

Status apply_sqlite_migrations(SqliteConnection& conn, std::span<const Migration> migrations) {
  // A file that is not a database fails here, before anything is written.
  RETURN_IF_ERROR(conn.exec("PRAGMA schema_version"));
  ASSIGN_OR_RETURN(const int64_t version, current_version(conn));
  RETURN_IF_ERROR(refuse_newer_schema(version, migrations.back().version));
  for (const auto& m : migrations) {
    if (m.version <= version) continue;
    RETURN_IF_ERROR(apply_migration(conn, m));
    spdlog::info("applied schema migration {}", m.version);
  }
  return Ok{};
}

Result<SchemaState> sqlite_schema_state(SqliteConnection& conn) {
  ASSIGN_OR_RETURN(auto has_table,
                   conn.prepare("SELECT COUNT(*) FROM sqlite_master"
                                " WHERE type = 'table' AND name = 'schema_migrations'"));
  int rc = has_table->step();
  if (rc != SQLITE_ROW) return has_table->failure(rc, "read schema version");
  int64_t version = 0;
  if (has_table->int64(0) > 0) {
    ASSIGN_OR_RETURN(auto stmt,
                     conn.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
    rc = stmt->step();
    if (rc != SQLITE_ROW) return stmt->failure(rc, "read schema version");
    version = stmt->int64(0);
  }
  return schema_state_of(true, version, sqlite_migrations());
}

std::span<const Migration> sqlite_migrations() {
  return kMigrations;
}

Status migrate_sqlite(SqliteConnection& conn) {
  return apply_sqlite_migrations(conn, sqlite_migrations());
}

}  // namespace licensed
