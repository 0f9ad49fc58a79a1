// Nonces shared by every instance of a deployment, in Redis: one key per (key id,
// nonce), set with SET NX PX, so "seen before?" and "remember it" are one atomic round
// trip and Redis forgets the key when it expires. When Redis does not answer, the
// verdict is kUnavailable and the pipeline answers 503 1708 (fail closed).
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
  // Keys are `<prefix>nonce:<key id>:<nonce>`; a key id has no ':' (spec section 2), so
  // the pair is unambiguous.
  RedisNonceStore(RedisClient& redis, std::string key_prefix, const Clock& clock);

  NonceVerdict check_and_insert(std::string_view key_id, std::string_view nonce, UnixMillis now,
                                UnixMillis expires_at) override;

  // Checks refused because Redis did not answer.
  uint64_t unavailable_count() const { return outage_.failures(); }

 private:
  RedisClient& redis_;
  const std::string prefix_;
  RedisOutageLog outage_;
};

}  // namespace licensed
