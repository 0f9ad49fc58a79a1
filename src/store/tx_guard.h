// A transaction as an object, after userver's storages::postgres::Transaction: begin()
// starts it, commit() is the last thing its scope does, and leaving the scope any other
// way (an early return through RETURN_IF_ERROR, a failed step) rolls it back. No path of
// the stores or the migration runners can then leave a connection inside a transaction.
//
//   ASSIGN_OR_RETURN(auto tx, TxGuard<SqliteConnection>::begin(conn, "BEGIN IMMEDIATE"));
//   RETURN_IF_ERROR(conn.exec(...));
//   return tx.commit();
//
// `Connection` (SqliteConnection, PgConnection) provides begin(sql), returning a Status or
// nothing (PostgreSQL sends BEGIN with the first statement, so it cannot fail there);
// Status commit(); and void rollback(), which does nothing outside a transaction.
#pragma once

#include <type_traits>
#include <utility>

#include "core/result.h"

namespace licensed {

template <class Connection>
class [[nodiscard]] TxGuard {
 public:
  static Result<TxGuard> begin(Connection& conn, const char* begin_sql) {
    if constexpr (std::is_void_v<decltype(conn.begin(begin_sql))>) {
      conn.begin(begin_sql);
    } else {
      RETURN_IF_ERROR(conn.begin(begin_sql));
    }
    return TxGuard(conn);
  }

  TxGuard(TxGuard&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}
  TxGuard& operator=(TxGuard&&) = delete;
  TxGuard(const TxGuard&) = delete;
  TxGuard& operator=(const TxGuard&) = delete;
  ~TxGuard() { rollback(); }

  // Ends the transaction either way: a COMMIT that fails is rolled back (when the
  // database has not done so itself), so the connection is never left inside it.
  Status commit() {
    Connection* conn = std::exchange(conn_, nullptr);
    if (conn == nullptr) return ended_twice();
    auto committed = conn->commit();
    if (!committed.ok()) conn->rollback();
    return committed;
  }

  // Rolls back now rather than at the end of the scope; nothing when already ended.
  void rollback() {
    if (Connection* conn = std::exchange(conn_, nullptr)) conn->rollback();
  }

  bool open() const { return conn_ != nullptr; }

 private:
  explicit TxGuard(Connection& conn) : conn_(&conn) {}

  static Error ended_twice() { return Error::internal("commit of a transaction already ended"); }

  Connection* conn_;  // null once ended
};

}  // namespace licensed
