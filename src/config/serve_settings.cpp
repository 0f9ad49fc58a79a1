#include "config/serve_settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <type_traits>

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
constexpr int64_t kMaxOfflineRequestSpanSeconds = 3'650LL * 86'400;  // ten years

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

Status set_listen(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  ASSIGN_OR_RETURN(auto hp, parse_listen(s));
  c.listen_host = hp.first;
  c.listen_port = hp.second;
  return Ok{};
}

Status set_admin_listen(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  if (s.value == "off") {
    c.admin_listen.reset();
    return Ok{};
  }
  ASSIGN_OR_RETURN(c.admin_listen, parse_listen(s));
  return Ok{};
}

Status set_store(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  c.store = s.value;
  return Ok{};
}

// An empty value means no URL, so an environment can undo a file's.
Status set_dashboard_url(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  c.dashboard_url.reset();
  if (!s.value.empty()) c.dashboard_url = s.value;
  return Ok{};
}

// "name=Acme Audio;logo=/etc/licensed/logo.svg;support=https://acme.example/help": each
// part optional, in any order; empty means no brand, so an environment can undo a file's.
Status set_dashboard_brand(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  c.dashboard_brand = {};
  std::string_view rest = s.value;
  while (!rest.empty()) {
    const size_t semi = rest.find(';');
    const std::string_view part = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string_view name = part.substr(0, eq);
    const std::string value(eq == std::string_view::npos ? "" : part.substr(eq + 1));
    if (value.empty() || std::any_of(value.begin(), value.end(), [](char ch) {
          return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
        })) {
      return config_error(s.source + ": '" + std::string(name) +
                          "' needs a value without control characters");
    }
    if (name == "name" && value.size() <= 100) {
      c.dashboard_brand.name = value;
    } else if (name == "logo") {
      c.dashboard_brand.logo_file = value;
    } else if (name == "support" &&
               (value.starts_with("https://") || value.starts_with("http://") ||
                value.starts_with("mailto:"))) {
      c.dashboard_brand.support_url = value;
    } else {
      return config_error(s.source +
                          ": expected name=TEXT (at most 100 bytes), logo=FILE or "
                          "support=URL (https:, http: or mailto:) separated by ';', got '" +
                          std::string(part) + "'");
    }
  }
  return Ok{};
}

// An http:// or https:// URL with a host, kept without its trailing slashes (paths are
// appended to it); empty means none, so an environment can undo a file's.
Status set_public_url(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  c.public_url.reset();
  if (s.value.empty()) return Ok{};
  std::string_view url = s.value;
  while (url.ends_with('/')) url.remove_suffix(1);
  const size_t scheme_end = url.starts_with("https://") ? 8 : url.starts_with("http://") ? 7 : 0;
  const std::string_view rest = url.substr(scheme_end);
  if (scheme_end == 0 || rest.empty() || rest.front() == '/' ||
      url.find_first_of("?# \t") != std::string_view::npos) {
    return config_error(s.source + ": expected an http:// or https:// URL, got '" + s.value + "'");
  }
  c.public_url = std::string(url);
  return Ok{};
}

// An endpoint that can be turned off (Redis, Sentry): an empty value turns it off, so an
// environment can undo a file's. The message never repeats the value: its password or
// key is a credential.
template <auto Member, auto Parse>
Status set_endpoint(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  (c.*Member).reset();
  if (s.value.empty()) return Ok{};
  auto parsed = Parse(s.value);
  if (!parsed.ok()) return config_error(s.source + ": " + parsed.error().message);
  c.*Member = std::move(parsed.value());
  return Ok{};
}

Status set_log_level(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  const auto level = parse_log_level(s.value);
  if (!level) {
    return config_error(s.source + ": expected debug, info, warn or error, got '" + s.value + "'");
  }
  c.log_level = *level;
  return Ok{};
}

// Empty: standard output. The file is opened (and made) by main, which says why it cannot.
Status set_log_file(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  c.log_file = s.value;
  return Ok{};
}

