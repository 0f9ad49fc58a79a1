// A store written by the binary before plans and trials (schema version 4) is migrated
// by this one and keeps its licenses: they read with no plan, no entitlements and the
// default offline grace, and the new tables take plans at once. The migrations run as
// `serve` runs them at start (migrate_sqlite); the old schema is built from the first
// four released steps, which are never edited.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace licensed
