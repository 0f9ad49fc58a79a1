// Issue "Hostile input, crashes and faults", item 7: `--log-format json` writes one JSON
// object per line, and no log line, in either format, carries a signing secret or a
// full license key, whatever the requests were.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "support/fixture.h"
#include "support/log_lines.h"
#include "support/store_faults.h"

namespace bb {
namespace {

class Logs : public BlackboxTest {
 protected:
  struct Driven {
    std::vector<std::string> license_keys;  // every key sent, known to the store or not
    std::string internal_request_id;        // of a 500 caused by a corrupted row
    std::string masked_broken_key;          // how the log must show that row's key
  };

  // Good requests, each kind of refusal, malformed HTTP and a real internal error.
  Driven DriveEveryKindOfRequest() {
    Driven d;
    const std::string license = NewLicense(1);
    const std::string broken = NewLicense(1);
    const std::string unknown = RandomUuidV4();
    d.license_keys = {license, broken, unknown};

    EXPECT_OK(Activate(license, "machine-0001", "Studio PC"));
    EXPECT_OK(Heartbeat(license, "machine-0001"));
    EXPECT_OK(Status(license, "machine-0001"));
    EXPECT_API_ERROR(Activate(license, "machine-0002"), 409, 1705, "LICENSE_API_LIMIT_REACHED");
    SignOptions wrong_secret;
    wrong_secret.secret = "not the secret";
    EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, wrong_secret),
                         "signature_mismatch");
    EXPECT_BAD_SIGNATURE(Call("status", Body(license), SigningKey{"nobody", kPluginKey.secret}),
                         "unknown_key");
    const HttpRequest once = Signed("status", Body(license));
    EXPECT_OK(Send(once));
    EXPECT_BAD_SIGNATURE(Send(once), "nonce_reused");
    SignOptions stale;
    stale.timestamp = UnixNow() - 3600;
    EXPECT_API_ERROR(Call("status", Body(license), kPluginKey, stale), 401, 1701,
                     "STALE_TIMESTAMP");
    EXPECT_API_ERROR(Status(unknown), 404, 1703, "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Call("activate", "{\"licenseKey\":\"" + license + "\",\"machineId\":"), 400,
                     1702, "LICENSE_API_MALFORMED");
    EXPECT_API_ERROR(Call("activate", PaddedBody(license, 16 * 1024 + 1)), 413, 1702,
                     "LICENSE_API_MALFORMED");
    HttpRequest misrouted = Signed("status", Body(license));
    misrouted.target = "/api/v1/license/nope";
    EXPECT_EQ(Send(misrouted).status, 404);
    EXPECT_EQ(SendRaw("POST /api/v1/license/status HTTP/1.1\r\nHost: x\r\nContent-Length: "
                      "zz\r\n\r\n" +
                      license)
                  .status,
              400);

    CorruptLicenseStatus(broken);
    const HttpResponse failed = Status(broken, "machine-0001");
    EXPECT_API_ERROR(failed, 500, 1709, "LICENSE_API_INTERNAL");
    d.internal_request_id = failed.header("X-Request-Id").value_or("");
    EXPECT_API_ERROR(Activate(broken, "machine-0001"), 500, 1709, "LICENSE_API_INTERNAL");
    d.masked_broken_key = broken.substr(0, 4) + "..." + broken.substr(broken.size() - 4);

    EXPECT_OK(Deactivate(license, "machine-0001"));
    return d;
  }

  // What no log may contain, whatever its format.
  void ExpectNoSecretsIn(const std::string& log, const Driven& d) {
    EXPECT_EQ(log.find(kPluginKey.secret), std::string::npos) << "the signing secret was logged";
    for (const auto& key : d.license_keys) {
      EXPECT_EQ(log.find(key), std::string::npos) << "a full license key was logged: " << key;
    }
  }
};

