// TxGuard (store/tx_guard.h) on a real SQLite file, and the migration runner that uses
// it: whatever way a scope is left, no transaction stays open and nothing uncommitted
// is kept.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_migrations.h"
#include "support/temp_dir.h"

namespace licensed {
namespace {

class SqliteTxGuardTest : public ::testing::Test {
 protected:
  void SetUp() override { conn_ = open_file(); }

  std::unique_ptr<SqliteConnection> open_file() const {
    auto conn = SqliteConnection::open((dir_.path() / "guard.db").string(), false, true);
    EXPECT_TRUE(conn.ok()) << conn.error().message;
    return std::move(conn.value());
  }

  // One number as a second connection sees it: only what was committed.
  int64_t committed(const std::string& sql) const {
    auto other = open_file();
    auto s = other->prepare(sql.c_str());
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.value()->step(), SQLITE_ROW);
    return s.value()->int64(0);
  }
  int64_t committed_rows(const char* table) const {
    return committed(std::string("SELECT COUNT(*) FROM ") + table);
  }
  bool table_exists(const char* name) const {
    return committed(std::string("SELECT COUNT(*) FROM sqlite_schema WHERE name = '") + name +
                     "'") == 1;
  }
  int64_t schema_version() const {
    return committed("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  }

  bb::TempDir dir_;
  std::unique_ptr<SqliteConnection> conn_;
};

TEST_F(SqliteTxGuardTest, AGuardLeftWithoutCommitRollsBackItsWrites) {
  ASSERT_TRUE(conn_->exec("CREATE TABLE t (x INTEGER)").ok());
  {
    auto tx = SqliteTxGuard::begin(*conn_, "BEGIN IMMEDIATE");
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(conn_->exec("INSERT INTO t VALUES (1)").ok());
    EXPECT_TRUE(conn_->in_transaction());
  }
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(committed_rows("t"), 0);
}

TEST_F(SqliteTxGuardTest, ACommittedGuardKeepsItsWritesAndEndsTheTransaction) {
  ASSERT_TRUE(conn_->exec("CREATE TABLE t (x INTEGER)").ok());
  {
    auto tx = SqliteTxGuard::begin(*conn_, "BEGIN IMMEDIATE");
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(conn_->exec("INSERT INTO t VALUES (1)").ok());
    EXPECT_TRUE(tx->commit().ok());
    EXPECT_FALSE(tx->open());
  }
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(committed_rows("t"), 1);
}

TEST_F(SqliteTxGuardTest, AGuardCommittedTwiceFailsTheSecondTime) {
  auto tx = SqliteTxGuard::begin(*conn_, "BEGIN");
  ASSERT_TRUE(tx.ok());
  EXPECT_TRUE(tx->commit().ok());
  EXPECT_FALSE(tx->commit().ok());
}

TEST_F(SqliteTxGuardTest, AGuardMovedOutOfItsScopeStillOwnsTheTransaction) {
  ASSERT_TRUE(conn_->exec("CREATE TABLE t (x INTEGER)").ok());
  auto outer = [&]() -> Result<SqliteTxGuard> {
    ASSIGN_OR_RETURN(auto tx, SqliteTxGuard::begin(*conn_, "BEGIN IMMEDIATE"));
    RETURN_IF_ERROR(conn_->exec("INSERT INTO t VALUES (1)"));
    return tx;
  }();
  ASSERT_TRUE(outer.ok());
  EXPECT_TRUE(conn_->in_transaction());
  EXPECT_TRUE(outer->commit().ok());
  EXPECT_EQ(committed_rows("t"), 1);
}

TEST_F(SqliteTxGuardTest, AFailingMigrationStepLeavesNoTransactionAndThePreviousVersion) {
  const Migration first[] = {{1, "CREATE TABLE a (x INTEGER);"}};
  ASSERT_TRUE(apply_sqlite_migrations(*conn_, first).ok());
  const Migration broken[] = {first[0],
                              {2, "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);"}};
  EXPECT_FALSE(apply_sqlite_migrations(*conn_, broken).ok());
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(schema_version(), 1);
  EXPECT_FALSE(table_exists("b"));
}

// The step after the migration's SQL fails too (its record cannot be prepared, as the
// migration dropped the table it goes to): that early return once left BEGIN open.
TEST_F(SqliteTxGuardTest, AMigrationWhoseRecordCannotBeWrittenLeavesNoTransaction) {
  const Migration first[] = {{1, "CREATE TABLE a (x INTEGER);"}};
  ASSERT_TRUE(apply_sqlite_migrations(*conn_, first).ok());
  conn_ = open_file();  // a connection that has not prepared the record statement yet
  const Migration broken[] = {first[0],
                              {2, "CREATE TABLE b (x INTEGER); DROP TABLE schema_migrations;"}};
  EXPECT_FALSE(apply_sqlite_migrations(*conn_, broken).ok());
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(schema_version(), 1);
  EXPECT_FALSE(table_exists("b"));
}

}  // namespace
}  // namespace licensed
