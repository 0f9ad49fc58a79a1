// Issue 29: the JUCE example (client/examples/juce-gain/, the licensed_juce module)
// loaded by the project's LV2 host on liblilv (tests/juce/lv2_host.cpp), against the
// real `licensed` on loopback. scripts/build-juce-example.sh builds both once, as the
// ctest fixture juce.ExampleBuildsAsLv2AndVst3; every test here skips when that build
// could not happen (no JUCE on this machine), and only then.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

#include "loopback_stand_ins.h"
#include "plugin_env.h"
#include "support/fixture.h"

namespace {

namespace fs = std::filesystem;
using licensed::client::test::LoopbackServer;

const fs::path kExample = JUCE_EXAMPLE_DIR;

class JuceGain : public bb::BlackboxTest {
 protected:
  void SetUp() override {
    if (!fs::exists(kExample / "lv2_host") || !fs::exists(kExample / "JuceGain.lv2")) {
      GTEST_SKIP() << "the JUCE example was not built (no JUCE here): " << kExample;
    }
    BlackboxTest::SetUp();
  }

  static std::string Lv2Bundle() { return fs::canonical(kExample / "JuceGain.lv2").string(); }
  static std::string Host() { return (kExample / "lv2_host").string(); }

  // licensectl's variables for `url`, with a cache directory of the test's own.
  bb::EnvVars PluginEnv(const std::string& url, const std::string& license,
                        const std::string& machine_id) const {
    bb::EnvVars env = bb::JucePluginEnv(url, license, machine_id, public_key_, dir().path());
    env.push_back({"LICENSED_JUCE_TRACE", "1"});
    return env;
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port()); }

  void StartServer() {
    Start();
    public_key_ = SigningPublicKey();
  }

