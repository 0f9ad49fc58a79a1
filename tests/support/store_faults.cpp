#include "support/store_faults.h"

#include <sqlite3.h>

#include <memory>
#include <stdexcept>

namespace bb {

void CorruptLicenseStatus(const std::filesystem::path& db, const std::string& license_key) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> conn(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) throw std::runtime_error("cannot open " + db.string());
  sqlite3_busy_timeout(raw, 10000);
  auto fail = [&](const char* what) {
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(raw));
  };
  if (sqlite3_exec(raw, "PRAGMA ignore_check_constraints = ON", nullptr, nullptr, nullptr) !=
      SQLITE_OK) {
    fail("pragma");
  }
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(raw, "UPDATE licenses SET status = 'CORRUPTED' WHERE license_key = ?", -1,
                         &raw_stmt, nullptr) != SQLITE_OK) {
    fail("prepare");
  }
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw_stmt, sqlite3_finalize);
  sqlite3_bind_text(raw_stmt, 1, license_key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(raw_stmt) != SQLITE_DONE) fail("update");
  if (sqlite3_changes(raw) != 1) throw std::runtime_error("no license " + license_key);
}

}  // namespace bb
