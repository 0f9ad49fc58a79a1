// What went wrong in SQLite, in the words an operator and a caller need: the fault's
// name for the log (locked, disk full, read-only, ...) and the internal status
// (kUnavailable for faults that pass, kInternal for the rest).
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "core/status.h"

namespace licensed {

enum class SqliteFault {
  kLocked,        // another connection or process holds the write lock
  kDiskFull,      // no space left for the journal or the database
  kReadOnly,      // the file (or its -wal/-shm) cannot be written by this process
  kIoError,       // the OS refused a read or write
  kCannotOpen,    // the file (or its -wal/-shm) cannot be opened
  kOutOfMemory,   //
  kLockProtocol,  // the file locks misbehave (network file system)
  kCorrupt,       // not a database, or a damaged one
  kOther,         // a bug: bad SQL, misuse, constraint
};

SqliteFault classify_sqlite_failure(int rc);
// "locked", "disk full", "read-only", ...: the words the log line starts with.
std::string_view fault_name(SqliteFault fault);
// Faults that pass by themselves or by an operator's hand, without a new binary: the
// caller should retry (kUnavailable).
bool is_transient(SqliteFault fault);

// SQLite's message with the code and, when the OS said something, its errno text, as
// in "database is locked (sqlite code 5)" or "unable to open database file (sqlite code
// 14; Is a directory)". Never contains bound values.
std::string sqlite_error_text(sqlite3* db, int rc);

// Maps a SQLite failure to the internal status and logs the fault by name, never the
// bound values. A fault that repeats (every request while the disk is full) is logged
// at most every few seconds, with the count of the ones left out.
Error sqlite_failure(sqlite3* db, int rc, std::string_view what);

}  // namespace licensed
