// A store written by the binary before plans and trials (schema version 4) is migrated
// by this one and keeps its licenses: they read with no plan, no entitlements and the
// default offline grace, and the new tables take plans at once. The migrations run as
// `serve` runs them at start (migrate_sqlite); the old schema is built from the first
// four released steps, which are never edited. Likewise from version 5 (before store
// fulfilment), 6 (before the store lifecycle) and 7 (before offline activation, 8, and
// webhooks, 9).
#include <gtest/gtest.h>

#include <filesystem>

#include "admin/admin_operations.h"
#include "admin/store_lifecycle.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_migrations.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace licensed {
namespace {

constexpr const char* kKey = "11111111-1111-4111-8111-111111111111";

TEST(SqliteUpgrade, AVersion4StoreKeepsItsLicensesAndTakesPlansAfterTheMigration) {
  bb::TempDir dir;
  const std::string path = (dir.path() / "v4.db").string();
  {
    auto conn = SqliteConnection::open(path, /*read_only=*/false, /*create=*/true);
    ASSERT_TRUE(conn.ok()) << conn.error().message;
    ASSERT_GE(sqlite_migrations().size(), 5u);
    ASSERT_EQ(sqlite_migrations()[3].version, 4);
    ASSERT_TRUE(apply_sqlite_migrations(*conn.value(), sqlite_migrations().first(4)).ok());
    const std::string rows =
        "INSERT INTO products (id, slug, name, created_at) VALUES "
        "(1, 'reverb', 'Reverb Pro', 1780000000000);"
        "INSERT INTO licenses (license_key, product_id, status, max_activations, created_at) "
        "VALUES ('" +
        std::string(kKey) + "', 1, 'ACTIVE', 2, 1780000000000);";
    ASSERT_TRUE(conn.value()->exec(rows.c_str()).ok());
  }
  SqliteStoreOptions options;
  options.path = path;
  auto store = SqliteStore::open(options);
  ASSERT_TRUE(store.ok()) << store.error().message;
  const auto found = run_blocking(*store.value(), TxKind::kRead,
                                  [](StoreTx& tx) { return tx.find_license(kKey); });
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_TRUE(found.value().has_value()) << "the license written before the migration is gone";
  const License& l = *found.value();
  EXPECT_EQ(l.max, 2);
  EXPECT_FALSE(l.plan.has_value());
  EXPECT_TRUE(l.entitlements.empty());
  EXPECT_FALSE(l.offline_grace_seconds.has_value()) << "null: the default grace";

  const auto plan = run_blocking(*store.value(), TxKind::kWrite, [&l](StoreTx& tx) -> Result<Plan> {
    Plan p;
    p.product_id = l.product.id;
    p.code = "pro";
    p.name = "Reverb Pro";
    return tx.insert_plan(p);
  });
  EXPECT_TRUE(plan.ok()) << plan.error().message;
}

// A store written before store fulfilment (schema version 5) keeps its licenses and their
// audit: they read with no customer and no source, the audit with no source, and the new
// tables take a store at once.
TEST(SqliteUpgrade, AVersion5StoreKeepsItsLicensesAndTakesStoresAfterTheMigration) {
  bb::TempDir dir;
  const std::string path = (dir.path() / "v5.db").string();
  {
    auto conn = SqliteConnection::open(path, /*read_only=*/false, /*create=*/true);
    ASSERT_TRUE(conn.ok()) << conn.error().message;
    ASSERT_GE(sqlite_migrations().size(), 6u);
    ASSERT_EQ(sqlite_migrations()[4].version, 5);
    ASSERT_TRUE(apply_sqlite_migrations(*conn.value(), sqlite_migrations().first(5)).ok());
    const std::string rows =
        "INSERT INTO products (id, slug, name, created_at) VALUES "
        "(1, 'reverb', 'Reverb Pro', 1780000000000);"
        "INSERT INTO licenses (license_key, product_id, status, max_activations, created_at,"
        " plan) VALUES ('" +
        std::string(kKey) +
        "', 1, 'ACTIVE', 2, 1780000000000, 'pro');"
        "INSERT INTO audit_log (at, action, license_key, actor) VALUES "
        "(1780000000000, 'license.create', '" +
        std::string(kKey) + "', 'admin');";
    ASSERT_TRUE(conn.value()->exec(rows.c_str()).ok());
  }
  SqliteStoreOptions options;
  options.path = path;
  auto store = SqliteStore::open(options);
  ASSERT_TRUE(store.ok()) << store.error().message;
  const auto found = run_blocking(*store.value(), TxKind::kRead,
                                  [](StoreTx& tx) { return tx.find_license(kKey); });
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_TRUE(found.value().has_value());
  EXPECT_EQ(found.value()->plan, "pro");
  EXPECT_FALSE(found.value()->customer.has_value());
  EXPECT_FALSE(found.value()->source.has_value());
  const auto audit = run_blocking(*store.value(), TxKind::kRead, [](StoreTx& tx) {
    return tx.list_audit(kKey, AuditOrder::kOldestFirst, 0, 10);
  });
  ASSERT_TRUE(audit.ok()) << audit.error().message;
  ASSERT_EQ(audit.value().size(), 1u);
  EXPECT_FALSE(audit.value()[0].source.has_value());

  const auto made = run_blocking(*store.value(), TxKind::kWrite, [](StoreTx& tx) {
    Storefront f;
    f.provider = "stripe";
    f.name = "Shop";
    f.token_sha256_hex = std::string(64, 'c');
    f.secrets = {"whsec_x"};
    return tx.insert_storefront(f);
  });
  EXPECT_TRUE(made.ok()) << made.error().message;
}

// A store written before the store lifecycle (schema version 6) keeps its stores and what
// they fulfilled, and an order fulfilled then is found by its id after the migration: a
// refund citing it makes its license REFUNDED.
TEST(SqliteUpgrade, AVersion6StoreFindsItsFulfilledOrdersByIdAfterTheMigration) {
  bb::TempDir dir;
  const std::string path = (dir.path() / "v6.db").string();
  {
    auto conn = SqliteConnection::open(path, /*read_only=*/false, /*create=*/true);
    ASSERT_TRUE(conn.ok()) << conn.error().message;
    ASSERT_GE(sqlite_migrations().size(), 7u);
    ASSERT_EQ(sqlite_migrations()[5].version, 6);
    ASSERT_TRUE(apply_sqlite_migrations(*conn.value(), sqlite_migrations().first(6)).ok());
    const std::string rows =
        "INSERT INTO products (id, slug, name, created_at) VALUES "
        "(1, 'reverb', 'Reverb Pro', 1780000000000);"
        "INSERT INTO storefronts (id, provider, name, token_sha256, options, payment_grace,"
        " created_at) VALUES (1, 'stripe', 'Shop', '" +
        std::string(64, 'c') +
        "', '{}', 604800, 1780000000000);"
        "INSERT INTO licenses (license_key, product_id, status, max_activations, created_at,"
        " source_provider, source_store_id, source_order_id) VALUES ('" +
        std::string(kKey) +
        "', 1, 'ACTIVE', 2, 1780000000000, 'stripe', 1, 'cs_old');"
        "INSERT INTO storefront_events (store_id, event_key, event_type, received_at) VALUES "
        "(1, 'evt_sale', 'checkout.session.completed', 1780000000000);"
        "INSERT INTO storefront_units (store_id, order_id, line, unit, license_key, created_at)"
        " VALUES (1, 'cs_old', 0, 0, '" +
        std::string(kKey) + "', 1780000000000);";
    ASSERT_TRUE(conn.value()->exec(rows.c_str()).ok());
  }
  SqliteStoreOptions options;
  options.path = path;
  auto store = SqliteStore::open(options);
  ASSERT_TRUE(store.ok()) << store.error().message;
  StoreEvent refund;
  refund.event_key = "evt_refund";
  refund.event_type = "charge.refunded";
  refund.action = StoreAction::kRefund;
  refund.reference = "cs_old";
  const auto applied =
      run_blocking(*store.value(), TxKind::kWrite, [&refund](StoreTx& tx) -> Result<StoreOutcome> {
        auto shop = tx.find_storefront(1);
        if (!shop.ok()) return shop.error();
        if (!shop.value()) return Error::not_found("store", "the store is gone");
        return apply_store_event(tx, *shop.value(), refund, 1780000100000);
      });
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(applied.value().changed_keys, std::vector<std::string>{kKey});
  const auto found = run_blocking(*store.value(), TxKind::kRead,
                                  [](StoreTx& tx) { return tx.find_license(kKey); });
  ASSERT_TRUE(found.ok() && found.value().has_value());
  EXPECT_EQ(found.value()->status, LicenseStatus::kRefunded);
}

// A store written before offline activation and webhooks (schema version 7) takes both
// steps, 8 then 9: its activation reads as an online one, and a change to its license
// writes a webhook event for an endpoint made afterwards.
TEST(SqliteUpgrade, AVersion7StoreTakesOfflineActivationAndThenWebhooks) {
  bb::TempDir dir;
  const std::string path = (dir.path() / "v7.db").string();
  {
    auto conn = SqliteConnection::open(path, /*read_only=*/false, /*create=*/true);
    ASSERT_TRUE(conn.ok()) << conn.error().message;
    ASSERT_GE(sqlite_migrations().size(), 9u);
    ASSERT_EQ(sqlite_migrations()[6].version, 7);
    ASSERT_EQ(sqlite_migrations()[7].version, 8);
    ASSERT_EQ(sqlite_migrations()[8].version, 9);
    ASSERT_TRUE(apply_sqlite_migrations(*conn.value(), sqlite_migrations().first(7)).ok());
    const std::string rows =
        "INSERT INTO products (id, slug, name, created_at) VALUES "
        "(1, 'reverb', 'Reverb Pro', 1780000000000);"
        "INSERT INTO licenses (id, license_key, product_id, status, max_activations, created_at)"
        " VALUES (1, '" +
        std::string(kKey) +
        "', 1, 'ACTIVE', 2, 1780000000000);"
        "INSERT INTO activations (license_id, machine_id, activated_at, last_seen_at)"
        " VALUES (1, 'studio-mac-01', 1780000000000, 1780000000000);";
    ASSERT_TRUE(conn.value()->exec(rows.c_str()).ok());
  }
  SqliteStoreOptions options;
  options.path = path;
  auto store = SqliteStore::open(options);
  ASSERT_TRUE(store.ok()) << store.error().message;
  const auto activations = run_blocking(*store.value(), TxKind::kRead,
                                        [](StoreTx& tx) { return tx.list_activations(1); });
  ASSERT_TRUE(activations.ok()) << activations.error().message;
  ASSERT_EQ(activations.value().size(), 1u);
  EXPECT_FALSE(activations.value()[0].offline());
  const auto changed =
      run_blocking(*store.value(), TxKind::kWrite, [](StoreTx& tx) -> Result<int64_t> {
        WebhookEndpoint w;
        w.url = "https://hooks.example.com/in";
        w.created_at = 1780000100000;
        w.secrets = {{"whsec_one", 1780000100000, std::nullopt}};
        ASSIGN_OR_RETURN(const WebhookEndpoint made, tx.insert_webhook_endpoint(w));
        ASSIGN_OR_RETURN(const auto updated,
                         set_license_status(tx, kKey, LicenseStatus::kSuspended,
                                            AdminContext{1780000100000, "ops"}));
        (void)updated;
        ASSIGN_OR_RETURN(const auto deliveries, tx.list_webhook_deliveries(made.id, 0, 10));
        return static_cast<int64_t>(deliveries.size());
      });
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  EXPECT_EQ(changed.value(), 1);
}

// docs/operations.md: admin commands open a store without migrating it (a running older
// server may use it): an older store is refused, named, and left at its version; the
// same store opened to migrate (as serve opens it) is brought up to date.
TEST(SqliteUpgrade, AnOlderStoreOpenedWithoutMigrateIsRefusedAndLeftAtItsVersion) {
  bb::TempDir dir;
  const std::string path = (dir.path() / "older.db").string();
  const auto all = sqlite_migrations();
  {
    auto conn = SqliteConnection::open(path, /*read_only=*/false, /*create=*/true);
    ASSERT_TRUE(conn.ok()) << conn.error().message;
    ASSERT_TRUE(apply_sqlite_migrations(*conn.value(), all.first(all.size() - 1)).ok());
  }
  auto refused = open_store("sqlite:" + path, {}, StoreOpening{false, false});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("sqlite:" + path), std::string::npos);
  EXPECT_NE(refused.error().message.find("--migrate"), std::string::npos);
  auto state = read_schema_state("sqlite:" + path);
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(state->version, all[all.size() - 2].version) << "migrated without --migrate";
  EXPECT_EQ(state->pending, std::vector<int>{all.back().version});

  auto migrated = open_store("sqlite:" + path, {}, StoreOpening{false, true});
  ASSERT_TRUE(migrated.ok()) << migrated.error().message;
  migrated.value().reset();
  state = read_schema_state("sqlite:" + path);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->version, all.back().version);
  EXPECT_TRUE(state->pending.empty());
}

TEST(SqliteUpgrade, AFileThatDoesNotExistIsRefusedWithoutCreateAndNotMade) {
  bb::TempDir dir;
  const auto path = dir.path() / "absent.db";
  auto refused = open_store("sqlite:" + path.string(), {}, StoreOpening{false, true});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StatusCode::kNotFound);
  EXPECT_NE(refused.error().message.find("licensed init"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  auto state = read_schema_state("sqlite:" + path.string());
  ASSERT_TRUE(state.ok());
  EXPECT_FALSE(state->exists);
  EXPECT_FALSE(std::filesystem::exists(path)) << "reading the state made the file";
}

}  // namespace
}  // namespace licensed