  bb::CommandResult RunHost(const bb::EnvVars& env, const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {Host(), Lv2Bundle()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return bb::RunCommand(argv, env, std::chrono::seconds(60));
  }

  std::string public_key_;
};

// A number the host printed as "name=<digits>" on the line starting with `line`, or -1.
double Number(const std::string& out, const std::string& line, const std::string& name) {
  const std::regex re(line + "[^\n]*\\b" + name + "=([0-9.]+)");
  std::smatch m;
  return std::regex_search(out, m, re) ? std::stod(m[1].str()) : -1;
}

// Every block the host ran was input x gain, sample for sample.
void ExpectEveryBlockExact(const bb::CommandResult& r) {
  const double blocks = Number(r.out, "audio:", "blocks");
  EXPECT_GT(blocks, 0) << r.Describe();
  EXPECT_EQ(Number(r.out, "audio:", "exact"), blocks) << r.Describe();
  EXPECT_EQ(Number(r.out, "audio:", "silent"), 0) << r.Describe();
}

TEST_F(JuceGain, TheBundlesExportNothingOfTheSdk) {
  const std::string vst3 =
      (fs::canonical(kExample / "JuceGain.vst3") / "Contents/x86_64-linux/JuceGain.so").string();
  for (const std::string& binary : {Lv2Bundle() + "/libJuceGain.so", vst3}) {
    const bb::CommandResult symbols =
        bb::RunCommand({"/usr/bin/nm", "-D", "--defined-only", binary});
    ASSERT_EQ(symbols.exit_code, 0) << symbols.Describe();
    for (const char* sdk : {" lc_", "license_client", "licensed", "boost"}) {
      EXPECT_EQ(symbols.out.find(sdk), std::string::npos) << binary << " exports " << sdk;
    }
    // The SDK is inside (linked statically), not beside it.
    const bb::CommandResult needed = bb::RunCommand({"/usr/bin/objdump", "-p", binary});
    EXPECT_EQ(needed.out.find("license_client"), std::string::npos) << needed.out;
    const bb::CommandResult all = bb::RunCommand({"/usr/bin/nm", binary});
    EXPECT_NE(all.out.find(" t lc_client_new"), std::string::npos) << binary;
  }
  const bb::CommandResult lv2 =
      bb::RunCommand({"/usr/bin/nm", "-D", "--defined-only", Lv2Bundle() + "/libJuceGain.so"});
  EXPECT_NE(lv2.out.find(" T lv2_descriptor"), std::string::npos) << lv2.out;
}

// (a) Server up: the output is the input times the gain, sample-exact, and the
// plugin activated this computer in the background once: one activation recorded.
TEST_F(JuceGain, WithTheServerUpTheOutputIsTheInputTimesTheGainAndOneActivationIsRecorded) {
  StartServer();
  const std::string license = NewLicense(2);
  const bb::CommandResult r =
      RunHost(PluginEnv(Url(), license, "juce-gain-0001"), {"--run-ms", "3000", "--gain", "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  ExpectEveryBlockExact(r);
  EXPECT_NE(r.err.find("licensed_juce: constructed, state checking"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("licensed_juce: state not-activated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("licensed_juce: state licensed: Licensed [source network]"),
            std::string::npos)
      << r.err;
  const auto activations = AuditRecords(license, "license.activate");
  ASSERT_EQ(activations.size(), 1u);
  EXPECT_EQ(bb::Str(activations[0], "machineId"), "juce-gain-0001");
  // The note's number: from instantiation to a known license state (activated).
  const double licensed_at = Number(r.err, "licensed_juce: state licensed", "at");
  std::cout << "instantiation to licensed (check, then activation): "
            << licensed_at - Number(r.out, "instantiated", "at") << " ms\n";

  // The next session, with the server gone, starts licensed from the cache.
  const std::string url = Url();
  ASSERT_EQ(Stop(), 0);
  const bb::CommandResult offline =
      RunHost(PluginEnv(url, license, "juce-gain-0001"), {"--run-ms", "500"});
  ASSERT_EQ(offline.exit_code, 0) << offline.Describe();
  EXPECT_NE(offline.err.find("licensed_juce: constructed, state licensed"), std::string::npos)
      << offline.err;
  ExpectEveryBlockExact(offline);
}

// (b) Two instances in one process share one license state: one activate request.
TEST_F(JuceGain, TwoInstancesInOneProcessSendOneActivateRequest) {
  StartServer();
  const std::string license = NewLicense(2);
  const bb::CommandResult r = RunHost(PluginEnv(Url(), license, "juce-gain-0002"),
                                      {"--instances", "2", "--run-ms", "3000"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  ExpectEveryBlockExact(r);
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 1u);
  const auto shown = admin().Show(license);
  EXPECT_EQ(bb::Arr(shown, "activations").size(), 1u);
}

// (c) A server that never answers, and a name that never resolves: the same audio as
// with the server up, and the host frees the plugin within 1 s of asking, with the
// check still in flight.
TEST_F(JuceGain, AServerThatNeverAnswersNeitherChangesTheAudioNorDelaysFreeing) {
  StartServer();  // for the public key only
  const LoopbackServer silent;
  for (const std::string& url : {silent.Url(), std::string("http://never-resolves.invalid")}) {
    const auto started = std::chrono::steady_clock::now();
    const bb::CommandResult r =
        RunHost(PluginEnv(url, "3f1c2a4e-0000-4000-8000-000000000001", "juce-gain-0003"),
                {"--free-at-ms", "700"});
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_EQ(r.exit_code, 0) << url << ": " << r.Describe();
    ExpectEveryBlockExact(r);
    EXPECT_LT(Number(r.out, "freed:", "ms"), 1000) << url << ": " << r.Describe();
    // Freed while the check was still in flight (its budget is 1.5 s).
    EXPECT_EQ(r.err.find("licensed_juce: state not-confirmed"), std::string::npos) << r.err;
    EXPECT_LT(took, std::chrono::seconds(5)) << url << ": the process did not end promptly";
  }
}

// (d) JUCE's build step juce_lv2_helper constructs the plugin to write its .ttl: with
// every LICENSE_* variable set, it sends nothing to the configured server.
TEST_F(JuceGain, TheBuildsTtlStepSendsNoRequestToTheConfiguredServer) {
  const LoopbackServer listening;
  const fs::path copy = dir().path() / "JuceGain.lv2";
  fs::create_directories(copy);
  fs::copy_file(fs::path(Lv2Bundle()) / "libJuceGain.so", copy / "libJuceGain.so");
  bb::EnvVars env =
      PluginEnv(listening.Url(), "3f1c2a4e-0000-4000-8000-000000000002", "juce-gain-0004");
  const bb::CommandResult r = bb::RunCommand(
      {"/usr/lib/x86_64-linux-gnu/juce/juce_lv2_helper", (copy / "libJuceGain.so").string()}, env);
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_TRUE(fs::exists(copy / "manifest.ttl"));
  EXPECT_TRUE(fs::exists(copy / "dsp.ttl"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(listening.accepted(), 0);
}

// (e) A license that expired after this computer activated it: with the server down,
// the cached (signed) answer says the license's expiresAt has passed, so the state says
// expired, from the cache, and the audio still passes. With the server back, it says so
// too, from the network.
TEST_F(JuceGain, AnExpiredLicenseSaysExpiredAndTheAudioStillPasses) {
  StartServer();
  const std::string license =
      NewLicense(2, bb::kProduct, bb::TimestampFromNow(std::chrono::seconds(4)));
  const bb::CommandResult first =
      RunHost(PluginEnv(Url(), license, "juce-gain-0005"), {"--run-ms", "2000"});
  ASSERT_EQ(first.exit_code, 0) << first.Describe();
  EXPECT_NE(first.err.find("licensed_juce: state licensed"), std::string::npos) << first.err;
  const std::string url = Url();
  ASSERT_EQ(Stop(), 0);
  std::this_thread::sleep_for(std::chrono::seconds(4));

  const bb::CommandResult offline =
      RunHost(PluginEnv(url, license, "juce-gain-0005"), {"--run-ms", "2500"});
  ASSERT_EQ(offline.exit_code, 0) << offline.Describe();
  EXPECT_NE(offline.err.find("licensed_juce: constructed, state expired"), std::string::npos)
      << offline.err;
  EXPECT_NE(offline.err.find("licensed_juce: state expired: Expired [source cache]"),
            std::string::npos)
      << offline.err;
  EXPECT_EQ(offline.err.find("not-confirmed"), std::string::npos) << offline.err;
  EXPECT_EQ(offline.err.find("state licensed"), std::string::npos) << offline.err;
  ExpectEveryBlockExact(offline);

  Start();
  const bb::CommandResult online =
      RunHost(PluginEnv(Url(), license, "juce-gain-0005"), {"--run-ms", "2500"});
  ASSERT_EQ(online.exit_code, 0) << online.Describe();
  EXPECT_NE(online.err.find("licensed_juce: state expired: Expired [source network]"),
            std::string::npos)
      << online.err;
  ExpectEveryBlockExact(online);
}

// (f) jalv, with JACK's dummy backend, runs the bundle.
TEST_F(JuceGain, JalvRunsTheBundleWithJacksDummyBackend) {
  const std::string server_name = "licensed-juce-" + std::to_string(getpid());
  const bb::EnvVars jack_env = {{"JACK_DEFAULT_SERVER", server_name},
                                {"HOME", dir().path().string()}};
  bb::ServerProcess jackd(
      {"/usr/bin/jackd", "--no-realtime", "-d", "dummy", "-r", "48000", "-p", "256"}, jack_env);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  bb::EnvVars env =
      PluginEnv("http://127.0.0.1:9", "3f1c2a4e-0000-4000-8000-000000000003", "juce-gain-0006");
  env.push_back({"JACK_DEFAULT_SERVER", server_name});
  env.push_back({"LV2_PATH", fs::canonical(kExample / "JuceGain.lv2").parent_path().string()});
  // jalv's console runs until its input ends (here at once, /dev/null): it loads the
  // plugin by its URI, connects it to JACK, runs it and exits cleanly.
  const bb::CommandResult jalv =
      bb::RunCommand({"/usr/bin/jalv", "https://licensed.example/plugins/juce-gain"}, env);
  EXPECT_EQ(jalv.exit_code, 0) << jalv.Describe();
  EXPECT_NE(jalv.out.find("Plugin:       https://licensed.example/plugins/juce-gain"),
            std::string::npos)
      << jalv.Describe();
  EXPECT_NE(jalv.out.find("JACK Name:    JuceGain"), std::string::npos) << jalv.Describe();
  EXPECT_NE(jalv.err.find("licensed_juce: constructed"), std::string::npos) << jalv.Describe();
  EXPECT_TRUE(jackd.ExitedOnItsOwn() == std::nullopt) << jackd.log();
}

// The activation screen in every state, rendered headlessly under Xvfb into PNG files
// (docs/screenshots/juce-*.png when LICENSED_JUCE_SCREENSHOT_DIR names that folder).
TEST_F(JuceGain, TheActivationScreenIsRenderedInEveryStateUnderXvfb) {
  const char* wanted = std::getenv("LICENSED_JUCE_SCREENSHOT_DIR");
  const fs::path out = wanted != nullptr ? fs::path(wanted) : dir().path() / "screenshots";
  const bb::CommandResult r =
      bb::RunCommand({"/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1024x768x24",
                      (kExample / "juce_gain_screenshots").string(), out.string()},
                     {{"HOME", dir().path().string()}}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  for (const char* state : {"licensed", "trial", "offline", "expired", "refused", "limit-reached",
                            "not-activated", "activating", "offline-request", "minimum-400x300"}) {
    const fs::path png = out / (std::string("juce-") + state + ".png");
    ASSERT_TRUE(fs::exists(png)) << png;
    std::ifstream in(png, std::ios::binary);
    std::string magic(8, '\0');
    in.read(magic.data(), 8);
    EXPECT_EQ(magic, "\x89PNG\r\n\x1a\n") << png;
    EXPECT_GT(fs::file_size(png), 2000u) << png;
  }
}

}  // namespace
