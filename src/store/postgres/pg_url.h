// `--store postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS]`: libpq's own URL, plus
// three parameters of licensed's, taken out before the URL reaches libpq:
//   pool_size=N             connections (and store threads) at most (default 8)
//   lock_timeout_ms=N       how long a write waits for a license row lock (default 5000)
//   statement_timeout_ms=N  how long any statement may run (default 30000)
// Every other parameter (sslmode, connect_timeout, ...) is libpq's.
#pragma once

#include <string>

#include "core/result.h"
#include "store/postgres/pg_store.h"

namespace licensed {

bool is_postgres_url(const std::string& url);
Result<PgStoreOptions> parse_postgres_url(const std::string& url);

}  // namespace licensed
