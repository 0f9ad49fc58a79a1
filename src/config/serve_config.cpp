#include "config/serve_config.h"

#include <toml++/toml.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>

#include "auth/signing_headers.h"
#include "core/text.h"

namespace licensed {
namespace {

// Bounds of the duration settings: beyond any sane use, and small enough that a
// duration added to a Unix time in milliseconds (a nonce's expiry is now plus two
// windows) can never overflow. A larger value is a typo or an attack on the arithmetic.
constexpr int64_t kMaxTimestampWindowSeconds = 86'400;  // a day of clock skew
constexpr int64_t kMaxRedisTimeoutMs = 60'000;
constexpr int64_t kMaxHeaderTimeoutSeconds = 3'600;
constexpr int64_t kMaxIdleTimeoutSeconds = 86'400;
constexpr int64_t kNoBound = INT64_MAX;

ApiError config_error(std::string message) {
  return errors::malformed("config", std::move(message));
}

// One setting's value and where it came from, for error messages.
struct Sourced {
  std::string value;
  std::string source;
};

std::optional<Sourced> pick(const std::optional<std::string>& flag, const char* flag_name,
                            const EnvLookup& env, const char* env_name, const toml::table* file,
                            const char* file_key) {
  if (flag) return Sourced{*flag, std::string("--") + flag_name};
  if (auto v = env(env_name)) return Sourced{*v, env_name};
  if (file != nullptr) {
    if (const auto* node = file->get(file_key)) {
      if (auto s = node->value<std::string>())
        return Sourced{*s, std::string("config ") + file_key};
      if (auto i = node->value<int64_t>()) {
        return Sourced{std::to_string(*i), std::string("config ") + file_key};
      }
    }
  }
  return std::nullopt;
}

Result<std::pair<std::string, uint16_t>> parse_listen(const Sourced& s) {
  const auto colon = s.value.rfind(':');
  if (colon == std::string::npos) return config_error(s.source + ": expected HOST:PORT");
  std::string host = s.value.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  const char* b = s.value.data() + colon + 1;
  const char* e = s.value.data() + s.value.size();
  const auto [ptr, err] = std::from_chars(b, e, port);
  if (err != std::errc() || ptr != e || port > 65535 || host.empty()) {
    return config_error(s.source + ": expected HOST:PORT, got '" + s.value + "'");
  }
  return std::make_pair(host, static_cast<uint16_t>(port));
}

Result<SigningKeyConfig> parse_key_pair(std::string_view pair, const std::string& source) {
  const auto eq = pair.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == pair.size()) {
    return config_error(source + ": signing keys are ID=SECRET");
  }
  SigningKeyConfig k{std::string(pair.substr(0, eq)), std::string(pair.substr(eq + 1)), {}};
  return k;
}

Result<int64_t> parse_positive(const Sourced& s, int64_t max) {
  const auto v = parse_whole_number<int64_t>(s.value);
  if (!v || *v <= 0) {
    return config_error(s.source + ": expected a positive whole number, got '" + s.value + "'");
  }
  if (*v > max) {
    return config_error(s.source + ": at most " + std::to_string(max) + ", got '" + s.value + "'");
  }
  return *v;
}

// A cap that can be turned off: a whole number, where 0 and "off" both mean no cap.
Result<size_t> parse_cap_or_off(const Sourced& s) {
  if (s.value == "off") return size_t{0};
  const auto v = parse_whole_number<size_t>(s.value);
  if (!v) return config_error(s.source + ": expected a whole number or off, got '" + s.value + "'");
  return *v;
}

Result<std::vector<SigningKeyConfig>> file_signing_keys(const toml::table& file) {
  std::vector<SigningKeyConfig> out;
  const auto* arr = file.get_as<toml::array>("signing_keys");
  if (arr == nullptr) return out;
  for (const auto& node : *arr) {
    const auto* t = node.as_table();
    if (t == nullptr) return config_error("config signing_keys: each entry is a table");
    auto id = t->get("id") ? t->get("id")->value<std::string>() : std::nullopt;
    auto secret = t->get("secret") ? t->get("secret")->value<std::string>() : std::nullopt;
    if (!id || !secret || id->empty() || secret->empty()) {
      return config_error("config signing_keys: each entry needs id and secret");
    }
    SigningKeyConfig k{*id, *secret, {}};
    if (const auto* products = t->get_as<toml::array>("products")) {
      for (const auto& p : *products) {
        auto slug = p.value<std::string>();
        if (!slug) return config_error("config signing_keys.products: strings only");
        k.products.push_back(*slug);
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

Result<std::vector<std::string>> file_response_keys(const toml::table& file) {
  std::vector<std::string> out;
  const auto* node = file.get("response_keys");
  if (node == nullptr) return out;
  const auto* arr = node->as_array();
  if (arr == nullptr) return config_error("config response_keys: a list of file paths");
  for (const auto& p : *arr) {
    auto path = p.value<std::string>();
    if (!path || path->empty()) return config_error("config response_keys: file paths only");
    out.push_back(*path);
  }
  return out;
}

// A repeatable flag's list in the environment: the plural name the spec gives
// (LICENSED_SIGNING_KEYS) first, then the one its general rule gives (LICENSED_ + the
// flag's name, LICENSED_SIGNING_KEY); either holds a comma-separated list.
std::optional<Sourced> list_env(const EnvLookup& env, const char* plural, const char* singular) {
  for (const char* name : {plural, singular}) {
    if (auto v = env(name); v && !v->empty()) return Sourced{*v, name};
  }
  return std::nullopt;
}

// Every key id must be one a request can name (docs/protocol.md §3.1), and name one key. The
// id is not echoed: a secret pasted without its "ID=" would be printed with it.
Status check_signing_key_ids(const std::vector<SigningKeyConfig>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string which =
        "signing key " + std::to_string(i + 1) + " of " + std::to_string(keys.size());
    if (!valid_key_id(keys[i].id)) {
      return config_error(which +
                          ": its id must be 1-64 characters of A-Z a-z 0-9 . _ - (is it "
                          "ID=SECRET?)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (keys[j].id == keys[i].id) {
        return config_error(which + ": its id is also the id of signing key " +
                            std::to_string(j + 1));
      }
    }
  }
  return Ok{};
}

}  // namespace

void add_serve_flags(CLI::App& app, ServeFlags& f) {
  app.add_option("--config", f.config, "TOML configuration file");
  app.add_option("--listen", f.listen, "HOST:PORT to listen on (port 0 picks a free one)");
  app.add_option("--store", f.store, "sqlite:PATH (default sqlite:./licensed.db)");
  app.add_option("--redis", f.redis,
                 "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] for nonces and rate-limit buckets "
                 "shared by several instances");
  app.add_option("--redis-timeout", f.redis_timeout,
                 "milliseconds a Redis connect or command may take (default 250, at most 60000)");
  app.add_option("--signing-key", f.signing_keys, "ID=SECRET, repeatable");
  app.add_option("--response-key", f.response_keys,
                 "PKCS#8 PEM Ed25519 key file that signs answers, repeatable: the first signs, "
                 "all are published (default: a key kept in the store)");
  app.add_option("--dashboard-url", f.dashboard_url, "where a customer frees a slot (409 hint)");
  app.add_option("--rate-limit-key", f.rate_limit_key, "per-license bucket: N/PERIOD or off");
  app.add_option("--rate-limit-ip", f.rate_limit_ip, "per-IP bucket: N/PERIOD or off");
  app.add_option("--timestamp-window", f.timestamp_window, "accepted clock skew in seconds (default 300, 1 to 86400)");
  app.add_option("--threads", f.threads, "network threads (default: one per core)");
  app.add_option("--admin-listen", f.admin_listen,
                 "HOST:PORT for /healthz, /readyz and /metrics, or off (default "
                 "127.0.0.1:9464)");
  app.add_option("--max-connections", f.max_connections,
                 "open connections at most (default 10000, fewer when the descriptor limit "
                 "allows fewer)");
  app.add_option("--max-connections-per-ip", f.max_connections_per_ip,
                 "open connections from one client address at most, trusted proxies not "
                 "counted, or off (default 256)");
  app.add_option("--header-timeout", f.header_timeout,
                 "seconds a request's header may take to arrive (default 10, at most 3600)");
  app.add_option("--idle-timeout", f.idle_timeout,
                 "seconds an idle keep-alive connection is kept open (default 60, at most 86400)");
  app.add_option("--max-queue", f.max_queue,
                 "store jobs queued at most before 503 (default 10000)");
  app.add_option("--store-pool-size", f.store_pool_size,
                 "PostgreSQL connections at most (default: the URL's pool_size, or 8)");
  app.add_option("--max-nonces", f.max_nonces,
                 "nonces remembered in memory at most, without --redis (default 20000000)");
  app.add_option("--log-format", f.log_format, "text (default) or json: one JSON object a line");
  app.add_option("--sentry-dsn", f.sentry_dsn,
                 "report 500s to Sentry: http://PUBLIC_KEY@HOST[:PORT]/PROJECT_ID");
}

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<ServeConfig> resolve_serve_config(const ServeFlags& flags, const EnvLookup& env) {
  ServeConfig c;
  const toml::table* t = nullptr;
  // A whole number from 1 to `max` from the first level that sets it, else `fallback`.
  auto pick_positive = [&](const auto& flag, const char* flag_name, const char* env_name,
                           const char* file_key, auto fallback,
                           int64_t max = kNoBound) -> Result<decltype(fallback)> {
    std::optional<std::string> flag_text;
    if (flag) flag_text = std::to_string(*flag);
    auto s = pick(flag_text, flag_name, env, env_name, t, file_key);
    if (!s) return fallback;
    ASSIGN_OR_RETURN(const int64_t v, parse_positive(*s, max));
    return static_cast<decltype(fallback)>(v);
  };
  std::optional<toml::table> file;
  std::optional<std::string> config_path = flags.config;
  if (!config_path) config_path = env("LICENSED_CONFIG");
  if (config_path) {
    // toml++ reports parse errors by exception; this runs once, at start-up.
    try {
      file = toml::parse_file(*config_path);
    } catch (const toml::parse_error& e) {
      return config_error("cannot read config " + *config_path + ": " +
                          std::string(e.description()));
    }
  }
  t = file ? &*file : nullptr;

  if (auto s = pick(flags.listen, "listen", env, "LICENSED_LISTEN", t, "listen")) {
    ASSIGN_OR_RETURN(auto hp, parse_listen(*s));
    c.listen_host = hp.first;
    c.listen_port = hp.second;
  }
  if (auto s = pick(flags.store, "store", env, "LICENSED_STORE", t, "store")) c.store = s->value;
  // An empty value turns Redis off, so an environment can undo a file's URL.
  if (auto s = pick(flags.redis, "redis", env, "LICENSED_REDIS", t, "redis");
      s && !s->value.empty()) {
    auto endpoint = parse_redis_url(s->value);
    if (!endpoint.ok()) return config_error(s->source + ": " + endpoint.error().message);
    c.redis = std::move(endpoint.value());
  }
  ASSIGN_OR_RETURN(c.redis_timeout_ms,
                   pick_positive(flags.redis_timeout, "redis-timeout", "LICENSED_REDIS_TIMEOUT",
                                 "redis_timeout", c.redis_timeout_ms, kMaxRedisTimeoutMs));
  if (auto s = pick(flags.dashboard_url, "dashboard-url", env, "LICENSED_DASHBOARD_URL", t,
                    "dashboard_url")) {
    if (!s->value.empty()) c.dashboard_url = s->value;
  }
  if (auto s = pick(flags.rate_limit_key, "rate-limit-key", env, "LICENSED_RATE_LIMIT_KEY", t,
                    "rate_limit_key")) {
    auto spec = parse_rate_spec(s->value);
    if (!spec.ok()) return config_error(s->source + ": " + spec.error().message);
    c.rate_limit_key = spec.value();
  }
  if (auto s = pick(flags.rate_limit_ip, "rate-limit-ip", env, "LICENSED_RATE_LIMIT_IP", t,
                    "rate_limit_ip")) {
    auto spec = parse_rate_spec(s->value);
    if (!spec.ok()) return config_error(s->source + ": " + spec.error().message);
    c.rate_limit_ip = spec.value();
  }
  ASSIGN_OR_RETURN(c.timestamp_window, pick_positive(flags.timestamp_window, "timestamp-window",
                                                     "LICENSED_TIMESTAMP_WINDOW",
                                                     "timestamp_window", c.timestamp_window,
                                                     kMaxTimestampWindowSeconds));
  ASSIGN_OR_RETURN(
      c.threads, pick_positive(flags.threads, "threads", "LICENSED_THREADS", "threads", c.threads));
  ASSIGN_OR_RETURN(c.max_connections,
                   pick_positive(flags.max_connections, "max-connections",
                                 "LICENSED_MAX_CONNECTIONS", "max_connections", c.max_connections));
  if (auto s = pick(flags.max_connections_per_ip, "max-connections-per-ip", env,
                    "LICENSED_MAX_CONNECTIONS_PER_IP", t, "max_connections_per_ip")) {
    ASSIGN_OR_RETURN(c.max_connections_per_ip, parse_cap_or_off(*s));
  }
  ASSIGN_OR_RETURN(c.header_timeout,
                   pick_positive(flags.header_timeout, "header-timeout", "LICENSED_HEADER_TIMEOUT",
                                 "header_timeout", c.header_timeout, kMaxHeaderTimeoutSeconds));
  ASSIGN_OR_RETURN(c.idle_timeout,
                   pick_positive(flags.idle_timeout, "idle-timeout", "LICENSED_IDLE_TIMEOUT",
                                 "idle_timeout", c.idle_timeout, kMaxIdleTimeoutSeconds));
  bool admin_listen_given = false;
  if (auto s = pick(flags.admin_listen, "admin-listen", env, "LICENSED_ADMIN_LISTEN", t,
                    "admin_listen")) {
    admin_listen_given = true;
    if (s->value == "off") {
      c.admin_listen.reset();
    } else {
      ASSIGN_OR_RETURN(c.admin_listen, parse_listen(*s));
    }
  }
  // A throwaway instance (API on port 0) gets a throwaway admin port, so that several
  // can run side by side.
  if (!admin_listen_given && c.listen_port == 0) c.admin_listen->second = 0;
  ASSIGN_OR_RETURN(c.max_queue, pick_positive(flags.max_queue, "max-queue", "LICENSED_MAX_QUEUE",
                                              "max_queue", c.max_queue));
  ASSIGN_OR_RETURN(c.store_pool_size,
                   pick_positive(flags.store_pool_size, "store-pool-size",
                                 "LICENSED_STORE_POOL_SIZE", "store_pool_size", c.store_pool_size));
  ASSIGN_OR_RETURN(c.max_nonces, pick_positive(flags.max_nonces, "max-nonces",
                                               "LICENSED_MAX_NONCES", "max_nonces", c.max_nonces));

  if (auto s = pick(flags.log_format, "log-format", env, "LICENSED_LOG_FORMAT", t, "log_format")) {
    const auto format = parse_log_format(s->value);
    if (!format) return config_error(s->source + ": expected text or json, got '" + s->value + "'");
    c.log_format = *format;
  }
  // An empty value turns reporting off, so an environment can undo a file's DSN.
  if (auto s = pick(flags.sentry_dsn, "sentry-dsn", env, "LICENSED_SENTRY_DSN", t, "sentry_dsn");
      s && !s->value.empty()) {
    // The message never repeats the value: the DSN's key is a credential.
    auto dsn = parse_sentry_dsn(s->value);
    if (!dsn.ok()) return config_error(s->source + ": " + dsn.error().message);
    c.sentry_dsn = std::move(dsn.value());
  }

  // Signing keys: a list given at a higher level replaces the lower one entirely.
  if (!flags.signing_keys.empty()) {
    for (const auto& pair : flags.signing_keys) {
      ASSIGN_OR_RETURN(auto k, parse_key_pair(pair, "--signing-key"));
      c.signing_keys.push_back(std::move(k));
    }
  } else if (auto v = list_env(env, "LICENSED_SIGNING_KEYS", "LICENSED_SIGNING_KEY")) {
    std::string_view rest = v->value;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      // Blanks around a listed pair ("a=x, b=y") are the list's, not the key's.
      ASSIGN_OR_RETURN(auto k, parse_key_pair(trim_blanks(rest.substr(0, comma)), v->source));
      c.signing_keys.push_back(std::move(k));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  } else if (t != nullptr) {
    ASSIGN_OR_RETURN(c.signing_keys, file_signing_keys(*t));
  }
  RETURN_IF_ERROR(check_signing_key_ids(c.signing_keys));

  // Response keys: the same rule; the files are read by the caller (main), which knows
  // how to say that a key is unusable.
  if (!flags.response_keys.empty()) {
    for (const auto& path : flags.response_keys) {
      if (path.empty()) return config_error("--response-key: expected a file path");
      c.response_keys.push_back(path);
    }
  } else if (auto v = list_env(env, "LICENSED_RESPONSE_KEYS", "LICENSED_RESPONSE_KEY")) {
    std::string_view rest = v->value;
    for (;;) {
      const auto comma = rest.find(',');
      const std::string_view path = rest.substr(0, comma);
      if (path.empty()) {
        return config_error(v->source + ": expected file paths separated by commas");
      }
      c.response_keys.emplace_back(path);
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  } else if (t != nullptr) {
    ASSIGN_OR_RETURN(c.response_keys, file_response_keys(*t));
  }

  if (t != nullptr) {
    if (const auto* proxies = t->get_as<toml::array>("trusted_proxies")) {
      for (const auto& p : *proxies) {
        auto cidr = p.value<std::string>();
        if (!cidr) return config_error("config trusted_proxies: strings only");
        c.trusted_proxies.push_back(*cidr);
      }
    }
  }
  if (auto v = env("LICENSED_TRUSTED_PROXIES"); v && !v->empty()) {
    c.trusted_proxies.clear();
    std::string_view rest = *v;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      c.trusted_proxies.emplace_back(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  return c;
}

}  // namespace licensed
