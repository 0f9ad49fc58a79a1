// Makes a license's activations look older than they are, behind the server's back, so
// black-box tests reach stale-machine reclaim (docs/protocol.md §10) without moving the
// server's clock or sleeping through a TTL.
#pragma once

#include <chrono>
#include <string>

namespace bb {

// Moves last_seen_at of every activation of `license_key` back by `by`, in the store
// named by `store` (the fixture's store(): "sqlite:PATH" or a PostgreSQL URL). Safe while
// the server runs: either store serialises the update with the server's own writes.
// Throws std::runtime_error when the license has no activation to age.
void AgeActivations(const std::string& store, const std::string& license_key,
                    std::chrono::milliseconds by);

}  // namespace bb