Status set_log_format(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  const auto format = parse_log_format(s.value);
  if (!format) return config_error(s.source + ": expected text or json, got '" + s.value + "'");
  c.log_format = *format;
  return Ok{};
}

template <auto Member>
Status set_rate_spec(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  auto spec = parse_rate_spec(s.value);
  if (!spec.ok()) return config_error(s.source + ": " + spec.error().message);
  c.*Member = spec.value();
  return Ok{};
}

// A whole number from 1 to the setting's `max`.
template <auto Member>
Status set_number(ServeConfig& c, const Sourced& s, const SettingSpec& setting) {
  const auto v = parse_whole_number<int64_t>(s.value);
  if (!v || *v <= 0) {
    return config_error(s.source + ": expected a positive whole number, got '" + s.value + "'");
  }
  if (*v > setting.max) {
    return config_error(s.source + ": at most " + std::to_string(setting.max) + ", got '" +
                        s.value + "'");
  }
  c.*Member = static_cast<std::remove_reference_t<decltype(c.*Member)>>(*v);
  return Ok{};
}

// A DURATION (docs/protocol.md §10: a whole number and a unit, s, m, h or d, as in "90s" or
// "30d"), or a whole number of seconds, from 1 s to the setting's `max` seconds.
template <auto Member>
Status set_span(ServeConfig& c, const Sourced& s, const SettingSpec& setting) {
  std::string_view text = s.value;
  int64_t unit = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 's':
        unit = 1;
        text.remove_suffix(1);
        break;
      case 'm':
        unit = 60;
        text.remove_suffix(1);
        break;
      case 'h':
        unit = 3600;
        text.remove_suffix(1);
        break;
      case 'd':
        unit = 86400;
        text.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  const auto v = parse_whole_number<int64_t>(text);
  if (!v || *v <= 0 || *v > setting.max / unit) {
    return config_error(s.source + ": expected a duration from 1s to " +
                        std::to_string(setting.max / 86400) + "d (90s, 10m, 24h, 30d), got '" +
                        s.value + "'");
  }
  c.*Member = *v * unit;
  return Ok{};
}

// A switch: true or 1 turns it on; false, 0 or an empty value (an environment undoing a
// file) turns it off.
template <auto Member>
Status set_switch(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  if (s.value == "true" || s.value == "1") {
    c.*Member = true;
  } else if (s.value == "false" || s.value == "0" || s.value.empty()) {
    c.*Member = false;
  } else {
    return config_error(s.source + ": expected true or false, got '" + s.value + "'");
  }
  return Ok{};
}

// Empty: none (the system's CAs). libcurl reads the file at each call; a path it cannot
// read would only show as every outgoing call failing, so start-up refuses it.
Status set_outgoing_ca_file(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  if (!s.value.empty() && !std::ifstream(s.value).good()) {
    return config_error(s.source + ": cannot read '" + s.value + "'");
  }
  c.outgoing_ca_file = s.value;
  return Ok{};
}

// A cap that can be turned off: a whole number, where 0 and "off" both mean no cap.
Status set_connections_per_ip(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  if (s.value == "off") {
    c.max_connections_per_ip = 0;
    return Ok{};
  }
  const auto v = parse_whole_number<size_t>(s.value);
  if (!v) return config_error(s.source + ": expected a whole number or off, got '" + s.value + "'");
  c.max_connections_per_ip = *v;
  return Ok{};
}

// One entry of the signing-key list: ID=SECRET.
Status add_signing_key(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  const std::string_view pair = s.value;
  const auto eq = pair.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == pair.size()) {
    return config_error(s.source + ": signing keys are ID=SECRET");
  }
  c.signing_keys.push_back({std::string(pair.substr(0, eq)), std::string(pair.substr(eq + 1)), {}});
  return Ok{};
}