TEST_F(Logs, JsonLinesParseAndCarryNoSecretsOrLicenseKeys) {
  ServerOptions o;
  o.args = {"--log-format", "json"};
  Start(o);
  const Driven d = DriveEveryKindOfRequest();
  ASSERT_FALSE(d.internal_request_id.empty());
  const int status = server().Terminate();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server().log();
  const std::string log = server().log();

  const std::vector<json::object> lines = JsonLogLines(log);
  EXPECT_EQ(lines.size(), LogLines(log).size()) << log;
  bool ready = false, stopped = false, internal_error = false;
  for (const auto& line : lines) {
    const std::string msg(line.at("msg").as_string());
    ready = ready || msg.find("listening on") != std::string::npos;
    stopped = stopped || msg == "stopped";
    const json::value* request_id = line.if_contains("requestId");
    if (line.at("level") == "error" && request_id &&
        *request_id == json::value(d.internal_request_id) &&
        msg.find("internal error") != std::string::npos) {
      internal_error = true;
      EXPECT_EQ(line.at("endpoint"), "status") << msg;
      EXPECT_EQ(line.at("license"), json::value(d.masked_broken_key)) << msg;
    }
  }
  EXPECT_TRUE(ready) << "no start-up line\n" << log;
  EXPECT_TRUE(stopped) << "no shutdown line\n" << log;
  EXPECT_TRUE(internal_error) << "no error line with requestId " << d.internal_request_id << "\n"
                              << log;
  ExpectNoSecretsIn(log, d);
}

TEST_F(Logs, TextLinesCarryNoSecretsOrLicenseKeysEither) {
  Start();
  const Driven d = DriveEveryKindOfRequest();
  const int status = server().Terminate();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server().log();
  const std::string log = server().log();
  EXPECT_NE(log.find("request " + d.internal_request_id + " failed with an internal error"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(d.masked_broken_key), std::string::npos) << log;
  ExpectNoSecretsIn(log, d);
}

TEST_F(Logs, EnvironmentSelectsJson) {
  ServerOptions o;
  o.env = {{"LICENSED_LOG_FORMAT", "json"}};
  Start(o);
  server().Terminate();
  const std::string log = server().log();
  EXPECT_EQ(JsonLogLines(log).size(), LogLines(log).size()) << log;
}

TEST_F(Logs, TomlSelectsJson) {
  ServerOptions o;
  o.args = {"--config", dir().WriteFile("licensed.toml", "log_format = \"json\"\n").string()};
  Start(o);
  server().Terminate();
  const std::string log = server().log();
  EXPECT_EQ(JsonLogLines(log).size(), LogLines(log).size()) << log;
}

TEST_F(Logs, FlagBeatsEnvironment) {
  ServerOptions o;
  o.env = {{"LICENSED_LOG_FORMAT", "json"}};
  o.args = {"--log-format", "text"};
  Start(o);
  EXPECT_NE(server().ready_line().front(), '{') << server().ready_line();
}

TEST_F(Logs, UnknownFormatIsAUsageError) {
  const CommandResult r = RunCommand({LicensedBinary(), "serve", "--log-format", "yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_NE(r.err.find("--log-format"), std::string::npos) << r.Describe();
}

TEST_F(Logs, StoreUrlPasswordIsNotPrinted) {
  const CommandResult r = RunCommand({LicensedBinary(), "serve", "--listen", "127.0.0.1:0",
                                      "--store", "postgresql://app:hunter2pass@127.0.0.1/licensed",
                                      "--signing-key", kPluginKey.id + "=" + kPluginKey.secret});
  EXPECT_NE(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.err.find("postgresql://app:***@127.0.0.1/licensed"), std::string::npos)
      << r.Describe();
  EXPECT_EQ((r.out + r.err).find("hunter2pass"), std::string::npos) << r.Describe();
  EXPECT_EQ((r.out + r.err).find(kPluginKey.secret), std::string::npos) << r.Describe();
}

}  // namespace
}  // namespace bb
