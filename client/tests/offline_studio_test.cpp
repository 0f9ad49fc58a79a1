// Offline activation end to end (docs/protocol.md §21), every piece real: an
// "offline machine" (its own machine id, cache and activation-file directory, no URL) writes
// its request with `licensectl offline request`; an online machine carries it to the real
// `licensed` (port 0) with `licensectl offline submit`; `licensectl offline verify` accepts
// the file the server signed; the SDK installs it and answers the start-up check from it
// with the server stopped (source offline); `licensectl offline deactivate` deletes it and
// writes the deactivation file, whose submission frees the slot on a license set to
// offlineRelease "deactivation" (set through the store, as the server's tests do).
#include <boost/json/serialize.hpp>
#include <fstream>

#include "sdk_fixture.h"
#include "support/store_sql.h"

namespace licensed::client::test {
namespace {

using bb::CommandResult;

class OfflineStudio : public SdkTest {
 protected:
  // licensectl on one of the two machines: each has its own per-user cache.
  CommandResult Licensectl(const std::string& machine_dir, std::vector<std::string> args) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY, "--key-id", bb::kPluginKey.id, "--secret",
                                     bb::kPluginKey.secret};
    argv.insert(argv.end(), args.begin(), args.end());
    const bb::EnvVars env = {{"XDG_CACHE_HOME", Path(machine_dir + "/xdg-cache")},
                             {"XDG_DATA_HOME", Path(machine_dir + "/xdg-data")}};
    return bb::RunCommand(argv, env, std::chrono::seconds(60));
  }
  std::string Path(const std::string& name) const { return (dir().path() / name).string(); }
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(OfflineStudio, ARequestCarriedToAnOnlineMachineActivatesAndItsDeactivationFreesTheSlot) {
  Start();
  const std::string license = NewLicense(1);
  bb::StoreSql(store(),
               "UPDATE licenses SET offline_release = 'deactivation' WHERE "
               "license_key = '" +
                   license + "'");
  const std::string machine = "studio-rack-0001";
  const std::string key = SigningPublicKey();
  std::filesystem::create_directories(dir().path() / "offline-machine");
  std::filesystem::create_directories(dir().path() / "online-machine");
  const std::string request = Path("offline-machine/request.txt");
  const std::string activation = Path("offline-machine/activation.lic");

  // 1. The offline machine writes its request, with no server.
  const CommandResult requested = Licensectl(
      "offline-machine",
      {"--license-key", license, "--machine-id", machine, "offline", "request", "--out", request});
  ASSERT_EQ(requested.exit_code, 0) << requested.Describe();

  // 2. Carried to an online machine, submitted to the real server.
  const CommandResult submitted = Licensectl(
      "online-machine", {"--url", Url(), "offline", "submit", request, "--out", activation});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.Describe();
  const auto shown = admin().Show(license);
  ASSERT_EQ(bb::Arr(shown, "activations").size(), 1u) << boost::json::serialize(shown);
  EXPECT_TRUE(bb::Arr(shown, "activations")[0].as_object().at("offline").as_bool());

  // 3. Back on the offline machine: the file the server signed verifies here.
  const CommandResult verified =
      Licensectl("offline-machine", {"--public-key", key, "--machine-id", machine, "offline",
                                     "verify", activation, "--product", std::string(bb::kProduct)});
  EXPECT_EQ(verified.exit_code, 0) << verified.Describe();

  // 4. The SDK installs it and answers the start-up check from it, the server stopped.
  ClientConfig config = Config(license);
  config.machine_id = machine;
  config.public_key = key;
  config.product = std::string(bb::kProduct);
  config.offline_dir = dir().path() / "offline-machine" / "activation-files";
  {
    const Answer installed = Make(config)->install_activation_file_from(activation);
    ASSERT_TRUE(installed.ok()) << Describe(installed);
  }
  const std::string url = Url();
  Stop();
  config.url = url;
  const Answer started = Make(config)->check_at_startup();
  EXPECT_TRUE(started.ok()) << Describe(started);
  EXPECT_EQ(started.source, Source::kOffline) << Describe(started);
  EXPECT_STREQ(source_name(started.source), "offline");
  EXPECT_EQ(started.attempts, 0) << "no request was sent";

  // 5. Deactivated on the offline machine (the file deleted first), submitted online.
  Start();
  const std::string deactivation = Path("offline-machine/deactivation.txt");
  const CommandResult deactivated = Licensectl(
      "offline-machine", {"--public-key", key, "--machine-id", machine, "offline", "deactivate",
                          "--activation-file", activation, "--out", deactivation});
  ASSERT_EQ(deactivated.exit_code, 0) << deactivated.Describe();
  EXPECT_FALSE(std::filesystem::exists(activation));
  EXPECT_NE(ReadAll(deactivation).find("-----BEGIN LICENSE DEACTIVATION-----"), std::string::npos);
  const CommandResult freed =
      Licensectl("online-machine", {"--url", Url(), "offline", "submit", deactivation, "--out",
                                    Path("online-machine/unused.lic")});
  EXPECT_EQ(freed.exit_code, 0) << freed.Describe();

  // The slot is free: the license (max 1) takes another machine at once.
  EXPECT_TRUE(bb::Arr(admin().Show(license), "activations").empty());
  const bb::HttpResponse other = Activate(license, "studio-rack-0002");
  EXPECT_EQ(other.status, 200) << other.Describe();
}

}  // namespace
}  // namespace licensed::client::test