// The file's [[signing_keys]] tables: id, secret and optionally the product slugs the
// key is bound to.
Status read_signing_key_tables(ServeConfig& c, const toml::node& node) {
  const auto* arr = node.as_array();
  if (arr == nullptr) return config_error("config signing_keys: each entry is a table");
  for (const auto& entry : *arr) {
    const auto* t = entry.as_table();
    if (t == nullptr) return config_error("config signing_keys: each entry is a table");
    for (const auto& [key, value] : *t) {
      if (key != "id" && key != "secret" && key != "products") {
        return config_error("config signing_keys: unknown key '" + std::string(key.str()) +
                            "' (a key has id, secret and products)");
      }
    }
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
    c.signing_keys.push_back(std::move(k));
  }
  return Ok{};
}

// Every key id must be one a request can name (docs/protocol.md §3.1), and name one key. The
// id is not echoed: a secret pasted without its "ID=" would be printed with it.
Status check_signing_key_ids(const ServeConfig& c) {
  const auto& keys = c.signing_keys;
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

// The files are read by main, which knows how to say that a key is unusable.
Status add_response_key(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  if (s.value.empty()) return config_error(s.source + ": expected a file path");
  c.response_keys.push_back(s.value);
  return Ok{};
}

// Parsed as CIDR blocks by main, which builds the TrustedProxies from them.
Status add_trusted_proxy(ServeConfig& c, const Sourced& s, const SettingSpec&) {
  c.trusted_proxies.push_back(s.value);
  return Ok{};
}

using K = SettingKind;

// clang-format off
const SettingSpec kSettings[] = {
    {.flag = "config", .env = "LICENSED_CONFIG", .toml = "", .value_name = "FILE",
     .help = "TOML configuration file"},
    {.flag = "listen", .env = "LICENSED_LISTEN", .toml = "listen", .value_name = "HOST:PORT",
     .help = "address to listen on (port 0 picks a free one)",
     .default_value = "127.0.0.1:8080", .set = set_listen},
    {.flag = "store", .env = "LICENSED_STORE", .toml = "store", .value_name = "URL",
     .help = "sqlite:PATH, or postgresql://... (a libpq connection URI)",
     .default_value = "sqlite:./licensed.db", .set = set_store, .secret = true},
    {.flag = "redis", .env = "LICENSED_REDIS", .toml = "redis", .value_name = "URL",
     .help = "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] for nonces, rate-limit buckets and "
             "dashboard sessions shared by several instances; empty: off",
     .default_help = "off: kept in this process", .set = set_endpoint<&ServeConfig::redis, parse_redis_url>,
     .secret = true},
    {.flag = "redis-timeout", .env = "LICENSED_REDIS_TIMEOUT", .toml = "redis_timeout",
     .kind = K::kDuration, .value_name = "MS",
     .help = "milliseconds a Redis connect or command may take",
     .default_value = "250", .max = kMaxRedisTimeoutMs, .set = set_number<&ServeConfig::redis_timeout_ms>},
    {.flag = "signing-key", .env = "LICENSED_SIGNING_KEYS", .toml = "signing_keys",
     .kind = K::kList, .value_name = "ID=SECRET",
     .help = "a key id and its secret for request signatures",
     .set = add_signing_key, .read_toml = read_signing_key_tables, .check = check_signing_key_ids,
     .secret = true, .reloads = true},
    {.flag = "response-key", .env = "LICENSED_RESPONSE_KEYS", .toml = "response_keys",
     .kind = K::kList, .value_name = "FILE",
     .help = "PKCS#8 PEM key file, Ed25519 or P-256 (ES256), that signs answers: per algorithm "
             "the first signs, all are published",
     .default_help = "the store's key, for each algorithm no file gives", .set = add_response_key},
    {.flag = "dashboard-url", .env = "LICENSED_DASHBOARD_URL", .toml = "dashboard_url",
     .value_name = "URL", .help = "where a customer frees a slot (the 409 hint)",
     .default_help = "none", .set = set_dashboard_url},
    {.flag = "dashboard-brand", .env = "LICENSED_DASHBOARD_BRAND", .toml = "dashboard_brand",
     .value_name = "SPEC",
     .help = "the vendor the customer dashboard shows: name=TEXT;logo=FILE (SVG, PNG, JPEG or "
             "WebP, at most 256 KiB);support=URL (https:, http: or mailto:), each optional",
     .default_help = "none: \"Licenses\", no logo or support link", .set = set_dashboard_brand},
    {.flag = "public-url", .env = "LICENSED_PUBLIC_URL", .toml = "public_url",
     .value_name = "URL",
     .help = "the server's address as stores and buyers reach it: the base of store inbound "
             "URLs",
     .default_help = "none (inbound URLs are paths)", .set = set_public_url},
    {.flag = "rate-limit-key", .env = "LICENSED_RATE_LIMIT_KEY", .toml = "rate_limit_key",
     .kind = K::kRateSpec, .value_name = "SPEC", .help = "per-license bucket: N/PERIOD or off",
     .default_value = "120/1m", .set = set_rate_spec<&ServeConfig::rate_limit_key>, .reloads = true},
    {.flag = "rate-limit-ip", .env = "LICENSED_RATE_LIMIT_IP", .toml = "rate_limit_ip",
     .kind = K::kRateSpec, .value_name = "SPEC", .help = "per-IP bucket: N/PERIOD or off",
     .default_value = "600/1m", .set = set_rate_spec<&ServeConfig::rate_limit_ip>, .reloads = true},
    {.flag = "rate-limit-trial", .env = "LICENSED_RATE_LIMIT_TRIAL", .toml = "rate_limit_trial",
     .kind = K::kRateSpec, .value_name = "SPEC",
     .help = "new trials per client IP (IPv6 per /64): N/PERIOD or off", .default_value = "10/1h",
     .set = set_rate_spec<&ServeConfig::rate_limit_trial>, .reloads = true},
    {.flag = "rate-limit-trial-product", .env = "LICENSED_RATE_LIMIT_TRIAL_PRODUCT",
     .toml = "rate_limit_trial_product", .kind = K::kRateSpec, .value_name = "SPEC",
     .help = "new trials per product across all IPs: N/PERIOD or off", .default_value = "500/1h",
     .set = set_rate_spec<&ServeConfig::rate_limit_trial_product>, .reloads = true},
    {.flag = "timestamp-window", .env = "LICENSED_TIMESTAMP_WINDOW", .toml = "timestamp_window",
     .kind = K::kDuration, .value_name = "SECONDS", .help = "accepted clock skew in seconds",
     .default_value = "300", .max = kMaxTimestampWindowSeconds,
     .set = set_number<&ServeConfig::timestamp_window>},
    {.flag = "offline-request-max-age", .env = "LICENSED_OFFLINE_REQUEST_MAX_AGE",
     .toml = "offline_request_max_age", .value_name = "DURATION",
     .help = "how old an offline activation request file may be (90s, 10m, 24h, 30d)",
     .default_value = "30d", .max = kMaxOfflineRequestSpanSeconds,
     .set = set_span<&ServeConfig::offline_request_max_age>},
    {.flag = "offline-request-max-skew", .env = "LICENSED_OFFLINE_REQUEST_MAX_SKEW",
     .toml = "offline_request_max_skew", .value_name = "DURATION",
     .help = "how far ahead of this server's clock an offline request file may be dated",
     .default_value = "24h", .max = kMaxOfflineRequestSpanSeconds,
     .set = set_span<&ServeConfig::offline_request_max_skew>},
    {.flag = "threads", .env = "LICENSED_THREADS", .toml = "threads", .kind = K::kNumber,
     .value_name = "N", .help = "network threads", .default_help = "one per core",
     .set = set_number<&ServeConfig::threads>},
    {.flag = "admin-listen", .env = "LICENSED_ADMIN_LISTEN", .toml = "admin_listen",
     .value_name = "HOST:PORT|off", .help = "address for /healthz, /readyz and /metrics, or off",
     .default_value = "127.0.0.1:9464",
     .default_help = "127.0.0.1:9464; port 0 when --listen has port 0", .set = set_admin_listen},
    {.flag = "max-connections", .env = "LICENSED_MAX_CONNECTIONS", .toml = "max_connections",
     .kind = K::kNumber, .value_name = "N",
     .help = "open connections at most (fewer when the descriptor limit allows fewer)",
     .default_value = "10000", .set = set_number<&ServeConfig::max_connections>},
    {.flag = "max-connections-per-ip", .env = "LICENSED_MAX_CONNECTIONS_PER_IP",
     .toml = "max_connections_per_ip", .value_name = "N|off",
     .help = "open connections from one client address at most, trusted proxies not counted; "
             "0 or off: no such cap",
     .default_value = "256", .set = set_connections_per_ip},
    {.flag = "header-timeout", .env = "LICENSED_HEADER_TIMEOUT", .toml = "header_timeout",
     .kind = K::kDuration, .value_name = "SECONDS",
     .help = "seconds a request's header may take to arrive", .default_value = "10",
     .max = kMaxHeaderTimeoutSeconds, .set = set_number<&ServeConfig::header_timeout>},
    {.flag = "idle-timeout", .env = "LICENSED_IDLE_TIMEOUT", .toml = "idle_timeout",
     .kind = K::kDuration, .value_name = "SECONDS",
     .help = "seconds an idle keep-alive connection is kept open", .default_value = "60",
     .max = kMaxIdleTimeoutSeconds, .set = set_number<&ServeConfig::idle_timeout>},
    {.flag = "max-queue", .env = "LICENSED_MAX_QUEUE", .toml = "max_queue", .kind = K::kNumber,
     .value_name = "N", .help = "store jobs queued or running at most before 503 1708",
     .default_value = "10000", .set = set_number<&ServeConfig::max_queue>},
    {.flag = "store-pool-size", .env = "LICENSED_STORE_POOL_SIZE", .toml = "store_pool_size",
     .kind = K::kNumber, .value_name = "N", .help = "PostgreSQL connections at most",
     .default_help = "the URL's pool_size, or 8 (twice the cores, 2 to 8, for a PostgreSQL on this machine)", .set = set_number<&ServeConfig::store_pool_size>},
    {.flag = "max-nonces", .env = "LICENSED_MAX_NONCES", .toml = "max_nonces", .kind = K::kNumber,
     .value_name = "N", .help = "nonces remembered in memory at most, without --redis",
     .default_value = "20000000", .set = set_number<&ServeConfig::max_nonces>},
    {.flag = "log-format", .env = "LICENSED_LOG_FORMAT", .toml = "log_format",
     .value_name = "text|json", .help = "json: one JSON object a line", .default_value = "text",
     .set = set_log_format},
    {.flag = "log-level", .env = "LICENSED_LOG_LEVEL", .toml = "log_level",
     .value_name = "LEVEL", .help = "the least severe lines logged once the server is ready (the lines up to the "
             "ready line always are): debug, info, warn or error",
     .default_value = "info", .set = set_log_level, .reloads = true},
    {.flag = "log-file", .env = "LICENSED_LOG_FILE", .toml = "log_file", .value_name = "FILE",
     .help = "append log lines to this file instead of standard output; SIGHUP reopens it "
             "(after logrotate moved it)",
     .default_help = "standard output", .set = set_log_file},
    {.flag = "access-log", .env = "LICENSED_ACCESS_LOG", .toml = "access_log", .kind = K::kSwitch,
     .help = "log one line per request: request id, route, status, latency, key id and masked "
             "license key",
     .default_value = "false", .set = set_switch<&ServeConfig::access_log>},
    {.flag = "sentry-dsn", .env = "LICENSED_SENTRY_DSN", .toml = "sentry_dsn", .value_name = "DSN",
     .help = "report 500s to Sentry: http://PUBLIC_KEY@HOST[:PORT]/PROJECT_ID; empty: off",
     .default_help = "off", .set = set_endpoint<&ServeConfig::sentry_dsn, parse_sentry_dsn>,
     .secret = true},
    // Every outgoing connection: store API calls now, webhooks later (docs/protocol.md §24).
    {.flag = "webhook-allow-http", .env = "LICENSED_WEBHOOK_ALLOW_HTTP",
     .toml = "webhook_allow_http", .kind = K::kSwitch,
     .help = "allow plain http:// for outgoing connections (webhooks, store API calls)",
     .default_value = "false", .set = set_switch<&ServeConfig::webhook_allow_http>},
    {.flag = "webhook-allow-private", .env = "LICENSED_WEBHOOK_ALLOW_PRIVATE",
     .toml = "webhook_allow_private", .kind = K::kSwitch,
     .help = "allow outgoing connections to loopback, private, link-local and reserved "
             "addresses",
     .default_value = "false", .set = set_switch<&ServeConfig::webhook_allow_private>},
    {.flag = "outgoing-ca-file", .env = "LICENSED_OUTGOING_CA_FILE", .toml = "outgoing_ca_file",
     .value_name = "FILE",
     .help = "PEM bundle of the CAs outgoing connections trust, instead of the system's",
     .default_help = "the system's CAs", .set = set_outgoing_ca_file},
    // No flag: it has only ever been read from the environment and the file (the
    // README shows it in TOML; docs/protocol.md §11), and a new flag would be new behaviour.
    {.flag = "", .env = "LICENSED_TRUSTED_PROXIES", .toml = "trusted_proxies", .kind = K::kList,
     .value_name = "CIDR", .help = "addresses whose X-Forwarded-For is believed",
     .default_help = "none", .set = add_trusted_proxy, .reloads = true},
};
// clang-format on

}  // namespace

