// The response key `serve` signs with when none is configured (docs/protocol.md §14): made on
// the first start and kept in the store, so the embedded default signs too and its kid
// and public key, which plugins pin, survive restarts.
#pragma once

#include "auth/response_key.h"
#include "core/clock.h"
#include "store/store_tx.h"

namespace licensed {

// The stored key, or nullopt when none was made yet; fails on a stored text that is
// not an Ed25519 key.
Result<std::optional<ResponseKey>> find_stored_response_key(StoreTx& tx);
// The stored key, made and stored first when there is none. Run it in a write
// transaction, so two servers starting on one store agree on a single key.
Result<ResponseKey> stored_response_key(StoreTx& tx, UnixMillis now);

}  // namespace licensed
