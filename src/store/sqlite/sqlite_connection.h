// One SQLite connection with its prepared statements, kept for the connection's life
// (prepared once, reset after each use).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/result.h"
#include "store/sqlite/sqlite_fault.h"
#include "store/tx_guard.h"

namespace licensed {

// A borrowed prepared statement; clears its bindings and resets on destruction.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const std::optional<int64_t>& value);
  Statement& bind(int index, const std::optional<std::string>& value);
  Statement& bind_null(int index);

  // SQLITE_ROW, SQLITE_DONE, or an error code (see failure()).
  int step();
  // Steps to completion of a statement that returns no rows.
  Status run(std::string_view what);
  Error failure(int rc, std::string_view what) const { return sqlite_failure(db_, rc, what); }

  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int column_count() const { return sqlite3_column_count(stmt_); }
  int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::string text(int col) const;
  std::optional<int64_t> optional_int64(int col) const;
  std::optional<std::string> optional_text(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class SqliteConnection {
 public:
  // Opens (and creates when `create`) the database. read_only connections refuse writes.
  // A failure's message names the path and SQLite's and the OS's reason, for the
  // operator; it never reaches a client.
  static Result<std::unique_ptr<SqliteConnection>> open(const std::string& path, bool read_only,
                                                        bool create);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // Prepares `sql` the first time, then hands out the same statement.
  Result<std::unique_ptr<Statement>> prepare(const char* sql);
  // Runs statements without bound values; `what` names them in the log (default: the
  // SQL itself, which holds no values). A single statement is prepared once and kept,
  // like prepare()'s: BEGIN, COMMIT, SAVEPOINT and RELEASE run for every store job, and
  // sqlite3_exec() would parse them again each time (a fifth of a status read's CPU).
  Status exec(const char* sql, std::string_view what = {});
  bool in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }
  // What TxGuard (below) runs; code outside this file holds a guard instead.
  Status begin(const char* sql) { return exec(sql); }
  Status commit() { return exec("COMMIT"); }
  // Nothing outside a transaction: SQLite rolls one back itself on some failures (a full
  // disk, an I/O error), and a ROLLBACK then would only fail.
  void rollback() {
    if (in_transaction()) (void)exec("ROLLBACK", "roll back");
  }
  // SQLite opens a file it may not write read-only, without failing: writes then fail
  // with SQLITE_READONLY until the connection is opened again.
  bool read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }
  // The extended code of the last call, meaningful right after one failed.
  int last_error_code() const { return sqlite3_extended_errcode(db_); }
  sqlite3* handle() { return db_; }

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  // The kept statement for `sql`, prepared the first time; nullptr when `sql` is not
  // exactly one statement or does not prepare.
  sqlite3_stmt* kept_statement(const char* sql);

  // Looked up by the SQL text without copying it into a std::string each time.
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*, SqlHash, std::equal_to<>> statements_;
};

// A transaction on one SQLite connection that rolls back unless committed.
using SqliteTxGuard = TxGuard<SqliteConnection>;

}  // namespace licensed