Error config_error(std::string message) {
  return Error::invalid_argument("config", std::move(message));
}

std::span<const SettingSpec> serve_settings() {
  return kSettings;
}

const SettingSpec* find_setting(std::string_view flag) {
  for (const auto& s : kSettings) {
    if (!flag.empty() && s.flag == flag) return &s;
  }
  return nullptr;
}

std::string env_name_of_flag(std::string_view flag) {
  std::string name = "LICENSED_";
  for (const char ch : flag) {
    name += ch == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  return name;
}

SecretFileNames secret_file_names(const SettingSpec& s) {
  SecretFileNames names;
  if (!s.flag.empty()) names.flag = std::string(s.flag) + "-file";
  names.env.push_back(std::string(s.env) + "_FILE");
  if (s.kind == SettingKind::kList && !s.flag.empty()) {
    names.env.push_back(env_name_of_flag(s.flag) + "_FILE");
  }
  if (!s.toml.empty()) {
    names.toml = std::string(s.toml) + "_file";
    names.credential = std::string(s.toml);
  }
  return names;
}

std::vector<std::string> known_environment_names() {
  // Read by `licensed admin store send-sample`, never by serve; an operator may keep it
  // in the environment both run in.
  std::vector<std::string> names{"LICENSED_STORE_SECRET"};
  for (const auto& s : kSettings) {
    names.emplace_back(s.env);
    if (s.kind == SettingKind::kList && !s.flag.empty()) names.push_back(env_name_of_flag(s.flag));
    if (!s.secret) continue;
    for (auto& name : secret_file_names(s).env) names.push_back(std::move(name));
  }
  return names;
}

std::vector<std::string> known_toml_keys() {
  std::vector<std::string> keys;
  for (const auto& s : kSettings) {
    if (s.toml.empty()) continue;
    keys.emplace_back(s.toml);
    if (s.secret) keys.push_back(secret_file_names(s).toml);
  }
  return keys;
}

std::string where_to_set(const SettingSpec& s) {
  std::string out;
  if (!s.flag.empty()) {
    out = "--" + std::string(s.flag) + " " + std::string(s.value_name) + ", ";
  }
  out += std::string(s.env);
  if (s.toml.empty()) return out;
  const std::string key =
      s.read_toml != nullptr ? "[[" + std::string(s.toml) + "]]" : std::string(s.toml);
  return out + " or " + key + " in the config file";
}

}  // namespace licensed
