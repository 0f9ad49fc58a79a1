// TxGuard (store/tx_guard.h) on a real PostgreSQL database, as SqliteTxGuardTest shows it
// on SQLite: whatever way a scope is left, the connection is out of its transaction and
// only what was committed is seen by another session.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "store/postgres/pg_connection.h"
#include "support/pg_database.h"

namespace bb {
namespace {

using licensed::PgConnection;
using licensed::PgTxGuard;

class PgTxGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<std::string> server = TestPostgresUrl();
    if (!server) GTEST_SKIP() << "no test PostgreSQL server";
    db_.emplace(*server);
    auto conn = PgConnection::open(db_->url(), {});
    ASSERT_TRUE(conn.ok()) << conn.error().message;
    conn_ = std::move(conn.value());
    ASSERT_TRUE(conn_->exec("CREATE TABLE t (x INTEGER PRIMARY KEY)", "create").ok());
  }

  // What another session sees: only what was committed.
  std::string committed_rows() const {
    return PgSession(db_->url()).Exec("SELECT COUNT(*) FROM t");
  }
  licensed::Status insert(int x) {
    licensed::PgParams params;
    params.add(int64_t{x});
    return conn_->run("INSERT INTO t VALUES ($1)", params, "insert");
  }

  std::optional<PgTestDatabase> db_;
  std::unique_ptr<PgConnection> conn_;
};

TEST_F(PgTxGuardTest, AGuardLeftWithoutCommitRollsBackItsWrites) {
  {
    auto tx = PgTxGuard::begin(*conn_, "BEGIN");
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(insert(1).ok());
    EXPECT_TRUE(conn_->in_transaction());
  }
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(committed_rows(), "0");
}

TEST_F(PgTxGuardTest, ACommittedGuardKeepsItsWritesAndEndsTheTransaction) {
  {
    auto tx = PgTxGuard::begin(*conn_, "BEGIN");
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(insert(1).ok());
    EXPECT_TRUE(tx->commit().ok());
    EXPECT_FALSE(tx->open());
  }
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(committed_rows(), "1");
}

// PostgreSQL keeps a transaction whose statement failed open (aborted) until it ends:
// the guard's early return through the failure ends it, and the connection serves again.
TEST_F(PgTxGuardTest, AScopeLeftThroughAFailedStatementLeavesNoTransactionAndNothingOfIt) {
  auto scope = [&]() -> licensed::Status {
    ASSIGN_OR_RETURN(auto tx, PgTxGuard::begin(*conn_, "BEGIN"));
    RETURN_IF_ERROR(insert(1));
    RETURN_IF_ERROR(insert(1));  // the same key: fails, and aborts the transaction
    return tx.commit();
  };
  EXPECT_FALSE(scope().ok());
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_EQ(committed_rows(), "0");
  EXPECT_TRUE(insert(2).ok()) << "the connection serves the next statement";
  EXPECT_EQ(committed_rows(), "1");
}

TEST_F(PgTxGuardTest, ACommitOfAnAbortedTransactionFailsAndEndsIt) {
  auto tx = PgTxGuard::begin(*conn_, "BEGIN");
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE(insert(1).ok());
  EXPECT_FALSE(insert(1).ok());
  EXPECT_FALSE(tx->commit().ok()) << "PostgreSQL rolled it back: the commit says so";
  EXPECT_FALSE(conn_->in_transaction());
  EXPECT_FALSE(tx->commit().ok()) << "a second commit of an ended guard fails too";
  EXPECT_EQ(committed_rows(), "0");
}

}  // namespace
}  // namespace bb
