// Makes a license's leases end earlier than they would, behind the server's back, so
// black-box tests reach an ended lease (docs/protocol.md §27) without sleeping through a
// leaseTtl of at least 60 s.
#pragma once

#include <chrono>
#include <string>

namespace bb {

// Moves expires_at of every lease of `license_key` back by `by`, in the store named by
// `store` (the fixture's store(): "sqlite:PATH" or a PostgreSQL URL). Safe while the server
// runs: either store serialises the update with the server's own writes. Throws
// std::runtime_error when the license holds no lease.
void AgeLeases(const std::string& store, const std::string& license_key,
               std::chrono::milliseconds by);

}  // namespace bb
