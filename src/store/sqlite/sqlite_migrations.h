// Numbered schema migrations for the SQLite store. Applied in order, each in its own
// transaction, recorded in schema_migrations; never edited once released.
#pragma once

#include <span>

#include "core/result.h"
#include "store/migration.h"
#include "store/sqlite/sqlite_connection.h"

namespace licensed {

// Brings the database to the newest schema. Fails (and changes nothing more) when the
// file is not a database, is corrupt, or is newer than this binary.
Status migrate_sqlite(SqliteConnection& conn);

// Where the database's schema stands, read without writing anything (a read-only
// connection will do). `exists` is true: the file is there.
Result<SchemaState> sqlite_schema_state(SqliteConnection& conn);

// Every migration this binary knows, oldest first (tests build an older schema from its
// first steps).
std::span<const Migration> sqlite_migrations();

// The runner behind migrate_sqlite over a given list (ascending versions, not empty), so
// tests can give it a step that fails. Each migration runs in its own transaction.
Status apply_sqlite_migrations(SqliteConnection& conn, std::span<const Migration> migrations);

}  // namespace licensed
