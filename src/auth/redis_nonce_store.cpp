#include "auth/redis_nonce_store.h"

#include <algorithm>
#include <array>

namespace licensed {
namespace {

// KEYS[1] the nonce, KEYS[2] the marker; ARGV[1] how long to remember it (ms), ARGV[2]
// the request's timestamp (s, 0: none). Returns 1 fresh, 0 reused, -1 stale.
//
// The marker holds the Redis time (s) since which this Redis remembers nonces. It has
// no expiry and every instance sets it at start-up (start_remembering), so when it is
// missing Redis has lost its data (restarted without persistence, FLUSHALL): nonces
// seen before may be forgotten, so requests dated before now are refused as stale, the
// restart rule of docs/protocol.md §3.4 applied to Redis. Redis 7 replicates a script's
// effects, so reading TIME here is allowed.
const RedisScript kNonceScript(R"lua(
local since = tonumber(redis.call('GET', KEYS[2]))
if not since then
  since = tonumber(redis.call('TIME')[1])
  redis.call('SET', KEYS[2], since)
end
local dated = tonumber(ARGV[2])
if dated > 0 and dated < since then return -1 end
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 1 end
return 0
)lua");

// KEYS[1] the marker: set to Redis' time unless it is there already.
const RedisScript kMarkScript(R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], tonumber(redis.call('TIME')[1]))
end
return 1
)lua");

}  // namespace

RedisNonceStore::RedisNonceStore(RedisClient& redis, std::string key_prefix, const Clock& clock)
    : redis_(redis),
      prefix_(std::move(key_prefix)),
      marker_(prefix_ + "nonces-remembered-since"),
      outage_("nonce checks", "refused with 503 (fail closed)", clock) {}

Status RedisNonceStore::start_remembering() {
  const std::array<std::string_view, 1> keys{marker_};
  ASSIGN_OR_RETURN(RedisReply r, redis_.eval(kMarkScript, keys, {}));
  if (r->type == REDIS_REPLY_ERROR) return Error::unavailable("redis: " + std::string(r->str));
  return Ok{};
}

void RedisNonceStore::check_and_insert_async(std::string_view key_id, std::string_view nonce,
                                             UnixMillis now, UnixMillis expires_at,
                                             int64_t dated_seconds, Completion<NonceVerdict> done) {
  redis_.later(
      [this, key_id = std::string(key_id), nonce = std::string(nonce), now, expires_at,
       dated_seconds] { return check_and_insert(key_id, nonce, now, expires_at, dated_seconds); },
      std::move(done));
}

NonceVerdict RedisNonceStore::check_and_insert_impl(std::string_view key_id, std::string_view nonce,
                                                    UnixMillis now, UnixMillis expires_at,
                                                    int64_t dated_seconds) {
  std::string key;
  key.reserve(prefix_.size() + 6 + key_id.size() + 1 + nonce.size());
  key.append(prefix_).append("nonce:").append(key_id).append(":").append(nonce);
  const std::string ttl_ms = std::to_string(std::max<int64_t>(1, expires_at - now));
  const std::string dated = std::to_string(std::max<int64_t>(0, dated_seconds));
  const std::array<std::string_view, 2> keys{key, marker_};
  const std::array<std::string_view, 2> args{ttl_ms, dated};
  auto reply = redis_.eval(kNonceScript, keys, args);
  if (!reply.ok()) {
    outage_.failed(reply.error().message);
    return NonceVerdict::kUnavailable;
  }
  const redisReply* r = reply.value().get();
  if (r->type != REDIS_REPLY_INTEGER) {
    // An error reply (OOM under maxmemory noeviction, a read-only replica): the nonce
    // was not remembered, so it must not be accepted.
    outage_.failed(r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len)
                                                : "unexpected reply to the nonce script");
    return NonceVerdict::kUnavailable;
  }
  outage_.succeeded();
  if (r->integer == 1) return NonceVerdict::kFresh;
  if (r->integer == 0) return NonceVerdict::kReused;
  return NonceVerdict::kStale;
}

}  // namespace licensed
