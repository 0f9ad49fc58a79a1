// Numbered schema migrations for the SQLite store. Applied in order, each in its own
// transaction, recorded in schema_migrations; never edited once released.
#pragma once

#include "core/result.h"
#include "store/sqlite/sqlite_connection.h"

namespace licensed {

// Brings the database to the newest schema. Fails (and changes nothing more) when the
// file is not a database, is corrupt, or is newer than this binary.
Status migrate_sqlite(SqliteConnection& conn);

}  // namespace licensed
