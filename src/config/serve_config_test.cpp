// Precedence and validation of the observability, Redis, signing-key and per-address
// connection cap settings, and the bounds of the duration settings; the others are
// covered by the black-box Config suite.
#include "config/serve_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace licensed {
namespace {

EnvLookup Env(const std::map<std::string, std::string>& vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class TomlFile {
 public:
  explicit TomlFile(const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("serve_config_test_" + std::to_string(::getpid()) + ".toml")) {
    std::ofstream(path_) << text;
  }
  ~TomlFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(ServeConfigLogFormat, DefaultIsText) {
  auto c = resolve_serve_config({}, Env({}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->log_format, LogFormat::kText);
  EXPECT_FALSE(c->sentry_dsn.has_value());
}

TEST(ServeConfigLogFormat, FlagBeatsEnvironmentBeatsFile) {
  TomlFile file("log_format = \"json\"\n");
  ServeFlags flags;
  flags.set("config", file.path());
  {
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->log_format, LogFormat::kJson);
  }
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_LOG_FORMAT", "text"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->log_format, LogFormat::kText);
  }
  flags.set("log-format", "json");
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_LOG_FORMAT", "text"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->log_format, LogFormat::kJson);
  }
}

TEST(ServeConfigLogFormat, UnknownValueNamesItsSource) {
  ServeFlags flags;
  flags.set("log-format", "xml");
  auto c = resolve_serve_config(flags, Env({}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("--log-format"), std::string::npos) << c.error().message;
  auto e = resolve_serve_config({}, Env({{"LICENSED_LOG_FORMAT", "JSON"}}));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("LICENSED_LOG_FORMAT"), std::string::npos);
}

// A numeric setting given as 3 in the file, then 5 in the environment variable `env`
// (which wins), then 7 by the flag `set_flag` sets (which wins over both).
void ExpectFileThenEnvironmentThenFlag(const std::string& file_key, const std::string& env,
                                       const std::function<void(ServeFlags&)>& set_flag,
                                       const std::function<size_t(const ServeConfig&)>& get) {
  TomlFile file(file_key + " = 3\n");
  ServeFlags flags;
  flags.set("config", file.path());
  auto from_file = resolve_serve_config(flags, Env({}));
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  EXPECT_EQ(get(from_file.value()), 3u);
  auto from_env = resolve_serve_config(flags, Env({{env, "5"}}));
  ASSERT_TRUE(from_env.ok()) << from_env.error().message;
  EXPECT_EQ(get(from_env.value()), 5u);
  set_flag(flags);
  auto from_flag = resolve_serve_config(flags, Env({{env, "5"}}));
  ASSERT_TRUE(from_flag.ok()) << from_flag.error().message;
  EXPECT_EQ(get(from_flag.value()), 7u);
}

TEST(ServeConfigStorePoolSize, UnsetByDefaultThenFileEnvironmentFlagInOrder) {
  auto c = resolve_serve_config({}, Env({}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->store_pool_size, 0u);  // the URL's pool_size, or 8
  ExpectFileThenEnvironmentThenFlag(
      "store_pool_size", "LICENSED_STORE_POOL_SIZE",
      [](ServeFlags& f) { f.set("store-pool-size", "7"); },
      [](const ServeConfig& r) { return r.store_pool_size; });
  EXPECT_FALSE(resolve_serve_config({}, Env({{"LICENSED_STORE_POOL_SIZE", "0"}})).ok());
}

TEST(ServeConfigMaxConnectionsPerIp, Is256ByDefaultThenFileEnvironmentFlagInOrder) {
  auto c = resolve_serve_config({}, Env({}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->max_connections_per_ip, 256u);
  ExpectFileThenEnvironmentThenFlag(
      "max_connections_per_ip", "LICENSED_MAX_CONNECTIONS_PER_IP",
      [](ServeFlags& f) { f.set("max-connections-per-ip", "7"); },
      [](const ServeConfig& r) { return r.max_connections_per_ip; });
}

TEST(ServeConfigMaxConnectionsPerIp, OffOrZeroMeansNoCap) {
  ServeFlags flags;
  flags.set("max-connections-per-ip", "off");
  auto off = resolve_serve_config(flags, Env({}));
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off->max_connections_per_ip, 0u);
  TomlFile file("max_connections_per_ip = 0\n");
  ServeFlags from_file;
  from_file.set("config", file.path());
  auto zero = resolve_serve_config(from_file, Env({}));
  ASSERT_TRUE(zero.ok()) << zero.error().message;
  EXPECT_EQ(zero->max_connections_per_ip, 0u);
}

TEST(ServeConfigMaxConnectionsPerIp, AnythingElseNamesItsSource) {
  for (const char* bad : {"-1", "many", "", "12x"}) {
    auto c = resolve_serve_config({}, Env({{"LICENSED_MAX_CONNECTIONS_PER_IP", bad}}));
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.error().message.find("LICENSED_MAX_CONNECTIONS_PER_IP: expected a whole number "
                                     "or off"),
              std::string::npos)
        << c.error().message;
  }
}

TEST(ServeConfigSentryDsn, FlagBeatsEnvironmentBeatsFile) {
  TomlFile file("sentry_dsn = \"http://filekey@127.0.0.1:1/1\"\n");
  ServeFlags flags;
  flags.set("config", file.path());
  {
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_TRUE(c->sentry_dsn);
    EXPECT_EQ(c->sentry_dsn->public_key, "filekey");
  }
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_SENTRY_DSN", "http://envkey@h/2"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->sentry_dsn->public_key, "envkey");
  }
  {
    // An empty value at a higher level turns reporting off.
    auto c = resolve_serve_config(flags, Env({{"LICENSED_SENTRY_DSN", ""}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_FALSE(c->sentry_dsn);
  }
  flags.set("sentry-dsn", "http://flagkey@h:3/3");
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_SENTRY_DSN", "http://envkey@h/2"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->sentry_dsn->public_key, "flagkey");
    EXPECT_EQ(c->sentry_dsn->port, 3);
  }
}

TEST(ServeConfigPublicUrl, NoneByDefaultThenFileEnvironmentFlagInOrderWithoutATrailingSlash) {
  EXPECT_FALSE(resolve_serve_config({}, Env({}))->public_url);
  TomlFile file("public_url = \"https://file.example.com/\"\n");
  ServeFlags flags;
  flags.set("config", file.path());
  EXPECT_EQ(resolve_serve_config(flags, Env({}))->public_url, "https://file.example.com");
  EXPECT_EQ(resolve_serve_config(flags, Env({{"LICENSED_PUBLIC_URL", "http://env.test:8080/lic"}}))
                ->public_url,
            "http://env.test:8080/lic");
  // An empty value at a higher level undoes the file's: inbound URLs are paths again.
  EXPECT_FALSE(resolve_serve_config(flags, Env({{"LICENSED_PUBLIC_URL", ""}}))->public_url);
  flags.set("public-url", "https://flag.example.com//");
  EXPECT_EQ(
      resolve_serve_config(flags, Env({{"LICENSED_PUBLIC_URL", "http://env.test"}}))->public_url,
      "https://flag.example.com");
}

TEST(ServeConfigPublicUrl, AnythingButAnHttpOrHttpsUrlWithAHostNamesItsSource) {
  for (const char* bad : {"example.com", "ftp://example.com", "https://", "https:///path",
                          "https://example.com/?q=1", "https://exa mple.com"}) {
    ServeFlags flags;
    flags.set("public-url", bad);
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.error().message.find("--public-url"), std::string::npos) << c.error().message;
  }
}

TEST(ServeConfigSentryDsn, BadDsnNamesItsSourceButNotItsKey) {
  ServeFlags flags;
  flags.set("sentry-dsn", "http://topsecretkey@127.0.0.1:99999/42");
  auto c = resolve_serve_config(flags, Env({}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("--sentry-dsn"), std::string::npos) << c.error().message;
  EXPECT_EQ(c.error().message.find("topsecretkey"), std::string::npos) << c.error().message;
  auto e = resolve_serve_config({}, Env({{"LICENSED_SENTRY_DSN", "https://topsecretkey@h/1"}}));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("LICENSED_SENTRY_DSN"), std::string::npos);
  EXPECT_EQ(e.error().message.find("topsecretkey"), std::string::npos);
}

TEST(ServeConfigResponseKeys, FlagListBeatsEnvironmentListBeatsFileList) {
  TomlFile file("response_keys = [\"file-a.pem\", \"file-b.pem\"]\n");
  ServeFlags flags;
  flags.set("config", file.path());
  {
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->response_keys, (std::vector<std::string>{"file-a.pem", "file-b.pem"}));
  }
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_RESPONSE_KEYS", "env-a.pem,env-b.pem"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->response_keys, (std::vector<std::string>{"env-a.pem", "env-b.pem"}));
  }
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_RESPONSE_KEY", "single.pem"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->response_keys, (std::vector<std::string>{"single.pem"}));
  }
  flags.set("response-key", std::vector<std::string>{"flag.pem"});
  {
    auto c = resolve_serve_config(flags, Env({{"LICENSED_RESPONSE_KEYS", "env-a.pem"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->response_keys, (std::vector<std::string>{"flag.pem"}));
  }
}

TEST(ServeConfigResponseKeys, NoneConfiguredMeansTheStoredKey) {
  auto c = resolve_serve_config({}, Env({}));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->response_keys.empty());
}

TEST(ServeConfigResponseKeys, EmptyEntriesAndNonListsAreRefusedWithTheirSource) {
  auto e = resolve_serve_config({}, Env({{"LICENSED_RESPONSE_KEYS", "a.pem,,b.pem"}}));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("LICENSED_RESPONSE_KEYS"), std::string::npos);
  TomlFile file("response_keys = \"a.pem\"\n");
  ServeFlags flags;
  flags.set("config", file.path());
  auto f = resolve_serve_config(flags, Env({}));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("response_keys"), std::string::npos);
}

