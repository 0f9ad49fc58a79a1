#include "support/store_sql.h"

#include <sqlite3.h>

#include <memory>
#include <stdexcept>
#include <string_view>

#include "support/pg_database.h"

namespace bb {
namespace {

constexpr std::string_view kSqlitePrefix = "sqlite:";

std::string SqliteSql(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> conn(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) throw std::runtime_error("cannot open " + path);
  // The server may hold the write lock for a moment.
  sqlite3_busy_timeout(raw, 10000);
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(raw, sql.c_str(), -1, &raw_stmt, nullptr) != SQLITE_OK) {
    throw std::runtime_error("prepare " + sql + ": " + sqlite3_errmsg(raw));
  }
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw_stmt, sqlite3_finalize);
  const int step = sqlite3_step(raw_stmt);
  if (step == SQLITE_DONE) return "";
  if (step != SQLITE_ROW) throw std::runtime_error("run " + sql + ": " + sqlite3_errmsg(raw));
  const unsigned char* text = sqlite3_column_text(raw_stmt, 0);
  return text == nullptr ? "" : reinterpret_cast<const char*>(text);
}

}  // namespace

std::string StoreSql(const std::string& store, const std::string& sql) {
  if (std::string_view(store).starts_with(kSqlitePrefix)) {
    return SqliteSql(store.substr(kSqlitePrefix.size()), sql);
  }
  PgSession session(store);
  return session.Exec(sql);
}

}  // namespace bb
