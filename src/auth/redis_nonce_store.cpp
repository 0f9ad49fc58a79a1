#include "auth/redis_nonce_store.h"

#include <algorithm>

namespace licensed {

RedisNonceStore::RedisNonceStore(RedisClient& redis, std::string key_prefix, const Clock& clock)
    : redis_(redis),
      prefix_(std::move(key_prefix)),
      outage_("nonce checks", "refused with 503 (fail closed)", clock) {}

NonceVerdict RedisNonceStore::check_and_insert(std::string_view key_id, std::string_view nonce,
                                               UnixMillis now, UnixMillis expires_at) {
  std::string key;
  key.reserve(prefix_.size() + 6 + key_id.size() + 1 + nonce.size());
  key.append(prefix_).append("nonce:").append(key_id).append(":").append(nonce);
  const std::string ttl_ms = std::to_string(std::max<int64_t>(1, expires_at - now));
  auto reply = redis_.command({"SET", key, "1", "NX", "PX", ttl_ms});
  if (!reply.ok()) {
    outage_.failed(reply.error().message);
    return NonceVerdict::kUnavailable;
  }
  const redisReply* r = reply.value().get();
  if (r->type == REDIS_REPLY_STATUS) {  // +OK: the key was not there
    outage_.succeeded();
    return NonceVerdict::kFresh;
  }
  if (r->type == REDIS_REPLY_NIL) {  // NX refused: seen before and not expired
    outage_.succeeded();
    return NonceVerdict::kReused;
  }
  // An error reply (OOM under maxmemory noeviction, a read-only replica): the nonce
  // was not remembered, so it must not be accepted.
  outage_.failed(r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len) : "unexpected reply");
  return NonceVerdict::kUnavailable;
}

}  // namespace licensed
