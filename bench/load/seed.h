// Seeds the licenses a load run uses, through the same admin operations `licensed
// admin product create` and `license create` run (src/admin/admin_operations.h), on
// the server's own store, in one transaction. The store may be in use by a running
// server: SQLite's WAL lets the server read on while this commits, as with the admin
// command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace licensed::bench {

// Creates the product `bench` when missing and `count` new ACTIVE licenses of it, each
// with cap `max`; returns their keys. Throws std::runtime_error with the store's reason.
std::vector<std::string> seed_licenses(const std::string& store_url, size_t count, int64_t max);

}  // namespace licensed::bench
