// docs/protocol.md §18: flags beat the environment, which beats the TOML file, which beats the
// defaults; a list given at a higher level replaces the lower one.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class Config : public BlackboxTest {
 protected:
  std::string Toml(const std::string& extra) const {
    return "store = \"" + store() + "\"\n" + extra;
  }
  // Config file only, no flags beyond --config.
  ServerOptions FromFile(const std::string& toml) {
    ServerOptions o;
    o.listen_flag = false;
    o.store_flag = false;
    o.signing_key_flag = false;
    o.rate_limits_off = false;
    o.args = {"--config", dir().WriteFile("licensed.toml", toml).string()};
    return o;
  }
  static std::string KeyTable(const SigningKey& key) {
    return "\n[[signing_keys]]\nid = \"" + key.id + "\"\nsecret = \"" + key.secret + "\"\n";
  }
  HttpResponse StatusDated(const std::string& license, std::int64_t offset) const {
    SignOptions o;
    o.timestamp = UnixNow() + offset;
    return Call("status", Body(license), kPluginKey, o);
  }
};

constexpr const char* kBase =
    "listen = \"127.0.0.1:0\"\nrate_limit_ip = \"off\"\nrate_limit_key = \"off\"\n";

// --listen HOST:PORT takes a host name too: localhost is resolved (IPv4 first), and the
// ready line names the address it became.
TEST_F(Config, ListenTakesAHostNameSuchAsLocalhost) {
  ServerOptions o;
  o.listen_flag = false;
  o.args = {"--listen", "localhost:0"};
  Start(o);
  EXPECT_NE(server().ready_line().find("listening on 127.0.0.1:"), std::string::npos)
      << server().ready_line();
  EXPECT_OK(Status(NewLicense(1)));
}

TEST_F(Config, TomlFileAloneConfiguresTheServer) {
  Start(FromFile(Toml(std::string(kBase) + "timestamp_window = 10\n" +
                      "dashboard_url = \"https://example.com/account/activations\"\n" +
                      KeyTable(kPluginKey))));
  const std::string license = NewLicense(0);
  EXPECT_OK(Status(license));
  EXPECT_API_ERROR(StatusDated(license, 20), 401, 1701, "STALE_TIMESTAMP");
  const HttpResponse r = Activate(license, "machine-0001");
  EXPECT_API_ERROR(r, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  EXPECT_EQ(Str(BodyJson(r), "dashboardUrl"), "https://example.com/account/activations");
}

TEST_F(Config, ConfigFileNamedByTheEnvironment) {
  ServerOptions o =
      FromFile(Toml(std::string(kBase) + "timestamp_window = 10\n" + KeyTable(kPluginKey)));
  o.env = {{"LICENSED_CONFIG", o.args.at(1)}};
  o.args.clear();
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  EXPECT_API_ERROR(StatusDated(license, 20), 401, 1701, "STALE_TIMESTAMP");
}

TEST_F(Config, TomlBeatsDefaults) {
  // Default window 300 would accept +20 s.
  Start(FromFile(Toml(std::string(kBase) + "timestamp_window = 10\n" + KeyTable(kPluginKey))));
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(StatusDated(license, 20), 401, 1701, "STALE_TIMESTAMP");
}

TEST_F(Config, EnvironmentBeatsToml) {
  ServerOptions o =
      FromFile(Toml(std::string(kBase) + "timestamp_window = 10\n" + KeyTable(kPluginKey)));
  o.env = {{"LICENSED_TIMESTAMP_WINDOW", "1000"}};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(StatusDated(license, 500));
}

TEST_F(Config, FlagBeatsEnvironment) {
  ServerOptions o;
  o.env = {{"LICENSED_TIMESTAMP_WINDOW", "1000"}};
  o.args = {"--timestamp-window", "10"};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(StatusDated(license, 20), 401, 1701, "STALE_TIMESTAMP");
  EXPECT_OK(StatusDated(license, 5));
}

TEST_F(Config, FlagBeatsToml) {
  ServerOptions o =
      FromFile(Toml(std::string(kBase) + "timestamp_window = 1000\n" + KeyTable(kPluginKey)));
  o.args.insert(o.args.end(), {"--timestamp-window", "10"});
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(StatusDated(license, 20), 401, 1701, "STALE_TIMESTAMP");
}

TEST_F(Config, RateLimitEnvironmentBeatsTomlAndFlagBeatsEnvironment) {
  const std::string toml =
      Toml("listen = \"127.0.0.1:0\"\nrate_limit_ip = \"1/1m\"\nrate_limit_key = \"off\"\n" +
           KeyTable(kPluginKey));
  {
    SCOPED_TRACE("env off over TOML 1/1m");
    ServerOptions o = FromFile(toml);
    o.env = {{"LICENSED_RATE_LIMIT_IP", "off"}};
    Start(o);
    const std::string license = NewLicense(1);
    for (int i = 0; i < 3; ++i) EXPECT_OK(Status(license));
    Stop();
  }
  {
    SCOPED_TRACE("flag 1/1m over env off");
    ServerOptions o = FromFile(toml);
    o.env = {{"LICENSED_RATE_LIMIT_IP", "off"}};
    o.args.insert(o.args.end(), {"--rate-limit-ip", "1/1m"});
    Start(o);
    const std::string license = NewLicense(1);
    EXPECT_OK(Status(license));
    EXPECT_RATE_LIMITED(Status(license), "ip", 60);
  }
}

TEST_F(Config, EnvironmentSigningKeysReplaceTomlKeys) {
  ServerOptions o = FromFile(Toml(std::string(kBase) + KeyTable(kPluginKey)));
  o.env = {{"LICENSED_SIGNING_KEYS", kCiKey.id + "=" + kCiKey.secret}};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Call("status", Body(license), kCiKey));
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey), "unknown_key");
}

TEST_F(Config, FlagSigningKeysReplaceEnvironmentKeys) {
  ServerOptions o;
  o.signing_key_flag = false;
  o.env = {{"LICENSED_SIGNING_KEYS", kPluginKey.id + "=" + kPluginKey.secret}};
  o.args = {"--signing-key", kCiKey.id + "=" + kCiKey.secret};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Call("status", Body(license), kCiKey));
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey), "unknown_key");
}

TEST_F(Config, EnvironmentAloneConfiguresListenStoreAndSeveralKeys) {
  ServerOptions o;
  o.listen_flag = false;
  o.store_flag = false;
  o.signing_key_flag = false;
  o.rate_limits_off = false;
  o.env = {{"LICENSED_LISTEN", "127.0.0.1:0"},
           {"LICENSED_STORE", store()},
           {"LICENSED_SIGNING_KEYS",
            kPluginKey.id + "=" + kPluginKey.secret + "," + kCiKey.id + "=" + kCiKey.secret},
           {"LICENSED_DASHBOARD_URL", "https://example.com/env"},
           {"LICENSED_RATE_LIMIT_IP", "off"},
           {"LICENSED_RATE_LIMIT_KEY", "off"}};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Call("activate", Body(license, "machine-0001"), kPluginKey));
  const HttpResponse r = Call("activate", Body(license, "machine-0002"), kCiKey);
  EXPECT_API_ERROR(r, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  EXPECT_EQ(Str(BodyJson(r), "dashboardUrl"), "https://example.com/env");
}

}  // namespace
}  // namespace bb
