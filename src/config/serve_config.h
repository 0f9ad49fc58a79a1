// `licensed serve` configuration (docs/protocol.md §18): flags beat environment variables,
// which beat the TOML file, which beats the defaults. Resolved once at start-up into an
// immutable ServeConfig.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/key_ring.h"
#include "core/result.h"
#include "observability/log_format.h"
#include "observability/sentry_dsn.h"
#include "ratelimit/rate_spec.h"
#include "redis/redis_url.h"

namespace licensed {

// Filled by resolve_serve_config: every default is in the settings table
// (serve_settings.cpp), so the members here start out empty.
// The vendor the customer dashboard shows (--dashboard-brand): a name, a logo file served
// at /dashboard/brand-logo (so the page's CSP, img-src 'self', allows it) and a support
// link (https:, http: or mailto:). Empty members: the page's defaults.
struct DashboardBrand {
  std::string name;
  std::string logo_file;
  std::string support_url;
};

struct ServeConfig {
  std::string listen_host;
  uint16_t listen_port = 0;
  std::string store;
  // Shared nonces and rate-limit buckets for several instances; none: in memory.
  std::optional<RedisEndpoint> redis;
  int64_t redis_timeout_ms = 0;  // bound on connecting to Redis and on each command
  std::vector<SigningKeyConfig> signing_keys;
  // PKCS#8 PEM files of Ed25519 response keys (docs/protocol.md §14), the first signs; empty:
  // the key kept in the store signs.
  std::vector<std::string> response_keys;
  std::optional<std::string> dashboard_url;
  DashboardBrand dashboard_brand;
  // The server's address as the world reaches it (docs/protocol.md §22.1, --public-url): the
  // {base_url} of store inbound URLs and claim links, without a trailing slash; none: they are
  // paths.
  std::optional<std::string> public_url;
  std::optional<RateSpec> rate_limit_key;  // nullopt: off
  std::optional<RateSpec> rate_limit_ip;   // nullopt: off
  // New trials per client IP and per product (docs/protocol.md §20); nullopt: off.
  std::optional<RateSpec> rate_limit_trial;
  std::optional<RateSpec> rate_limit_trial_product;
  int64_t timestamp_window = 0;  // seconds
  // docs/protocol.md §21.1: how old an offline request file may be, and how far ahead of
  // the clock, in seconds.
  int64_t offline_request_max_age = 0;
  int64_t offline_request_max_skew = 0;
  std::vector<std::string> trusted_proxies;
  size_t threads = 0;  // 0: one per core
  // Health and metrics listener; nullopt when turned off. When it is not configured and
  // the API itself listens on port 0, an ephemeral port.
  std::optional<std::pair<std::string, uint16_t>> admin_listen;
  size_t max_connections = 0;
  // Open connections from one client address at most (trusted proxies not counted);
  // 0: no such cap.
  size_t max_connections_per_ip = 0;
  int64_t header_timeout = 0;  // seconds from a request's first byte to its full header
  int64_t idle_timeout = 0;    // seconds a keep-alive connection may wait between requests
  // Store jobs queued or running at most; more answer 503 1708 at once. With one request
  // per connection in flight, the queue holds at most one job per open connection, so
  // this is a latency bound: a request waits for at most this many jobs ahead of it.
  size_t max_queue = 0;
  // PostgreSQL connections at most; 0: the store URL's pool_size, or 8.
  size_t store_pool_size = 0;
  // Nonces the in-memory store remembers at most (no Redis). Each is kept 600 s by
  // default, so this bounds the accepted request rate and the store's memory; a request
  // beyond it answers 503 1708 (fail closed).
  size_t max_nonces = 0;
  LogFormat log_format = LogFormat::kText;
  LogLevel log_level = LogLevel::kInfo;
  std::string log_file;                 // empty: standard output
  bool access_log = false;              // one line per request (http/access_log.h)
  std::optional<SentryDsn> sentry_dsn;  // where 500s are reported; none: only logged
  // Every outgoing connection (store API calls, webhooks; docs/protocol.md §24): plain http and
  // private or loopback addresses only when allowed; a CA bundle that replaces the
  // system's for verifying certificates (empty: the system's).
  bool webhook_allow_http = false;
  bool webhook_allow_private = false;
  std::string outgoing_ca_file;
};

// What the command line said, as text by flag name (without "--"); a setting it leaves
// out falls through to the environment and the file.
class ServeFlags {
 public:
  void set(std::string_view flag, std::string value) {
    values_[std::string(flag)] = {std::move(value)};
  }
  // A repeatable flag's values; none is the same as the flag not given.
  void set(std::string_view flag, std::vector<std::string> values) {
    values_[std::string(flag)] = std::move(values);
  }
  // Null when the command line did not give the flag.
  const std::vector<std::string>* find(std::string_view flag) const;
  const std::map<std::string, std::vector<std::string>, std::less<>>& all() const {
    return values_;
  }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// Declares every flag of the settings table on `app`, with its help text; what the
// command line gives lands in `flags`.
void add_serve_flags(CLI::App& app, ServeFlags& flags);

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup process_environment();

// An environment variable named LICENSED_* that no setting reads is refused, naming it:
// a misspelled one would otherwise leave a default in force without a word.
Status check_environment_names(const std::vector<std::string>& names);
// The names of this process's environment variables.
std::vector<std::string> process_environment_names();

// A bad value anywhere is an error naming where it came from; the caller exits 2. A key
// of the TOML file that no setting has is such an error too.
Result<ServeConfig> resolve_serve_config(const ServeFlags& flags, const EnvLookup& env);

}  // namespace licensed
