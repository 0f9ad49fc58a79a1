// Issue 24 items 5 and 6 on the real binary: configuration mistakes refuse the start
// naming what is wrong, `serve --check-config`, secrets read from files and systemd
// credentials, admin commands whose standard output is only their answer, SIGHUP
// reloading signing keys, rate limits and trusted proxies and reopening --log-file, and
// the access log.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/fixture.h"
#include "support/free_port.h"

namespace bb {
namespace {

class OperationsConfig : public BlackboxTest {
 protected:
  // The server's flags but the signing key, which the config file gives.
  ServerOptions FromFile(const std::string& path) const {
    ServerOptions o;
    o.signing_key_flag = false;
    o.args = {"--config", path};
    return o;
  }
  static std::string KeyTable(const SigningKey& key) {
    return "[[signing_keys]]\nid = \"" + key.id + "\"\nsecret = \"" + key.secret + "\"\n";
  }
  // Sends SIGHUP and waits for the server to say it reloaded (or refused to).
  void Hangup(const std::string& expected_line) {
    const size_t before = CountOf(server().log(), expected_line);
    ASSERT_EQ(::kill(server().pid(), SIGHUP), 0);
    for (int i = 0; i < 300 && CountOf(server().log(), expected_line) == before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GT(CountOf(server().log(), expected_line), before) << server().log();
  }
  static size_t CountOf(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  }
  CommandResult Serve(const std::vector<std::string>& args, const EnvVars& env = {}) const {
    std::vector<std::string> argv{LicensedBinary(), "serve"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, env);
  }
  static std::string ReadAll(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

TEST_F(OperationsConfig, AMisspelledKeyInTheConfigFileRefusesTheStartNamingIt) {
  const auto path =
      dir().WriteFile("licensed.toml", "lisen = \"127.0.0.1:0\"\n" + KeyTable(kPluginKey));
  const CommandResult r = Serve({"--config", path.string(), "--store", store()});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_NE(r.err.find("unknown setting 'lisen'"), std::string::npos) << r.Describe();
  EXPECT_EQ(r.out.find("listening on"), std::string::npos) << r.Describe();
}

TEST_F(OperationsConfig, AnUnknownLicensedVariableRefusesTheStartNamingIt) {
  const CommandResult r = Serve({"--listen", "127.0.0.1:0", "--store", store(), "--signing-key",
                                 kPluginKey.id + "=" + kPluginKey.secret},
                                {{"LICENSED_LISTN", "127.0.0.1:0"}});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_NE(r.err.find("unknown environment variable LICENSED_LISTN"), std::string::npos)
      << r.Describe();
}

TEST_F(OperationsConfig, CheckConfigSaysOkWithoutServingAndRefusesWhatServeWouldRefuse) {
  const auto good =
      dir().WriteFile("good.toml", "listen = \"127.0.0.1:0\"\n" + KeyTable(kPluginKey));
  const CommandResult ok = Serve({"--check-config", "--config", good.string(), "--store", store()});
  EXPECT_EQ(ok.exit_code, 0) << ok.Describe();
  EXPECT_NE(ok.out.find("configuration OK"), std::string::npos) << ok.Describe();
  EXPECT_EQ(ok.out.find("listening on"), std::string::npos) << ok.Describe();

  const CommandResult no_keys = Serve({"--check-config", "--store", store()});
  EXPECT_EQ(no_keys.exit_code, 2) << no_keys.Describe();
  EXPECT_NE(no_keys.err.find("no signing keys"), std::string::npos) << no_keys.Describe();

  const CommandResult bad_key_file =
      Serve({"--check-config", "--config", good.string(), "--response-key",
             (dir().path() / "missing.pem").string()});
  EXPECT_NE(bad_key_file.exit_code, 0) << bad_key_file.Describe();
  EXPECT_NE(bad_key_file.err.find("missing.pem"), std::string::npos) << bad_key_file.Describe();
}

TEST_F(OperationsConfig, SigningKeysComeFromAFileAFileVariableOrASystemdCredential) {
  const std::string pair = kPluginKey.id + "=" + kPluginKey.secret;
  const auto file = dir().WriteFile("signing-keys", "# the plugin's key\n" + pair + "\n");
  ServerOptions o;
  o.signing_key_flag = false;
  o.args = {"--signing-key-file", file.string()};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  Stop();

  o.args.clear();
  o.env = {{"LICENSED_SIGNING_KEYS_FILE", file.string()}};
  Start(o);
  EXPECT_OK(Status(license));
  Stop();

  std::filesystem::create_directory(dir().path() / "credentials");
  std::ofstream(dir().path() / "credentials" / "signing_keys") << pair << "\n";
  o.env = {{"CREDENTIALS_DIRECTORY", (dir().path() / "credentials").string()}};
  Start(o);
  EXPECT_OK(Status(license));
  // The secret is never echoed, not even in a line naming where it came from.
  EXPECT_EQ(server().log().find(kPluginKey.secret), std::string::npos) << server().log();
}

TEST_F(OperationsConfig, AValueAndItsFileAtOneLevelAreRefusedAndAnUnreadableFileIsNamed) {
  const auto file = dir().WriteFile("redis-url", "redis://127.0.0.1:1\n");
  const CommandResult both =
      Serve({"--check-config", "--signing-key", "a=b"},
            {{"LICENSED_REDIS", "redis://127.0.0.1:1"}, {"LICENSED_REDIS_FILE", file.string()}});
  EXPECT_EQ(both.exit_code, 2) << both.Describe();
  EXPECT_NE(both.err.find("LICENSED_REDIS and LICENSED_REDIS_FILE are both set"), std::string::npos)
      << both.Describe();
  const CommandResult missing =
      Serve({"--check-config", "--signing-key-file", (dir().path() / "nope").string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.Describe();
  EXPECT_NE(missing.err.find("--signing-key-file: cannot read"), std::string::npos)
      << missing.Describe();
}

// Before, the first `license create --json` on a new store printed the migration lines
// on standard output ahead of the JSON. (`--create`: the admin command makes the store and
// migrates it, the lines that used to land on stdout.)
TEST_F(OperationsConfig, AdminCommandsPrintOnlyTheirAnswerOnStandardOutput) {
  const std::string fresh = "sqlite:" + (dir().path() / "fresh.db").string();
  const Admin admin(fresh);
  const CommandResult product =
      admin.Run({"--create", "product", "create", "--slug", "p", "--name", "P"});
  ASSERT_EQ(product.exit_code, 0) << product.Describe();
  const CommandResult created =
      admin.Run({"license", "create", "--product", "p", "--max", "1", "--json"});
  ASSERT_EQ(created.exit_code, 0) << created.Describe();
  const json::value parsed = json::parse(created.out);
  EXPECT_TRUE(parsed.as_object().contains("licenseKey")) << created.out;
  const std::string fresh2 = "sqlite:" + (dir().path() / "fresh2.db").string();
  const CommandResult list =
      Admin(fresh2).Run({"--create", "product", "create", "--slug", "q", "--name", "Q"});
  EXPECT_EQ(list.out.find("migration"), std::string::npos) << list.Describe();
  EXPECT_NE(list.err.find("migration"), std::string::npos) << list.Describe();
}

TEST_F(OperationsConfig, SighupAddsASecondSigningKeyThenDropsTheOldWithoutARestart) {
  const std::string path = (dir().path() / "licensed.toml").string();
  std::ofstream(path) << KeyTable(kPluginKey);
  Start(FromFile(path));
  const std::string license = NewLicense(1);
  const pid_t pid = server().pid();
  EXPECT_OK(Status(license, std::nullopt));
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kCiKey), "unknown_key");

  std::ofstream(path) << KeyTable(kPluginKey) << KeyTable(kCiKey);
  Hangup("SIGHUP: reloaded 2 signing key(s)");
  EXPECT_OK(Call("status", Body(license), kPluginKey));
  EXPECT_OK(Call("status", Body(license), kCiKey));

  std::ofstream(path) << KeyTable(kCiKey);
  Hangup("SIGHUP: reloaded 1 signing key(s)");
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey), "unknown_key");
  EXPECT_OK(Call("status", Body(license), kCiKey));
  EXPECT_EQ(server().pid(), pid);
  EXPECT_FALSE(server().ExitedOnItsOwn());
}

TEST_F(OperationsConfig, ASighupWithABrokenFileKeepsTheConfigurationInForce) {
  const std::string path = (dir().path() / "licensed.toml").string();
  std::ofstream(path) << KeyTable(kPluginKey);
  Start(FromFile(path));
  const std::string license = NewLicense(1);
  std::ofstream(path) << "lisen = 1\n" << KeyTable(kCiKey);
  Hangup("SIGHUP: the configuration in force stays");
  EXPECT_NE(server().log().find("unknown setting 'lisen'"), std::string::npos);
  EXPECT_OK(Call("status", Body(license), kPluginKey));
}

TEST_F(OperationsConfig, SighupChangesTheRateLimitsAndTheTrustedProxies) {
  const std::string path = (dir().path() / "licensed.toml").string();
  std::ofstream(path) << KeyTable(kPluginKey);
  ServerOptions o = FromFile(path);
  o.rate_limits_off = false;  // the file decides: the defaults, 120/1m per key
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  EXPECT_OK(Status(license));

  std::ofstream(path) << "rate_limit_key = \"1/1h\"\ntrusted_proxies = [\"127.0.0.1/32\"]\n"
                      << KeyTable(kPluginKey);
  Hangup("SIGHUP: reloaded 1 signing key(s), 1 trusted proxy block(s), rate limits key 1/3600s");
  // A license of its own: on Redis the buckets are shared and keep what they counted.
  const std::string fresh = NewLicense(1);
  EXPECT_OK(Status(fresh));
  EXPECT_RATE_LIMITED(Status(fresh), "key", 3600);

  std::ofstream(path) << "rate_limit_key = \"off\"\n" << KeyTable(kPluginKey);
  Hangup("SIGHUP: reloaded 1 signing key(s), 0 trusted proxy block(s), rate limits key off");
  EXPECT_OK(Status(fresh));
}

// The harness reads the ready line from standard output, which --log-file leaves empty:
// this test starts the server itself on a port it picked and reads the file.
TEST_F(OperationsConfig, TheLogFileIsReopenedOnSighupAfterLogrotateMovedIt) {
  const auto log = dir().path() / "licensed.log";
  const std::uint16_t port = FreeLoopbackPort();
  ServerProcess server({LicensedBinary(), "serve", "--listen", "127.0.0.1:" + std::to_string(port),
                        "--admin-listen", "off", "--store", store(), "--signing-key",
                        kPluginKey.id + "=" + kPluginKey.secret, "--rate-limit-key", "off",
                        "--rate-limit-ip", "off", "--log-file", log.string(), "--access-log"},
                       {});
  const auto wait_for = [](const std::filesystem::path& file, const std::string& text) {
    for (int i = 0; i < 1000 && ReadAll(file).find(text) == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return ReadAll(file).find(text) != std::string::npos;
  };
  ASSERT_TRUE(wait_for(log, "licensed ready")) << server.log() << ReadAll(log);
  const std::string license = NewLicense(1);
  EXPECT_OK(bb::Send(port, Signed("status", Body(license))));
  std::filesystem::rename(log, dir().path() / "licensed.log.1");
  ASSERT_EQ(::kill(server.pid(), SIGHUP), 0);
  ASSERT_TRUE(wait_for(log, "SIGHUP: reloaded")) << server.log();
  EXPECT_OK(bb::Send(port, Signed("status", Body(license))));
  ASSERT_TRUE(wait_for(log, "access ")) << ReadAll(log);
  const std::string old_lines = ReadAll(dir().path() / "licensed.log.1");
  EXPECT_NE(old_lines.find("access "), std::string::npos) << old_lines;
  EXPECT_EQ(old_lines.find("SIGHUP"), std::string::npos) << old_lines;
  EXPECT_EQ(server.log().find("licensed ready"), std::string::npos) << "standard output has no log";
}

TEST_F(OperationsConfig, TheAccessLogHasOneLinePerRequestWithAMaskedLicense) {
  ServerOptions o;
  o.args = {"--access-log", "--log-format", "json"};
  Start(o);
  const std::string license = NewLicense(1);
  const HttpResponse r = Activate(license, "machine-0001");
  EXPECT_OK(r);
  const std::string request_id = r.header("X-Request-Id").value_or("?");
  ASSERT_TRUE(server().LogEventually("\"requestId\":\"" + request_id + "\""));
  const std::string log = server().log();
  const auto at = log.find("\"msg\":\"access " + request_id);
  ASSERT_NE(at, std::string::npos) << log;
  const std::string line =
      log.substr(log.rfind('\n', at) + 1, log.find('\n', at) - log.rfind('\n', at) - 1);
  const json::value j = json::parse(line);
  EXPECT_EQ(Str(j, "route"), "activate") << line;
  EXPECT_EQ(Str(j, "status"), "200") << line;
  EXPECT_EQ(Str(j, "keyId"), kPluginKey.id) << line;
  EXPECT_EQ(Str(j, "license"), license.substr(0, 4) + "..." + license.substr(license.size() - 4))
      << line;
  EXPECT_FALSE(Str(j, "latencyMs").empty()) << line;
  EXPECT_EQ(log.find(license), std::string::npos) << "the full license key is never logged";
}

TEST_F(OperationsConfig, WithoutAccessLogNoLinePerRequestAndLogLevelWarnHidesInfo) {
  ServerOptions o;
  o.args = {"--log-level", "warn"};
  Start(o);
  EXPECT_OK(Status(NewLicense(1)));
  server().Terminate();
  const std::string log = server().log();
  EXPECT_EQ(log.find("access "), std::string::npos) << log;
  // The lines up to the ready line are written at any level: scripts wait for it.
  const auto ready = log.find("licensed ready");
  ASSERT_NE(ready, std::string::npos) << log;
  EXPECT_EQ(log.find(" info ", ready), std::string::npos) << log;
}

}  // namespace
}  // namespace bb
