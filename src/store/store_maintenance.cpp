#include "store/store_maintenance.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "observability/redaction.h"
#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/pg_url.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_migrations.h"
#include "store/store.h"

namespace licensed {
namespace {

// Fixed names (never input), so their SQL is built from constants.
constexpr const char* kCountedTables[] = {
    "products", "plans",        "licenses",      "activations", "deactivations",    "audit_log",
    "trials",   "admin_tokens", "response_keys", "storefronts", "remembered_nonces"};

// How long a backup waits for a lock another process holds before it gives up.
constexpr int kBusyTimeoutMs = 5000;

Error not_there(const std::string& url) {
  return Error::not_found("store", "the store " + redact_url_credentials(url) +
                                       " does not exist (`licensed init` creates one)");
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

Result<int64_t> sqlite_count(SqliteConnection& conn, const std::string& sql) {
  ASSIGN_OR_RETURN(auto stmt, conn.prepare(sql.c_str()));
  const int rc = stmt->step();
  if (rc != SQLITE_ROW) return stmt->failure(rc, "count rows");
  return stmt->int64(0);
}

// Every row of a PRAGMA that reports problems, each as one line; "ok" rows are none.
Status sqlite_pragma_problems(SqliteConnection& conn, const char* pragma, std::string_view label,
                              std::vector<std::string>& problems) {
  ASSIGN_OR_RETURN(auto stmt, conn.prepare(pragma));
  for (int rc = stmt->step(); rc != SQLITE_DONE; rc = stmt->step()) {
    if (rc != SQLITE_ROW) return stmt->failure(rc, label);
    std::string line(label);
    for (int col = 0; col < stmt->column_count(); ++col) {
      line += " ";
      line += stmt->is_null(col) ? std::string("-") : stmt->text(col);
    }
    if (line != std::string(label) + " ok") problems.push_back(line);
  }
  return Ok{};
}

Result<StoreCheck> check_sqlite(const std::string& url, const std::string& path) {
  if (path.empty() || path == ":memory:" || !file_exists(path)) return not_there(url);
  ASSIGN_OR_RETURN(auto conn, SqliteConnection::open(path, true, false));
  StoreCheck check;
  ASSIGN_OR_RETURN(check.schema, sqlite_schema_state(*conn));
  for (const char* table : kCountedTables) {
    ASSIGN_OR_RETURN(const int64_t present,
                     sqlite_count(*conn, std::string("SELECT COUNT(*) FROM sqlite_master WHERE "
                                                     "type = 'table' AND name = '") +
                                             table + "'"));
    if (present == 0) continue;
    ASSIGN_OR_RETURN(const int64_t rows,
                     sqlite_count(*conn, std::string("SELECT COUNT(*) FROM ") + table));
    check.counts.push_back({table, rows});
  }
  RETURN_IF_ERROR(
      sqlite_pragma_problems(*conn, "PRAGMA integrity_check", "integrity", check.problems));
  RETURN_IF_ERROR(
      sqlite_pragma_problems(*conn, "PRAGMA foreign_key_check", "foreign key", check.problems));
  return check;
}

Result<StoreCheck> check_postgres(const std::string& url) {
  ASSIGN_OR_RETURN(PgStoreOptions options, parse_postgres_url(url));
  auto conn = PgConnection::open(options.conninfo, options.session);
  if (!conn.ok()) {
    Error e = std::move(conn.error());
    e.message = "cannot use PostgreSQL " + options.display_url + ": " + e.message;
    return e;
  }
  StoreCheck check;
  ASSIGN_OR_RETURN(check.schema, postgres_schema_state(*conn.value()));
  if (!check.schema.exists) return not_there(url);
  for (const char* table : kCountedTables) {
    ASSIGN_OR_RETURN(auto present, conn.value()->query("SELECT to_regclass($1) IS NOT NULL",
                                                       PgParams().add(std::string_view(table)),
                                                       "look for a table"));
    if (present.text(0, 0) != "t") continue;
    ASSIGN_OR_RETURN(auto rows, conn.value()->query(std::string("SELECT COUNT(*) FROM ") + table,
                                                    PgParams(), "count rows"));
    check.counts.push_back({table, rows.int64(0, 0)});
  }
  // A constraint added NOT VALID (or left so by a partial restore) was never checked
  // against the rows already there.
  ASSIGN_OR_RETURN(auto unvalidated,
                   conn.value()->query("SELECT conname FROM pg_constraint c JOIN pg_namespace n "
                                       "ON n.oid = c.connamespace WHERE n.nspname = "
                                       "current_schema() AND NOT c.convalidated",
                                       PgParams(), "check constraints"));
  for (int row = 0; row < unvalidated.rows(); ++row) {
    check.problems.push_back("constraint not validated: " + unvalidated.text(row, 0));
  }
  return check;
}

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using SqliteHandle = std::unique_ptr<sqlite3, SqliteCloser>;

Result<SqliteHandle> open_raw(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  SqliteHandle handle(db);
  if (rc != SQLITE_OK) {
    return Error::internal("cannot open " + path + ": " +
                           (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return handle;
}

// One sqlite3_backup_step(-1): every page copied inside one read transaction of the
// source, so the copy is the snapshot of one moment even while the server writes (WAL
// lets it write meanwhile). A lock held elsewhere is waited for, then retried.
Status copy_pages(sqlite3* source, sqlite3* target) {
  sqlite3_backup* backup = sqlite3_backup_init(target, "main", source, "main");
  if (backup == nullptr) return Error::internal(std::string("backup: ") + sqlite3_errmsg(target));
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  int rc = sqlite3_backup_step(backup, -1);
  while ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    rc = sqlite3_backup_step(backup, -1);
  }
  const int finished = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) return Error::unavailable(std::string("backup: ") + sqlite3_errstr(rc));
  if (finished != SQLITE_OK) {
    return Error::internal(std::string("backup: ") + sqlite3_errmsg(target));
  }
  return Ok{};
}

Status backup_sqlite(const std::string& url, const std::string& path, const std::string& out) {
  if (path.empty() || path == ":memory:" || !file_exists(path)) return not_there(url);
  // Claimed first, 0600: the copy holds the response key and every license.
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return Error::conflict("out", out + " exists already; it is not replaced");
    return Error::invalid_argument("out", "cannot create " + out + ": " + std::strerror(errno));
  }
  ::close(fd);
  auto copied = [&]() -> Status {
    ASSIGN_OR_RETURN(auto source, open_raw(path, SQLITE_OPEN_READONLY));
    ASSIGN_OR_RETURN(auto target, open_raw(out, SQLITE_OPEN_READWRITE));
    RETURN_IF_ERROR(copy_pages(source.get(), target.get()));
    // The copy stands alone: no -wal file beside it to carry along.
    char* message = nullptr;
    if (sqlite3_exec(target.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, &message) !=
        SQLITE_OK) {
      const std::string why = message != nullptr ? message : "unknown";
      sqlite3_free(message);
      return Error::internal("backup: " + why);
    }
    return Ok{};
  }();
  if (!copied.ok()) ::unlink(out.c_str());
  return copied;
}

}  // namespace

Result<StoreCheck> check_store(const std::string& url) {
  if (const auto path = sqlite_path_of(url)) return check_sqlite(url, *path);
  if (is_postgres_url(url)) return check_postgres(url);
  return Error::invalid_argument("store", "unsupported store URL '" + redact_url_credentials(url) +
                                              "': use sqlite:PATH or postgresql://...");
}

Status backup_store(const std::string& url, const std::string& out) {
  if (const auto path = sqlite_path_of(url)) return backup_sqlite(url, *path, out);
  return Error::invalid_argument(
      "store",
      "backup copies a SQLite store; back up PostgreSQL with pg_dump or point-in-time "
      "recovery (docs/operations.md)");
}

}  // namespace licensed
