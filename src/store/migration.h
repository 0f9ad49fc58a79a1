// What both stores' numbered, append-only migrations share: the shape of one migration,
// and the refusal of a database a newer licensed has migrated.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace licensed {

struct Migration {
  int version;
  const char* sql;
};

// Fails with a message for the operator when the database's schema `version` is newer
// than `newest`, the last this binary knows.
Status refuse_newer_schema(int64_t version, int newest);

// Where a database's schema stands against this binary's migrations
// (`licensed admin schema`, and the checks below).
struct SchemaState {
  bool exists = false;       // the store is there: a SQLite file, or PostgreSQL's schema_migrations
  int64_t version = 0;       // the newest migration applied (0: none)
  int newest = 0;            // the newest this binary knows
  std::vector<int> pending;  // versions this binary would apply, oldest first
};

// The state of a database at `version` against `migrations` (ascending versions).
SchemaState schema_state_of(bool exists, int64_t version, std::span<const Migration> migrations);

// How a command opens a store (docs/operations.md, "Creating a store"). The library
// default opens whatever it is given, as tests and tools expect; the command line says
// what it wants: `serve` and `admin` create only with --create (or `licensed init`), and
// `admin` migrates only with --migrate, since an older server may still use the store.
struct StoreOpening {
  bool create = true;   // make the store when it does not exist
  bool migrate = true;  // apply pending migrations to an existing schema
};

// Refuses an existing schema with pending migrations when `opening` may not migrate,
// with a message for the operator naming `store` and the way on.
Status refuse_unmigrated(const SchemaState& state, const StoreOpening& opening,
                         const std::string& store);

}  // namespace licensed
