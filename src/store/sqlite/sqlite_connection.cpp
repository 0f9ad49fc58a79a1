#include "store/sqlite/sqlite_connection.h"

namespace licensed {

Statement::~Statement() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Statement& Statement::bind(int index, const std::optional<int64_t>& value) {
  return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind(int index, const std::optional<std::string>& value) {
  return value ? bind(index, std::string_view(*value)) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

int Statement::step() {
  return sqlite3_step(stmt_);
}

Status Statement::run(std::string_view what) {
  const int rc = step();
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return Ok{};
  return failure(rc, what);
}

std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p), n);
}

std::optional<int64_t> Statement::optional_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}

std::optional<std::string> Statement::optional_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}

Result<std::unique_ptr<SqliteConnection>> SqliteConnection::open(const std::string& path,
                                                                 bool read_only, bool create) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  flags |= read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Error e = sqlite_failure(db, rc, "open");
    e.message = "cannot open: " + sqlite_error_text(db, rc);
    sqlite3_close_v2(db);
    return e;
  }
  std::unique_ptr<SqliteConnection> conn(new SqliteConnection(db));
  sqlite3_extended_result_codes(db, 1);
  // A writer waiting on another process (the admin CLI) waits this long before 1708.
  sqlite3_busy_timeout(db, 5000);
  return conn;
}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<Statement>> SqliteConnection::prepare(const char* sql) {
  auto it = statements_.find(std::string_view(sql));
  if (it == statements_.end()) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return sqlite_failure(db_, rc, "prepare");
    it = statements_.emplace(sql, stmt).first;
  }
  return std::make_unique<Statement>(db_, it->second);
}

sqlite3_stmt* SqliteConnection::kept_statement(const char* sql) {
  if (auto it = statements_.find(std::string_view(sql)); it != statements_.end()) return it->second;
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, &tail) != SQLITE_OK) {
    return nullptr;
  }
  while (tail != nullptr && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == ';'))
    ++tail;
  if (stmt == nullptr || (tail != nullptr && *tail != '\0')) {
    sqlite3_finalize(stmt);
    return nullptr;
  }
  statements_.emplace(sql, stmt);
  return stmt;
}

Status SqliteConnection::exec(const char* sql, std::string_view what) {
  if (sqlite3_stmt* stmt = kept_statement(sql)) {
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
    // The failure is read before the reset, which would keep it anyway.
    std::optional<Error> failure;
    if (rc != SQLITE_DONE)
      failure = sqlite_failure(db_, rc, what.empty() ? std::string_view(sql) : what);
    sqlite3_reset(stmt);
    if (failure) return std::move(*failure);
    return Ok{};
  }
  // Several statements (a migration script), or SQL that does not prepare: sqlite3_exec()
  // reports the same error a prepared statement would.
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) return sqlite_failure(db_, rc, what.empty() ? std::string_view(sql) : what);
  return Ok{};
}

}  // namespace licensed
