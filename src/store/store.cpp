#include "store/store.h"

#include <sys/stat.h>

#include "observability/redaction.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/pg_store.h"
#include "store/postgres/pg_url.h"
#include "store/sqlite/sqlite_migrations.h"
#include "store/sqlite/sqlite_store.h"

namespace licensed {

std::string store_display_name(const std::string& url) {
  return redact_url_credentials(url);
}

std::optional<std::string> sqlite_path_of(const std::string& url) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (url.rfind(kSqlite, 0) != 0) return std::nullopt;
  return url.substr(kSqlite.size());
}

Result<std::unique_ptr<Store>> open_store(const std::string& url, const StoreLimits& limits,
                                          const StoreOpening& opening) {
  if (auto sqlite_path = sqlite_path_of(url)) {
    std::string path = std::move(*sqlite_path);
    if (path.empty())
      return Error::invalid_argument("store", "sqlite: needs a path, as in sqlite:./licensed.db");
    SqliteStoreOptions options;
    options.path = std::move(path);
    options.max_queued_jobs = limits.max_queued_jobs;
    options.opening = opening;
    ASSIGN_OR_RETURN(auto store, SqliteStore::open(std::move(options)));
    return std::unique_ptr<Store>(std::move(store));
  }
  if (is_postgres_url(url)) {
    ASSIGN_OR_RETURN(PgStoreOptions options, parse_postgres_url(url));
    options.max_queued_jobs = limits.max_queued_jobs;
    if (limits.pool_size > 0) options.pool_size = limits.pool_size;
    options.opening = opening;
    ASSIGN_OR_RETURN(auto store, PgStore::open(std::move(options)));
    return std::unique_ptr<Store>(std::move(store));
  }
  return Error::invalid_argument("store", "unsupported store URL '" + redact_url_credentials(url) +
                                              "': use sqlite:PATH or postgresql://...");
}

Result<SchemaState> read_schema_state(const std::string& url) {
  if (auto sqlite_path = sqlite_path_of(url)) {
    struct stat st {};
    if (sqlite_path->empty() || *sqlite_path == ":memory:" ||
        ::stat(sqlite_path->c_str(), &st) != 0) {
      return schema_state_of(false, 0, sqlite_migrations());
    }
    auto conn = SqliteConnection::open(*sqlite_path, true, false);
    if (!conn.ok()) return conn.error();
    return sqlite_schema_state(*conn.value());
  }
  if (is_postgres_url(url)) {
    ASSIGN_OR_RETURN(PgStoreOptions options, parse_postgres_url(url));
    auto conn = PgConnection::open(options.conninfo, options.session);
    if (!conn.ok()) {
      Error e = std::move(conn.error());
      e.message = "cannot use PostgreSQL " + options.display_url + ": " + e.message;
      return e;
    }
    return postgres_schema_state(*conn.value());
  }
  return Error::invalid_argument("store", "unsupported store URL '" + redact_url_credentials(url) +
                                              "': use sqlite:PATH or postgresql://...");
}

}  // namespace licensed
