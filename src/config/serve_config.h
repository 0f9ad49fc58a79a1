// `licensed serve` configuration (docs/protocol.md §18): flags beat environment variables,
// which beat the TOML file, which beats the defaults. Resolved once at start-up into an
// immutable ServeConfig.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "auth/key_ring.h"
#include "core/result.h"
#include "observability/log_format.h"
#include "observability/sentry_dsn.h"
#include "ratelimit/rate_spec.h"
#include "redis/redis_url.h"

namespace licensed {

struct ServeConfig {
  std::string listen_host = "127.0.0.1";
  uint16_t listen_port = 8080;
  std::string store = "sqlite:./licensed.db";
  // Shared nonces and rate-limit buckets for several instances; none: in memory.
  std::optional<RedisEndpoint> redis;
  int64_t redis_timeout_ms = 250;  // bound on connecting to Redis and on each command
  std::vector<SigningKeyConfig> signing_keys;
  // PKCS#8 PEM files of Ed25519 response keys (docs/protocol.md §14), the first signs; empty:
  // the key kept in the store signs.
  std::vector<std::string> response_keys;
  std::optional<std::string> dashboard_url;
  std::optional<RateSpec> rate_limit_key = RateSpec{120, 60'000};
  std::optional<RateSpec> rate_limit_ip = RateSpec{600, 60'000};
  int64_t timestamp_window = 300;
  std::vector<std::string> trusted_proxies;
  size_t threads = 0;
  // Health and metrics listener; nullopt when turned off. Defaults to loopback port
  // 9464, or an ephemeral port when the API itself listens on port 0.
  std::optional<std::pair<std::string, uint16_t>> admin_listen =
      std::make_pair(std::string("127.0.0.1"), uint16_t{9464});
  size_t max_connections = 10000;
  // Open connections from one client address at most (trusted proxies not counted);
  // 0: no such cap.
  size_t max_connections_per_ip = 256;
  int64_t header_timeout = 10;  // seconds from a request's first byte to its full header
  int64_t idle_timeout = 60;    // seconds a keep-alive connection may wait between requests
  // Store jobs queued or running at most; more answer 503 1708 at once. With one request
  // per connection in flight, the queue holds at most one job per open connection, so
  // this is a latency bound: a request waits for at most this many jobs ahead of it.
  size_t max_queue = 10000;
  // PostgreSQL connections at most; 0: the store URL's pool_size, or 8.
  size_t store_pool_size = 0;
  // Nonces the in-memory store remembers at most (no Redis). Each is kept 600 s by
  // default, so this bounds the accepted request rate (here ~33,000 req/s) and the
  // store's memory; a request beyond it answers 503 1708 (fail closed).
  size_t max_nonces = 20'000'000;
  LogFormat log_format = LogFormat::kText;
  std::optional<SentryDsn> sentry_dsn;  // where 500s are reported; none: only logged
};

// What the command line said; unset members fall through to the environment and file.
struct ServeFlags {
  std::optional<std::string> config;
  std::optional<std::string> listen;
  std::optional<std::string> store;
  std::optional<std::string> redis;
  std::optional<int64_t> redis_timeout;
  std::vector<std::string> signing_keys;
  std::vector<std::string> response_keys;
  std::optional<std::string> dashboard_url;
  std::optional<std::string> rate_limit_key;
  std::optional<std::string> rate_limit_ip;
  std::optional<int64_t> timestamp_window;
  std::optional<size_t> threads;
  std::optional<std::string> admin_listen;
  std::optional<size_t> max_connections;
  std::optional<std::string> max_connections_per_ip;  // a number, or off
  std::optional<int64_t> header_timeout;
  std::optional<int64_t> idle_timeout;
  std::optional<size_t> max_queue;
  std::optional<size_t> store_pool_size;
  std::optional<size_t> max_nonces;
  std::optional<std::string> log_format;
  std::optional<std::string> sentry_dsn;
};

void add_serve_flags(CLI::App& app, ServeFlags& flags);

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

// A bad value anywhere is an error naming where it came from; the caller exits 2.
Result<ServeConfig> resolve_serve_config(const ServeFlags& flags, const EnvLookup& env);

}  // namespace licensed
