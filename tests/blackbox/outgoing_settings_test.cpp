// The serve settings of outgoing connections (docs/protocol.md §24): --webhook-allow-http and
// --webhook-allow-private as flags, variables and TOML booleans, and --outgoing-ca-file;
// a value the server cannot use stops it at start (exit 2) naming where it came from.
#include <gtest/gtest.h>

#include "support/admin.h"
#include "support/fixture.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace bb {
namespace {

class OutgoingSettings : public BlackboxTest {};

TEST_F(OutgoingSettings, TheSwitchesAndACaFileAreTakenAsFlags) {
  ServerOptions o;
  const auto ca = dir().WriteFile("ca.pem", "-----BEGIN CERTIFICATE-----\n");
  o.args = {"--webhook-allow-http", "--webhook-allow-private", "--outgoing-ca-file", ca.string()};
  Start(o);
  EXPECT_OK(Status(NewLicense(1)));
}

TEST_F(OutgoingSettings, TheSwitchesAreTakenFromTheEnvironmentAndTheFile) {
  ServerOptions o;
  o.env = {{"LICENSED_WEBHOOK_ALLOW_HTTP", "true"}, {"LICENSED_WEBHOOK_ALLOW_PRIVATE", "0"}};
  o.args = {"--config",
            dir().WriteFile("licensed.toml", "webhook_allow_private = true\n").string()};
  Start(o);
  EXPECT_OK(Status(NewLicense(1)));
}

// `serve --help` lists each setting; the switches take no value.
TEST(OutgoingSettingsHelp, ServeHelpListsTheSwitchesWithoutAValue) {
  const CommandResult r = RunCommand({LicensedBinary(), "serve", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find("--webhook-allow-http "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--webhook-allow-private "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--outgoing-ca-file FILE"), std::string::npos) << r.out;
}

TEST(OutgoingSettingsHelp, AValueTheServerCannotUseStopsItWithExit2NamingItsSource) {
  const TempDir dir;
  const std::string store = "sqlite:" + (dir.path() / "licensed.db").string();
  const std::vector<std::string> serve = {LicensedBinary(), "serve",      "--listen",
                                          "127.0.0.1:0",    "--store",    store,
                                          "--signing-key",  "k1=secret-1"};
  const CommandResult bad_switch = RunCommand(serve, {{"LICENSED_WEBHOOK_ALLOW_PRIVATE", "maybe"}});
  EXPECT_EQ(bad_switch.exit_code, 2) << bad_switch.Describe();
  EXPECT_NE(bad_switch.err.find("LICENSED_WEBHOOK_ALLOW_PRIVATE"), std::string::npos)
      << bad_switch.Describe();
  std::vector<std::string> with_ca = serve;
  with_ca.insert(with_ca.end(), {"--outgoing-ca-file", (dir.path() / "missing.pem").string()});
  const CommandResult bad_ca = RunCommand(with_ca);
  EXPECT_EQ(bad_ca.exit_code, 2) << bad_ca.Describe();
  EXPECT_NE(bad_ca.err.find("--outgoing-ca-file: cannot read"), std::string::npos)
      << bad_ca.Describe();
}

}  // namespace
}  // namespace bb
