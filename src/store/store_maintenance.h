// What an operator checks and copies a store with (docs/operations.md): `licensed admin
// verify` (row counts and an integrity check, after a restore), `licensed admin backup`
// (a consistent online copy of a SQLite store while it serves, through SQLite's backup
// API). Neither creates nor migrates the store it reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/migration.h"

namespace licensed {

struct TableCount {
  std::string table;
  int64_t rows = 0;
};

struct StoreCheck {
  SchemaState schema;
  std::vector<TableCount> counts;     // the tables that hold what a restore must bring back
  std::vector<std::string> problems;  // empty: the store is sound
};

// Counts the rows of the store's main tables and checks it: SQLite's integrity_check and
// foreign_key_check; on PostgreSQL (which enforces its constraints as it writes) that
// every constraint is validated. A schema newer than this binary is a problem; pending
// migrations are not (an older store restored is still sound). A store that does not
// exist is refused (kNotFound).
Result<StoreCheck> check_store(const std::string& url);

// Copies a SQLite store (`sqlite:PATH`) to `out`, a new file (0600, never replacing one),
// as one consistent snapshot taken while other processes may write: every commit that
// finished before the copy began is in it. Any other store is refused: PostgreSQL has
// pg_dump and point-in-time recovery (docs/operations.md).
Status backup_store(const std::string& url, const std::string& out);

}  // namespace licensed
