#include "dashboard/redis_session_store.h"

#include "auth/request_signature.h"
#include "core/text.h"

namespace licensed {
namespace {

// "<expires_at>\n<csrf token>\n<license key>": neither the number nor the base64url
// token holds a newline, so the license key is the rest whatever it holds.
std::string encode(const DashboardSession& s) {
  return std::to_string(s.expires_at) + "\n" + s.csrf_token + "\n" + s.license_key;
}

std::optional<DashboardSession> decode(std::string_view v) {
  const size_t first = v.find('\n');
  if (first == std::string_view::npos) return std::nullopt;
  const size_t second = v.find('\n', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto expires_at = parse_whole_number<UnixMillis>(v.substr(0, first));
  if (!expires_at) return std::nullopt;
  DashboardSession s;
  s.expires_at = *expires_at;
  s.csrf_token = std::string(v.substr(first + 1, second - first - 1));
  s.license_key = std::string(v.substr(second + 1));
  return s;
}

// "<expires_at>\n<machine id>\n<machine name>\n<license key>": ids and names hold no
// control characters (docs/protocol.md §3), so only the key, last, may hold a newline.
std::string encode(const SignInLink& l, UnixMillis expires_at) {
  return std::to_string(expires_at) + "\n" + l.machine_id + "\n" + l.machine_name + "\n" +
         l.license_key;
}

std::optional<std::pair<SignInLink, UnixMillis>> decode_link(std::string_view v) {
  std::string_view parts[3];
  for (auto& part : parts) {
    const size_t end = v.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    part = v.substr(0, end);
    v.remove_prefix(end + 1);
  }
  const auto expires_at = parse_whole_number<UnixMillis>(parts[0]);
  if (!expires_at) return std::nullopt;
  return std::pair{SignInLink{std::string(v), std::string(parts[1]), std::string(parts[2])},
                   *expires_at};
}

const RedisScript kTakeScript(R"lua(
local v = redis.call('GET', KEYS[1])
if v then redis.call('DEL', KEYS[1]) end
return v
)lua");

}  // namespace

RedisSessionStore::RedisSessionStore(RedisClient& redis, std::string key_prefix, const Clock& clock,
                                     int64_t lifetime_ms, int64_t max_per_license)
    : redis_(redis),
      prefix_(std::move(key_prefix)),
      clock_(clock),
      lifetime_ms_(lifetime_ms),
      max_per_license_(max_per_license),
      outage_("dashboard sessions", "answered with 503", clock) {}

std::string RedisSessionStore::key_of(std::string_view id) const {
  return prefix_ + "dashboard-session:" + sha256_hex(id);
}

Result<RedisReply> RedisSessionStore::run(std::initializer_list<std::string_view> args) const {
  auto reply = redis_.command(args);
  std::string cause;
  if (!reply.ok()) {
    cause = reply.error().message;
  } else if (reply.value()->type == REDIS_REPLY_ERROR) {
    cause = "redis: " + std::string(reply.value()->str, reply.value()->len);
  } else {
    outage_.succeeded();
    return reply;
  }
  outage_.failed(cause);
  // Where Redis is and what it said go to the log and the message, which the dashboard
  // never sends: the answer goes to anyone with a cookie.
  return Error::unavailable("dashboard sessions are unavailable: " + cause);
}

Result<NewDashboardSession> RedisSessionStore::open(std::string_view license_key) {
  // Sessions of one license opened within one lifetime are counted, so that a leaked key
  // signed in from many addresses cannot fill the Redis the nonces live in.
  const std::string count_key = prefix_ + "dashboard-sign-ins:" + sha256_hex(license_key);
  const std::string lifetime = std::to_string(lifetime_ms_);
  RETURN_IF_ERROR(run({"SET", count_key, "0", "PX", lifetime, "NX"}));
  ASSIGN_OR_RETURN(RedisReply count, run({"INCR", count_key}));
  if (count->type == REDIS_REPLY_INTEGER && count->integer > max_per_license_) {
    ASSIGN_OR_RETURN(RedisReply left, run({"PTTL", count_key}));
    const int64_t ms =
        left->type == REDIS_REPLY_INTEGER && left->integer > 0 ? left->integer : 1000;
    return Error::rate_limited("key", (ms + 999) / 1000, "too many sign-ins to this license");
  }
  auto fresh = new_session_tokens();
  if (!fresh) return Error::internal("no random bytes for a dashboard session");
  const DashboardSession session{std::string(license_key), fresh->csrf_token,
                                 clock_.now_ms() + lifetime_ms_};
  RETURN_IF_ERROR(run({"SET", key_of(fresh->id), encode(session), "PX", lifetime}));
  return std::move(*fresh);
}

Result<std::optional<DashboardSession>> RedisSessionStore::find(std::string_view id) const {
  ASSIGN_OR_RETURN(RedisReply reply, run({"GET", key_of(id)}));
  if (reply->type != REDIS_REPLY_STRING) return std::optional<DashboardSession>();
  auto session = decode(std::string_view(reply->str, reply->len));
  // Redis expires the key on its own clock; the end written in it is ours.
  if (!session || session->expires_at <= clock_.now_ms()) {
    return std::optional<DashboardSession>();
  }
  return session;
}

Status RedisSessionStore::close(std::string_view id) {
  RETURN_IF_ERROR(run({"DEL", key_of(id)}));
  return Ok{};
}

Result<std::string> RedisSessionStore::open_link(const SignInLink& link) {
  auto token = new_link_token();
  if (!token) return Error::internal("no random bytes for a dashboard sign-in link");
  const std::string key = prefix_ + "dashboard-link:" + sha256_hex(*token);
  RETURN_IF_ERROR(run({"SET", key, encode(link, clock_.now_ms() + kSignInLinkMs), "PX",
                       std::to_string(kSignInLinkMs)}));
  return std::move(*token);
}

Result<std::optional<SignInLink>> RedisSessionStore::take_link(std::string_view token) {
  const std::string key = prefix_ + "dashboard-link:" + sha256_hex(token);
  const std::string_view keys[] = {key};
  auto reply = redis_.eval(kTakeScript, keys, {});
  if (!reply.ok() || reply.value()->type == REDIS_REPLY_ERROR) {
    const std::string cause = reply.ok()
                                  ? "redis: " + std::string(reply.value()->str, reply.value()->len)
                                  : reply.error().message;
    outage_.failed(cause);
    return Error::unavailable("dashboard sessions are unavailable: " + cause);
  }
  outage_.succeeded();
  if (reply.value()->type != REDIS_REPLY_STRING) return std::optional<SignInLink>();
  auto link = decode_link(std::string_view(reply.value()->str, reply.value()->len));
  if (!link || link->second <= clock_.now_ms()) return std::optional<SignInLink>();
  return std::optional<SignInLink>(std::move(link->first));
}

void RedisSessionStore::open_link_async(const SignInLink& link,
                                        Completion<Result<std::string>> done) {
  redis_.later([this, link] { return open_link(link); }, std::move(done));
}

void RedisSessionStore::take_link_async(std::string_view token,
                                        Completion<Result<std::optional<SignInLink>>> done) {
  redis_.later([this, token = std::string(token)] { return take_link(token); }, std::move(done));
}

void RedisSessionStore::open_async(std::string_view license_key,
                                   Completion<Result<NewDashboardSession>> done) {
  redis_.later([this, key = std::string(license_key)] { return open(key); }, std::move(done));
}

void RedisSessionStore::find_async(std::string_view id,
                                   Completion<Result<std::optional<DashboardSession>>> done) const {
  redis_.later([this, id = std::string(id)] { return find(id); }, std::move(done));
}

void RedisSessionStore::close_async(std::string_view id, Completion<Status> done) {
  redis_.later([this, id = std::string(id)] { return close(id); }, std::move(done));
}

}  // namespace licensed