TEST(ServeConfigRedis, OffByDefaultAndTheFlagBeatsEnvironmentBeatsFile) {
  {
    auto c = resolve_serve_config({}, Env({}));
    ASSERT_TRUE(c.ok());
    EXPECT_FALSE(c->redis);
    EXPECT_EQ(c->redis_timeout_ms, 250);
  }
  TomlFile file("redis = \"redis://file-host:6380/1\"\nredis_timeout = 100\n");
  ServeFlags flags;
  flags.set("config", file.path());
  {
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_TRUE(c->redis);
    EXPECT_EQ(c->redis->host, "file-host");
    EXPECT_EQ(c->redis->port, 6380);
    EXPECT_EQ(c->redis->db, 1);
    EXPECT_EQ(c->redis_timeout_ms, 100);
  }
  {
    auto c = resolve_serve_config(
        flags, Env({{"LICENSED_REDIS", "redis://env-host"}, {"LICENSED_REDIS_TIMEOUT", "400"}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->redis->host, "env-host");
    EXPECT_EQ(c->redis_timeout_ms, 400);
  }
  {
    // An empty value turns a file's Redis off.
    auto c = resolve_serve_config(flags, Env({{"LICENSED_REDIS", ""}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_FALSE(c->redis);
  }
  flags.set("redis", "redis://flag-host:7000");
  flags.set("redis-timeout", "50");
  auto c = resolve_serve_config(flags, Env({{"LICENSED_REDIS", "redis://env-host"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->redis->host, "flag-host");
  EXPECT_EQ(c->redis->port, 7000);
  EXPECT_EQ(c->redis_timeout_ms, 50);
}

TEST(ServeConfigRedis, BadUrlNamesItsSourceButNotItsPassword) {
  auto c = resolve_serve_config({}, Env({{"LICENSED_REDIS", "redis://:hunter2@host:notaport"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("LICENSED_REDIS"), std::string::npos) << c.error().message;
  EXPECT_EQ(c.error().message.find("hunter2"), std::string::npos) << c.error().message;
  auto zero = resolve_serve_config({}, Env({{"LICENSED_REDIS_TIMEOUT", "0"}}));
  EXPECT_FALSE(zero.ok());
}

}  // namespace
}  // namespace licensed

namespace licensed {
namespace {

std::vector<std::string> KeyPairs(const ServeConfig& c) {
  std::vector<std::string> ids;
  for (const auto& k : c.signing_keys) ids.push_back(k.id + "=" + k.secret);
  return ids;
}

TEST(ServeConfigSigningKeys, EitherEnvironmentNameHoldsACommaSeparatedListBlanksAllowed) {
  const ServeFlags flags;
  for (const char* name : {"LICENSED_SIGNING_KEYS", "LICENSED_SIGNING_KEY"}) {
    auto c = resolve_serve_config(flags, Env({{name, "plugin-a=s1, plugin-b=s2 ,c.3=s3"}}));
    ASSERT_TRUE(c.ok()) << name << ": " << c.error().message;
    EXPECT_EQ(KeyPairs(c.value()),
              (std::vector<std::string>{"plugin-a=s1", "plugin-b=s2", "c.3=s3"}))
        << name;
  }
  // The spec's name wins when both are set.
  auto both = resolve_serve_config(
      flags, Env({{"LICENSED_SIGNING_KEYS", "a=1"}, {"LICENSED_SIGNING_KEY", "b=2"}}));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(KeyPairs(both.value()), std::vector<std::string>{"a=1"});
}

TEST(ServeConfigSigningKeys, AnIdNoRequestCouldNameOrGivenTwiceIsRefused) {
  ServeFlags flags;
  for (const std::vector<std::string>& keys : std::vector<std::vector<std::string>>{
           {"bad id=x"}, {"a/b=x"}, {std::string(65, 'k') + "=x"}, {"dupe-id=x", "dupe-id=y"}}) {
    flags.set("signing-key", keys);
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_FALSE(c.ok()) << keys.front();
    EXPECT_NE(c.error().message.find("signing key"), std::string::npos) << c.error().message;
    EXPECT_EQ(c.error().message.find(keys.back().substr(0, keys.back().find('='))),
              std::string::npos)
        << "the id is not echoed (it may be a secret pasted without ID=): " << c.error().message;
  }
  const TomlFile file("[[signing_keys]]\nid = \"has space\"\nsecret = \"s\"\n");
  flags.set("signing-key", std::vector<std::string>{});
  flags.set("config", file.path());
  EXPECT_FALSE(resolve_serve_config(flags, Env({})).ok());
  flags.set("signing-key", std::vector<std::string>{std::string(64, 'k') + "=x"});
  EXPECT_TRUE(resolve_serve_config(flags, Env({})).ok());
}

// A duration is added to Unix milliseconds (a nonce's expiry is now plus two windows):
// an absurd one would overflow, so each is bounded, at every level, naming the setting.
TEST(ServeConfigDurations, EachIsRefusedBeyondItsBoundNamingTheSetting) {
  struct Case {
    std::string env_name;
    std::string file_key;
    int64_t max;
    std::function<int64_t(const ServeConfig&)> read;
  };
  const std::vector<Case> cases = {
      {"LICENSED_TIMESTAMP_WINDOW", "timestamp_window", 86'400,
       [](const ServeConfig& c) { return c.timestamp_window; }},
      {"LICENSED_REDIS_TIMEOUT", "redis_timeout", 60'000,
       [](const ServeConfig& c) { return c.redis_timeout_ms; }},
      {"LICENSED_HEADER_TIMEOUT", "header_timeout", 3'600,
       [](const ServeConfig& c) { return c.header_timeout; }},
      {"LICENSED_IDLE_TIMEOUT", "idle_timeout", 86'400,
       [](const ServeConfig& c) { return c.idle_timeout; }},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.env_name);
    auto at_max = resolve_serve_config({}, Env({{k.env_name, std::to_string(k.max)}}));
    ASSERT_TRUE(at_max.ok()) << at_max.error().message;
    EXPECT_EQ(k.read(at_max.value()), k.max);
    EXPECT_TRUE(resolve_serve_config({}, Env({{k.env_name, "1"}})).ok());
    for (const std::string& v : {std::to_string(k.max + 1), std::string("4600000000000000")}) {
      auto over = resolve_serve_config({}, Env({{k.env_name, v}}));
      ASSERT_FALSE(over.ok()) << v;
      EXPECT_NE(over.error().message.find(k.env_name + ": at most " + std::to_string(k.max)),
                std::string::npos)
          << over.error().message;
    }
    const TomlFile file(k.file_key + " = " + std::to_string(k.max + 1) + "\n");
    ServeFlags flags;
    flags.set("config", file.path());
    auto from_file = resolve_serve_config(flags, Env({}));
    ASSERT_FALSE(from_file.ok());
    EXPECT_NE(from_file.error().message.find("config " + k.file_key), std::string::npos)
        << from_file.error().message;
  }
  ServeFlags flags;
  flags.set("timestamp-window", "4600000000000000");
  auto flagged = resolve_serve_config(flags, Env({}));
  ASSERT_FALSE(flagged.ok());
  EXPECT_NE(flagged.error().message.find("--timestamp-window: at most 86400"), std::string::npos)
      << flagged.error().message;
}

}  // namespace
}  // namespace licensed

namespace licensed {
namespace {

TEST(ServeConfigOutgoing, TheWebhookSwitchesAreOffByDefaultThenFileEnvironmentFlagInOrder) {
  TomlFile file("webhook_allow_http = true\nwebhook_allow_private = true\n");
  ServeFlags flags;
  flags.set("config", file.path());
  auto from_file = resolve_serve_config(flags, Env({}));
  ASSERT_TRUE(from_file.ok()) << from_file.error().message;
  EXPECT_TRUE(from_file->webhook_allow_http);
  EXPECT_TRUE(from_file->webhook_allow_private);
  // An empty variable turns off what the file turned on; "0" and "false" too.
  auto env_off = resolve_serve_config(
      flags, Env({{"LICENSED_WEBHOOK_ALLOW_HTTP", ""}, {"LICENSED_WEBHOOK_ALLOW_PRIVATE", "0"}}));
  ASSERT_TRUE(env_off.ok()) << env_off.error().message;
  EXPECT_FALSE(env_off->webhook_allow_http);
  EXPECT_FALSE(env_off->webhook_allow_private);
  flags.set("webhook-allow-private", "true");
  auto flag_on = resolve_serve_config(flags, Env({{"LICENSED_WEBHOOK_ALLOW_PRIVATE", "false"}}));
  ASSERT_TRUE(flag_on.ok()) << flag_on.error().message;
  EXPECT_TRUE(flag_on->webhook_allow_private);
  EXPECT_TRUE(flag_on->webhook_allow_http);  // still the file's
}

TEST(ServeConfigOutgoing, ASwitchTakesNoValueOnTheCommandLine) {
  CLI::App app;
  ServeFlags flags;
  add_serve_flags(app, flags);
  const TomlFile ca("not a certificate, but readable");
  app.parse("--outgoing-ca-file " + ca.path() + " --webhook-allow-http", false);
  auto c = resolve_serve_config(flags, Env({}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->webhook_allow_http);
  EXPECT_FALSE(c->webhook_allow_private);
  EXPECT_EQ(c->outgoing_ca_file, ca.path());
}

TEST(ServeConfigOutgoing, ACaFileThatCannotBeReadNamesItsSource) {
  auto c = resolve_serve_config(
      {}, Env({{"LICENSED_OUTGOING_CA_FILE", "/nonexistent/licensed-test-ca.pem"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("LICENSED_OUTGOING_CA_FILE: cannot read"), std::string::npos)
      << c.error().message;
  // Empty: the system's CAs, so an environment can undo a file's.
  auto empty = resolve_serve_config({}, Env({{"LICENSED_OUTGOING_CA_FILE", ""}}));
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->outgoing_ca_file.empty());
}

TEST(ServeConfigOutgoing, ASwitchValueThatIsNotABooleanNamesItsSource) {
  auto c = resolve_serve_config({}, Env({{"LICENSED_WEBHOOK_ALLOW_PRIVATE", "yes please"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("LICENSED_WEBHOOK_ALLOW_PRIVATE"), std::string::npos)
      << c.error().message;
  TomlFile file("webhook_allow_http = \"maybe\"\n");
  ServeFlags flags;
  flags.set("config", file.path());
  auto f = resolve_serve_config(flags, Env({}));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("config webhook_allow_http"), std::string::npos)
      << f.error().message;
}

}  // namespace
}  // namespace licensed

namespace licensed {
namespace {

// docs/protocol.md §21.1 and §21: the offline request limits, as DURATIONs.
TEST(ServeConfigOfflineRequestLimits, AreThirtyDaysAndADayByDefault) {
  auto c = resolve_serve_config({}, Env({}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->offline_request_max_age, 30 * 86400);
  EXPECT_EQ(c->offline_request_max_skew, 86400);
}

TEST(ServeConfigOfflineRequestLimits, FileThenEnvironmentThenFlagEachInAnyUnit) {
  struct Case {
    const char* flag;
    const char* env;
    const char* toml;
    int64_t ServeConfig::*member;
  };
  for (const Case& k : {Case{"offline-request-max-age", "LICENSED_OFFLINE_REQUEST_MAX_AGE",
                             "offline_request_max_age", &ServeConfig::offline_request_max_age},
                        Case{"offline-request-max-skew", "LICENSED_OFFLINE_REQUEST_MAX_SKEW",
                             "offline_request_max_skew", &ServeConfig::offline_request_max_skew}}) {
    SCOPED_TRACE(k.flag);
    TomlFile file(std::string(k.toml) + " = \"3d\"\n");
    ServeFlags flags;
    flags.set("config", file.path());
    auto from_file = resolve_serve_config(flags, Env({}));
    ASSERT_TRUE(from_file.ok()) << from_file.error().message;
    EXPECT_EQ(from_file.value().*k.member, 3 * 86400);
    auto from_env = resolve_serve_config(flags, Env({{k.env, "5h"}}));
    ASSERT_TRUE(from_env.ok()) << from_env.error().message;
    EXPECT_EQ(from_env.value().*k.member, 5 * 3600);
    flags.set(k.flag, "7m");
    auto from_flag = resolve_serve_config(flags, Env({{k.env, "5h"}}));
    ASSERT_TRUE(from_flag.ok()) << from_flag.error().message;
    EXPECT_EQ(from_flag.value().*k.member, 7 * 60);
    flags.set(k.flag, "90");
    EXPECT_EQ(resolve_serve_config(flags, Env({})).value().*k.member, 90) << "bare seconds";
  }
}

TEST(ServeConfigOfflineRequestLimits, ZeroUnknownUnitsAndTooLongAreRefusedNamingTheSource) {
  for (const char* bad : {"0d", "3w", "d", "-1h", "3651d", "1.5h"}) {
    SCOPED_TRACE(bad);
    ServeFlags flags;
    flags.set("offline-request-max-age", bad);
    auto c = resolve_serve_config(flags, Env({}));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("--offline-request-max-age"), std::string::npos)
        << c.error().message;
  }
}

}  // namespace
}  // namespace licensed
