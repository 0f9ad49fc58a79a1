// `--store postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS]`: libpq's own URL, plus
// three parameters of licensed's, taken out before the URL reaches libpq:
//   pool_size=N             connections (and store threads) at most (default: 8, or twice
//                           the cores, at least 2, for a PostgreSQL on this machine)
//   lock_timeout_ms=N       how long a write waits for a license row lock (default 5000)
//   statement_timeout_ms=N  how long any statement may run (default 30000)
// Every other parameter (sslmode, connect_timeout, ...) is libpq's.
#pragma once

#include <string>

#include "core/result.h"
#include "store/postgres/pg_store.h"

namespace licensed {

bool is_postgres_url(const std::string& url);
// The pool when neither the URL nor --store-pool-size sets one. A PostgreSQL on this
// machine (loopback, localhost or a Unix socket) shares its cores with licensed: more
// connections than it has cores to run them only add switching, so twice the cores (2 here:
// 4, measured faster than 8 for activate-new, docs/benchmarks.md). A PostgreSQL elsewhere pays
// a network round trip per statement batch and wants more in flight: 8.
inline constexpr size_t kRemotePoolSize = 8;
size_t default_pool_size(const std::string& url, unsigned cores);

Result<PgStoreOptions> parse_postgres_url(const std::string& url);

}  // namespace licensed
