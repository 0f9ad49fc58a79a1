#include "store/store.h"

#include "observability/redaction.h"
#include "store/postgres/pg_store.h"
#include "store/postgres/pg_url.h"
#include "store/sqlite/sqlite_store.h"

namespace licensed {

std::optional<std::string> sqlite_path_of(const std::string& url) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (url.rfind(kSqlite, 0) != 0) return std::nullopt;
  return url.substr(kSqlite.size());
}

Result<std::unique_ptr<Store>> open_store(const std::string& url, const StoreLimits& limits) {
  if (auto sqlite_path = sqlite_path_of(url)) {
    std::string path = std::move(*sqlite_path);
    if (path.empty())
      return Error::invalid_argument("store", "sqlite: needs a path, as in sqlite:./licensed.db");
    SqliteStoreOptions options;
    options.path = std::move(path);
    options.max_queued_jobs = limits.max_queued_jobs;
    ASSIGN_OR_RETURN(auto store, SqliteStore::open(std::move(options)));
    return std::unique_ptr<Store>(std::move(store));
  }
  if (is_postgres_url(url)) {
    ASSIGN_OR_RETURN(PgStoreOptions options, parse_postgres_url(url));
    options.max_queued_jobs = limits.max_queued_jobs;
    if (limits.pool_size > 0) options.pool_size = limits.pool_size;
    ASSIGN_OR_RETURN(auto store, PgStore::open(std::move(options)));
    return std::unique_ptr<Store>(std::move(store));
  }
  return Error::invalid_argument("store", "unsupported store URL '" + redact_url_credentials(url) +
                                              "': use sqlite:PATH or postgresql://...");
}

}  // namespace licensed
