// A small synchronous Redis client over hiredis for the shared nonce store, rate limiter
// and dashboard sessions. Each call is bounded: connecting and every command time out
// (250 ms by default), and a failed connection is dropped and made again by a later
// call, so service resumes by itself when Redis is back. Connections are pooled: a
// thread takes one for one command and gives it back, so there are about as many
// connections as threads calling at once. Thread-safe.
//
// Calls block, so network threads never make them: they hand them to the client's
// workers (later()), which make them and call back.
#pragma once

#include <hiredis/hiredis.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/completion.h"
#include "core/mutex.h"
#include "core/result.h"
#include "redis/redis_url.h"
#include "redis/redis_workers.h"

namespace licensed {

struct RedisClientOptions {
  RedisEndpoint endpoint;
  // Bound on connecting and on each command's round trip. After a failed connect,
  // calls fail at once for this long instead of each waiting for it.
  std::chrono::milliseconds timeout{250};
  // Threads that make the calls handed to later(); each holds a connection while it
  // waits for Redis.
  size_t workers = 2;
};

struct RedisReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using RedisReply = std::unique_ptr<redisReply, RedisReplyDeleter>;

// A Lua script sent by EVALSHA; when the server does not know it (a restarted Redis,
// SCRIPT FLUSH), by EVAL, which also loads it for the next EVALSHA.
class RedisScript {
 public:
  explicit RedisScript(std::string source);
  const std::string& source() const { return source_; }
  const std::string& sha1() const { return sha1_; }

 private:
  std::string source_;
  std::string sha1_;  // lowercase hex, as EVALSHA wants it
};

class RedisClient {
 public:
  explicit RedisClient(RedisClientOptions options);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Sends one command and returns its reply. The error (kUnavailable, its message
  // naming the cause) means no reply: Redis unreachable, a timeout, a broken connection,
  // or AUTH/SELECT refused. An error *reply* (REDIS_REPLY_ERROR) is a reply.
  Result<RedisReply> command(std::span<const std::string_view> args);
  Result<RedisReply> command(std::initializer_list<std::string_view> args) {
    return command(std::span<const std::string_view>(args.begin(), args.size()));
  }
  // Runs `script` with these KEYS and ARGV, one round trip unless Redis lost the script.
  Result<RedisReply> eval(const RedisScript& script, std::span<const std::string_view> keys,
                          std::span<const std::string_view> args);

  // Runs `call` (blocking calls of this client) on a worker and gives what it returns
  // to `done`, on that worker: how a network thread uses Redis without waiting for it.
  template <class Call, class T = std::invoke_result_t<Call&>>
  void later(Call call, std::type_identity_t<Completion<T>> done) {
    workers_.submit([call = std::move(call), done = std::move(done)]() mutable { done(call()); });
  }
  // Runs the calls already handed to later() and ends the workers; later calls then run
  // on the caller. At shutdown: once the network threads have stopped, and before what
  // the calls' continuations reach (the sessions' io_contexts) goes.
  void stop_workers() { workers_.stop(); }

  // host:port/db, for logs: never the credentials.
  std::string describe() const;

 private:
  struct ContextDeleter {
    void operator()(redisContext* c) const { redisFree(c); }
  };
  using Context = std::unique_ptr<redisContext, ContextDeleter>;

  Result<Context> acquire() EXCLUDES(mu_);
  Result<Context> connect();
  void release(Context c) EXCLUDES(mu_);

  const RedisClientOptions options_;
  Mutex mu_;
  std::vector<Context> idle_ GUARDED_BY(mu_);
  // steady_clock ms before which connecting is not tried again.
  std::atomic<int64_t> connect_not_before_ms_{0};
  // Last: its threads end, finishing their calls, before the pool above goes.
  RedisWorkers workers_;
};

}  // namespace licensed
