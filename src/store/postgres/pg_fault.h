// What went wrong in PostgreSQL, in the words an operator and a caller need: faults that
// pass (a lock held too long, a lost connection, a server restarting or overloaded) are
// kUnavailable; the rest (bad SQL, a broken constraint: a bug) are kInternal.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <string_view>

#include "core/status.h"

namespace licensed {

enum class PgFault {
  kLockTimeout,  // 55P03: a row lock (the license row) was held past lock_timeout
  kTimeout,      // 57014: statement_timeout (or a cancel)
  kConflict,     // 40001, 40P01: serialization failure, deadlock
  kConnection,   // no connection, or class 08, 57P01-57P03: the server went away
  kUnavailable,  // class 53 (out of connections, disk, memory), 25006 read-only server
  kOther,        // a bug: bad SQL, misuse, constraint
};

// From a SQLSTATE (empty when libpq itself failed: no server answer at all).
PgFault classify_pg_failure(std::string_view sqlstate, bool connection_ok);
std::string_view fault_name(PgFault fault);
bool is_transient(PgFault fault);

// Maps a failed statement (or a failed connection, res == nullptr) to the internal status
// and logs the fault by name with PostgreSQL's message, never the bound values. Repeats
// are throttled as for SQLite.
Error pg_failure(PGconn* conn, const PGresult* res, std::string_view what);

}  // namespace licensed
