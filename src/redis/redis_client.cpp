#include "redis/redis_client.h"

#include <openssl/evp.h>

#include <array>
#include <cstring>

namespace licensed {
namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

timeval to_timeval(std::chrono::milliseconds d) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(d.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((d.count() % 1000) * 1000);
  return tv;
}

Error unreachable(std::string what) {
  return Error::unavailable("redis: " + std::move(what));
}

std::string sha1_hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (EVP_Digest(text.data(), text.size(), md.data(), &len, EVP_sha1(), nullptr) != 1) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

bool is_error_reply(const redisReply* r, std::string_view prefix = {}) {
  return r->type == REDIS_REPLY_ERROR &&
         std::string_view(r->str, r->len).substr(0, prefix.size()) == prefix;
}

}  // namespace

RedisScript::RedisScript(std::string source) : source_(std::move(source)) {
  // Empty only if OpenSSL cannot hash; EVALSHA of "" then fails and EVAL is used.
  sha1_ = sha1_hex(source_);
}

RedisClient::RedisClient(RedisClientOptions options)
    : options_(std::move(options)), workers_(options_.workers) {}

RedisClient::~RedisClient() = default;

std::string RedisClient::describe() const {
  return options_.endpoint.host + ":" + std::to_string(options_.endpoint.port) + "/" +
         std::to_string(options_.endpoint.db);
}

Result<RedisClient::Context> RedisClient::connect() {
  const RedisEndpoint& e = options_.endpoint;
  Context c(redisConnectWithTimeout(e.host.c_str(), e.port, to_timeval(options_.timeout)));
  if (!c) return unreachable("cannot allocate a connection");
  if (c->err) return unreachable(std::string("cannot connect to ") + describe() + ": " + c->errstr);
  if (redisSetTimeout(c.get(), to_timeval(options_.timeout)) != REDIS_OK) {
    return unreachable("cannot set the command timeout");
  }
  (void)redisEnableKeepAlive(c.get());  // best effort: notices a peer that vanished

  auto setup = [&](std::span<const std::string_view> args, const char* what) -> Status {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (auto a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    RedisReply r(static_cast<redisReply*>(
        redisCommandArgv(c.get(), static_cast<int>(argv.size()), argv.data(), lens.data())));
    if (!r) return unreachable(std::string(what) + ": " + c->errstr);
    // The reply text names the problem (WRONGPASS ...), never the password itself.
    if (r->type == REDIS_REPLY_ERROR) return unreachable(what + (": " + std::string(r->str)));
    return Ok{};
  };
  if (e.password) {
    std::vector<std::string_view> auth{"AUTH"};
    if (e.user) auth.push_back(*e.user);
    auth.push_back(*e.password);
    RETURN_IF_ERROR(setup(auth, "AUTH refused"));
  }
  if (e.db != 0) {
    const std::string db = std::to_string(e.db);
    const std::array<std::string_view, 2> select{"SELECT", db};
    RETURN_IF_ERROR(setup(select, "SELECT refused"));
  }
  return c;
}

Result<RedisClient::Context> RedisClient::acquire() {
  {
    MutexLock lock(mu_);
    if (!idle_.empty()) {
      Context c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  // While Redis is known to be down, fail at once: a network thread must not spend a
  // connect timeout on every request.
  if (steady_ms() < connect_not_before_ms_.load(std::memory_order_relaxed)) {
    return unreachable("not connected (a recent connect to " + describe() + " failed)");
  }
  auto c = connect();
  if (!c.ok()) {
    connect_not_before_ms_.store(steady_ms() + options_.timeout.count(), std::memory_order_relaxed);
  }
  return c;
}

void RedisClient::release(Context c) {
  MutexLock lock(mu_);
  idle_.push_back(std::move(c));
}

Result<RedisReply> RedisClient::command(std::span<const std::string_view> args) {
  std::array<const char*, 16> argv{};
  std::array<size_t, 16> lens{};
  if (args.size() > argv.size()) return unreachable("too many arguments");
  for (size_t i = 0; i < args.size(); ++i) {
    argv[i] = args[i].data();
    lens[i] = args[i].size();
  }
  ASSIGN_OR_RETURN(Context c, acquire());
  RedisReply r(static_cast<redisReply*>(
      redisCommandArgv(c.get(), static_cast<int>(args.size()), argv.data(), lens.data())));
  if (!r) {
    // Timed out or broken: the connection's state is unknown, so it is dropped.
    return unreachable(std::string("command failed: ") + c->errstr);
  }
  release(std::move(c));
  return r;
}

Result<RedisReply> RedisClient::eval(const RedisScript& script,
                                     std::span<const std::string_view> keys,
                                     std::span<const std::string_view> args) {
  std::vector<std::string_view> argv;
  const std::string key_count = std::to_string(keys.size());
  argv.reserve(3 + keys.size() + args.size());
  argv.insert(argv.end(), {"EVALSHA", script.sha1(), key_count});
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  ASSIGN_OR_RETURN(RedisReply r, command(argv));
  if (!is_error_reply(r.get(), "NOSCRIPT")) return r;
  argv[0] = "EVAL";
  argv[1] = script.source();
  return command(argv);
}

}  // namespace licensed
