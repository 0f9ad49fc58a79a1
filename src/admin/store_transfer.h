// `licensed admin export` and `import`: a deployment moved between stores (SQLite to
// PostgreSQL and back) without losing a license, an activation or an audit record.
//
// The format is JSON lines: a header {"licensedExport":1}, then one line per row,
// {"table":"licenses","row":{"id":1,"license_key":"...",...}}, every table of
// dump_tables() in its order (parents first), each in key order, with the rows' own ids
// and Unix-millisecond times. It holds the server's response private key: the CLI writes
// it to a new file of mode 0600.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "store/store.h"

namespace licensed {

// Every row, read in one transaction (one consistent snapshot).
Result<std::string> export_store(Store& store);

// Writes every row of `text` in one transaction, into a store that must be empty (a
// store with any row is refused, nothing written). Returns the rows written.
Result<int64_t> import_store(Store& store, std::string_view text);

}  // namespace licensed
