// Seeds what a load run uses, through the same operations the server and the admin
// command line run (src/admin/admin_operations.h, src/core/operations.h), on the
// server's own store. The store may be in use by a running server: SQLite's WAL lets
// the server read on while this commits, as with the admin command line.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace licensed::bench {

// Creates the product `bench` when missing and `count` new ACTIVE licenses of it, each
// with cap `max`, in one transaction; returns their keys. Throws std::runtime_error
// with the store's reason.
std::vector<std::string> seed_licenses(const std::string& store_url, size_t count, int64_t max);

// A store as big as a vendor's (docs/benchmarks.md, "Status over millions of machines"):
// `activations` machines, `per_license` on each license (the last license may hold
// fewer), every license created by create_license() with cap `per_license` and every
// machine by the activate operation itself, so each has the audit records a real
// activation leaves. Licenses of product `bench`; a license's machines are activated
// together, `per_transaction` machines (rounded up to whole licenses) per transaction.
struct ActivationSeed {
  size_t activations = 0;
  size_t per_license = 10;
  size_t per_transaction = 100'000;
};
struct SeededActivations {
  size_t licenses = 0;
  size_t activations = 0;
};
// `progress`, when set, is called after each transaction with the totals so far.
// Throws std::runtime_error with the store's reason.
SeededActivations seed_activations(
    const std::string& store_url, const ActivationSeed& seed,
    const std::function<void(const SeededActivations&)>& progress = {});

}  // namespace licensed::bench
