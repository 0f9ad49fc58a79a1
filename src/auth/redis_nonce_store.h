// Nonces shared by every instance of a deployment, in Redis: one key per (key id,
// nonce), set with SET NX PX by a small script, so "seen before?" and "remember it" are
// one atomic round trip and Redis forgets the key when it expires. The script also
// notices a Redis that lost its data and then refuses requests dated before (kStale).
// When Redis does not answer, the verdict is kUnavailable and the pipeline answers 503
// 1708 (fail closed).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "auth/nonce_store.h"
#include "redis/redis_client.h"
#include "redis/redis_outage_log.h"

namespace licensed {

class RedisNonceStore final : public NonceStore {
 public:
  // Keys are `<prefix>nonce:<key id>:<nonce>`; a key id has no ':' (docs/protocol.md §3.1), so
  // the pair is unambiguous.
  RedisNonceStore(RedisClient& redis, std::string key_prefix, const Clock& clock);

  // Marks the time since which this Redis remembers nonces, unless an earlier start
  // did. Called at start-up, before any request: requests are never dated before it
  // then, and a missing mark later means Redis lost its data.
  Status start_remembering();

  // Checks refused because Redis did not answer.
  uint64_t unavailable_count() const { return outage_.failures(); }

  // On one of the client's workers, which calls `done`.
  void check_and_insert_async(std::string_view key_id, std::string_view nonce, UnixMillis now,
                              UnixMillis expires_at, int64_t dated_seconds,
                              Completion<NonceVerdict> done) override;

 private:
  NonceVerdict check_and_insert_impl(std::string_view key_id, std::string_view nonce,
                                     UnixMillis now, UnixMillis expires_at,
                                     int64_t dated_seconds) override;

  RedisClient& redis_;
  const std::string prefix_;
  const std::string marker_;  // since when this Redis remembers nonces
  RedisOutageLog outage_;
};

}  // namespace licensed
