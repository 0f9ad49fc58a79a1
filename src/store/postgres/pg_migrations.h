// The PostgreSQL schema, built by numbered, append-only migrations that mirror SQLite's
// (src/store/sqlite/sqlite_migrations.cpp): same tables, same columns, times as BIGINT
// Unix milliseconds, so the two stores agree row by row (and export/import moves rows
// between them unchanged).
#pragma once

#include <cstddef>
#include <string>

#include "core/result.h"
#include "store/migration.h"
#include "store/postgres/pg_connection.h"

namespace licensed {

// Applies the migrations this database lacks, under an advisory lock so that instances
// starting together on one database apply each migration once.
// `opening` says whether a database without the schema may be given one, and whether an
// existing schema may be migrated; `display_url` names the store in a refusal.
Status migrate_postgres(PgConnection& conn, const StoreOpening& opening = {},
                        const std::string& display_url = "");

// Where the database's schema stands, read without writing anything.
Result<SchemaState> postgres_schema_state(PgConnection& conn);
// How many migrations the list holds (their versions need not be consecutive: numbers are
// taken by branches merged in any order), for tests that count what a database recorded.
size_t postgres_migration_count();

}  // namespace licensed
