// The response keys `serve` signs with when none of an algorithm is configured
// (docs/protocol.md §14): one Ed25519 and one ES256 key, each made on the first start
// that needs it and kept in the store, so the embedded default signs too and their kids
// and public keys, which plugins pin, survive restarts.
#pragma once

#include "auth/response_key.h"
#include "core/clock.h"
#include "store/store_tx.h"

namespace licensed {

// The oldest stored key of `algorithm`, or nullopt when none was made yet; fails on a
// stored text that is not an Ed25519 or P-256 key.
Result<std::optional<ResponseKey>> find_stored_response_key(StoreTx& tx,
                                                            ResponseAlgorithm algorithm);
// The stored key of `algorithm`, made and stored first when there is none. Run it in a
// write transaction, so two servers starting on one store agree on a single key.
Result<ResponseKey> stored_response_key(StoreTx& tx, ResponseAlgorithm algorithm, UnixMillis now);

}  // namespace licensed
