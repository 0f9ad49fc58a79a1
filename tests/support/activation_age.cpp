#include "support/activation_age.h"

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "support/pg_database.h"

namespace bb {
namespace {

constexpr std::string_view kSqlitePrefix = "sqlite:";

void AgeInSqlite(const std::string& path, const std::string& license_key, int64_t by_ms) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> conn(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) throw std::runtime_error("cannot open " + path);
  sqlite3_busy_timeout(raw, 10000);
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(raw,
                         "UPDATE activations SET last_seen_at = last_seen_at - ?"
                         " WHERE license_id = (SELECT id FROM licenses WHERE license_key = ?)",
                         -1, &raw_stmt, nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("prepare: ") + sqlite3_errmsg(raw));
  }
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw_stmt, sqlite3_finalize);
  sqlite3_bind_int64(raw_stmt, 1, by_ms);
  sqlite3_bind_text(raw_stmt, 2, license_key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(raw_stmt) != SQLITE_DONE) {
    throw std::runtime_error(std::string("update: ") + sqlite3_errmsg(raw));
  }
  if (sqlite3_changes(raw) == 0) throw std::runtime_error("no activation of " + license_key);
}

void AgeInPostgres(const std::string& url, const std::string& license_key, int64_t by_ms) {
  // PgSession runs plain SQL text: the key goes in only if it is a UUID the test made.
  const bool uuid_like =
      !license_key.empty() && std::all_of(license_key.begin(), license_key.end(), [](char c) {
        return c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
               (c >= 'A' && c <= 'F');
      });
  if (!uuid_like) throw std::runtime_error("not a license key: " + license_key);
  PgSession session(url);
  const std::string changed = session.Exec(
      "WITH aged AS (UPDATE activations SET last_seen_at = last_seen_at - " +
      std::to_string(by_ms) + " WHERE license_id = (SELECT id FROM licenses WHERE license_key = '" +
      license_key + "') RETURNING 1) SELECT count(*) FROM aged");
  if (changed == "0") throw std::runtime_error("no activation of " + license_key);
}

}  // namespace

void AgeActivations(const std::string& store, const std::string& license_key,
                    std::chrono::milliseconds by) {
  if (std::string_view(store).starts_with(kSqlitePrefix)) {
    AgeInSqlite(store.substr(kSqlitePrefix.size()), license_key, by.count());
  } else {
    AgeInPostgres(store, license_key, by.count());
  }
}

}  // namespace bb
