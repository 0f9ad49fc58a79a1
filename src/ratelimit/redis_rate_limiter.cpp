#include "ratelimit/redis_rate_limiter.h"

#include <algorithm>
#include <array>

namespace licensed {
namespace {

// KEYS[1] the bucket; ARGV[1] count N, ARGV[2] period in ms. Returns {1, 0} when
// admitted, {0, wait_ms} when refused. The TAT is stored as "ms:frac", frac/N of a ms,
// exactly as MemoryRateLimiter keeps it; every number stays far below 2^53, so Lua's
// doubles are exact. Redis 7 replicates a script's effects, not the script, so reading
// TIME here is allowed.
const RedisScript kGcraScript(R"lua(
local n = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local iv_ms = math.floor(period / n)
local iv_frac = period % n
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local tat_ms, tat_frac = now, 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local ms, frac = string.match(stored, '^(%d+):(%d+)$')
  ms, frac = tonumber(ms), tonumber(frac)
  -- A TAT in the past means the bucket is full again: the same as no entry.
  if ms and frac and (ms > now or (ms == now and frac > 0)) then
    tat_ms, tat_frac = ms, frac
  end
end
local next_ms, next_frac = tat_ms + iv_ms, tat_frac + iv_frac
if next_frac >= n then
  next_frac = next_frac - n
  next_ms = next_ms + 1
end
local limit = now + period
if next_ms < limit or (next_ms == limit and next_frac == 0) then
  -- Kept until the TAT has passed; after that no entry means the same.
  redis.call('SET', KEYS[1], string.format('%d:%d', next_ms, next_frac),
             'PX', next_ms - now + 1)
  return {1, 0}
end
local wait = next_ms - limit
if next_frac > 0 then wait = wait + 1 end
return {0, wait}
)lua");

}  // namespace

RedisRateLimiter::RedisRateLimiter(RedisClient& redis, RateSpec spec, std::string key_prefix,
                                   const Clock& clock)
    : redis_(redis),
      count_(std::to_string(std::max<int64_t>(1, spec.count))),
      period_ms_(std::to_string(std::max<int64_t>(1, spec.period_ms))),
      prefix_(std::move(key_prefix)),
      outage_("rate limits", "not enforced (fail open)", clock) {}

void RedisRateLimiter::admit_async(std::string_view bucket_key, UnixMillis now,
                                   Completion<RateDecision> done) {
  redis_.later([this, key = std::string(bucket_key), now] { return admit(key, now); },
               std::move(done));
}

RateDecision RedisRateLimiter::admit(std::string_view bucket_key, UnixMillis /*now*/) {
  std::string key;
  key.reserve(prefix_.size() + bucket_key.size());
  key.append(prefix_).append(bucket_key);
  const std::array<std::string_view, 1> keys{key};
  const std::array<std::string_view, 2> args{count_, period_ms_};
  auto reply = redis_.eval(kGcraScript, keys, args);
  if (!reply.ok()) {
    outage_.failed(reply.error().message);
    return {true, 0};
  }
  const redisReply* r = reply.value().get();
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
      r->element[0]->type != REDIS_REPLY_INTEGER || r->element[1]->type != REDIS_REPLY_INTEGER) {
    outage_.failed(r->type == REDIS_REPLY_ERROR ? std::string(r->str, r->len)
                                                : "unexpected reply to the GCRA script");
    return {true, 0};
  }
  outage_.succeeded();
  if (r->element[0]->integer == 1) return {true, 0};
  return refused_for_ms(r->element[1]->integer);
}

}  // namespace licensed
