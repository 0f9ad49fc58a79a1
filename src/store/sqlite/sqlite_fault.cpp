#include "store/sqlite/sqlite_fault.h"

#include <array>
#include <cstring>

#include "core/log_throttle.h"
#include "store/store_fault.h"

namespace licensed {
namespace {

LogThrottle& throttle_for(SqliteFault fault) {
  static std::array<LogThrottle, static_cast<size_t>(SqliteFault::kOther) + 1> throttles;
  return throttles[static_cast<size_t>(fault)];
}

}  // namespace

SqliteFault classify_sqlite_failure(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return SqliteFault::kLocked;
    case SQLITE_FULL:
      return SqliteFault::kDiskFull;
    case SQLITE_READONLY:
      return SqliteFault::kReadOnly;
    case SQLITE_IOERR:
      return SqliteFault::kIoError;
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return SqliteFault::kCannotOpen;
    case SQLITE_NOMEM:
      return SqliteFault::kOutOfMemory;
    case SQLITE_PROTOCOL:
    case SQLITE_NOLFS:
      return SqliteFault::kLockProtocol;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
      return SqliteFault::kCorrupt;
    default:
      return SqliteFault::kOther;
  }
}

std::string_view fault_name(SqliteFault fault) {
  switch (fault) {
    case SqliteFault::kLocked:
      return "locked";
    case SqliteFault::kDiskFull:
      return "disk full";
    case SqliteFault::kReadOnly:
      return "read-only";
    case SqliteFault::kIoError:
      return "I/O error";
    case SqliteFault::kCannotOpen:
      return "cannot open";
    case SqliteFault::kOutOfMemory:
      return "out of memory";
    case SqliteFault::kLockProtocol:
      return "file locking failed";
    case SqliteFault::kCorrupt:
      return "corrupt or not a database";
    case SqliteFault::kOther:
      return "error";
  }
  return "error";
}

bool is_transient(SqliteFault fault) {
  return fault != SqliteFault::kCorrupt && fault != SqliteFault::kOther;
}

std::string sqlite_error_text(sqlite3* db, int rc) {
  // sqlite3_errmsg describes the connection's last failure, which is `rc` when the
  // caller asks right away; without a connection only the code's text is known.
  std::string text = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  text += " (sqlite code " + std::to_string(rc);
  const int os_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
  if (os_errno != 0) text += std::string("; ") + std::strerror(os_errno);
  text += ")";
  return text;
}

Error sqlite_failure(sqlite3* db, int rc, std::string_view what) {
  const SqliteFault fault = classify_sqlite_failure(rc);
  const bool transient = is_transient(fault);
  std::string detail = std::string(fault_name(fault)) + ": " + std::string(what) +
                       " failed: " + sqlite_error_text(db, rc);
  return store_fault(throttle_for(fault), transient, std::move(detail));
}

}  // namespace licensed
