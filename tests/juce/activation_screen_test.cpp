// Issue 29, item 2: the activation screen's actions, driven on the real
// licensed_juce::ActivationScreen (tests/juce/activation_screen_driver.cpp, built with the
// example by the juce_example fixture) under Xvfb, against the real `licensed` on
// loopback. The file chooser and the browser are the fake `zenity` and `xdg-open` put
// first on PATH here: they answer the file the test names and note the URL opened. The
// tests assert the screen's states, the files written and the server's records.
#include <filesystem>
#include <fstream>
#include <string>

#include "loopback_stand_ins.h"
#include "plugin_env.h"
#include "support/fixture.h"

namespace {

namespace fs = std::filesystem;
using licensed::client::test::LoopbackServer;

const fs::path kExample = JUCE_EXAMPLE_DIR;
const std::string kDashboard = "https://licenses.example.com/dashboard";

std::string Contents(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

class JuceActivationScreen : public bb::BlackboxTest {
 protected:
  void SetUp() override {
    if (!fs::exists(kExample / "juce_gain_screen_driver")) {
      GTEST_SKIP() << "the JUCE example was not built (no JUCE here): " << kExample;
    }
    BlackboxTest::SetUp();
    const fs::path bin = dir().path() / "bin";
    fs::create_directories(bin);
    // The user's choice in the file dialog (the driver sets it before pressing the button).
    WriteScript(bin / "zenity", "printf '%s\\n' \"$SCREEN_CHOOSER_ANSWER\"\n");
    WriteScript(bin / "xdg-open", "printf '%s\\n' \"$1\" >> \"$SCREEN_BROWSER_LOG\"\n");
  }

  static void WriteScript(const fs::path& path, const std::string& body) {
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all);
  }

  void StartServer() {
    bb::ServerOptions options;
    options.args = {"--dashboard-url", kDashboard};
    Start(options);
    public_key_ = SigningPublicKey();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port()); }

  bb::EnvVars Env(const std::string& url, const std::string& license,
                  const std::string& machine_id) const {
    bb::EnvVars env = bb::JucePluginEnv(url, license, machine_id, public_key_, dir().path());
    env.insert(env.end(), {{"LICENSE_PRODUCT", std::string(bb::kProduct)},
                           {"SCREEN_BROWSER_LOG", BrowserLog().string()},
                           {"PATH", (dir().path() / "bin").string() + ":/usr/bin:/bin"}});
    return env;
  }
  fs::path BrowserLog() const { return dir().path() / "browser.log"; }

  bb::CommandResult Drive(const std::string& scenario, const bb::EnvVars& env) const {
    return bb::RunCommand({"/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1024x768x24",
                           (kExample / "juce_gain_screen_driver").string(), scenario},
                          env, std::chrono::seconds(120));
  }

  static void ExpectLine(const bb::CommandResult& r, const std::string& text) {
    EXPECT_NE(r.out.find(text), std::string::npos) << "no \"" << text << "\" in\n" << r.Describe();
  }

  std::string public_key_;
};

bb::EnvVars With(bb::EnvVars env, const std::string& name, const std::string& value) {
  env.push_back({name, value});
  return env;
}

// A key pasted as it comes in an email (quoted, upper case, broken over lines, spaces
// around), Return in the field: licensed, one activation of this machine. Deactivate
// gives the slot back.
TEST_F(JuceActivationScreen, APastedKeyWithSpacesLineBreaksQuotesAndCaseActivatesAndDeactivates) {
  StartServer();
  const std::string license = NewLicense(2);
  std::string upper = license;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string pasted = "  \"" + upper.substr(0, 18) + "\n  " + upper.substr(18) + " \"\r\n";
  const bb::CommandResult r =
      Drive("activate-deactivate", With(Env(Url(), "", "screen-0001"), "SCREEN_PASTE", pasted));
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  // No key yet: not activated, and nothing asked of the server (it would refuse an empty
  // key as malformed).
  ExpectLine(r, "started: state=not-activated busy=0 headline=\"Not activated on this computer\"");
  ExpectLine(r, "pasted: exactly");
  ExpectLine(r, "activated: state=licensed busy=0 headline=\"Licensed\"");
  ExpectLine(r, "key=" + license + " source=network");
  ExpectLine(r, "deactivated: state=not-activated busy=0");
  ExpectLine(r, "its slot is free");
  const auto activations = AuditRecords(license, "license.activate");
  ASSERT_EQ(activations.size(), 1u);
  EXPECT_EQ(bb::Str(activations[0], "machineId"), "screen-0001");
  EXPECT_EQ(AuditRecords(license, "license.deactivate").size(), 1u);
  EXPECT_EQ(bb::Arr(admin().Show(license), "activations").size(), 0u);
}

// Typed key by key (keyboard only: Tab to Activate, Return presses it) on a license
// whose one slot is taken: 1705, the link to free a slot shows the server's dashboard URL
// and pressing it opens that URL in the browser.
TEST_F(JuceActivationScreen, AMachineCapRefusalShowsTheLinkThatOpensTheDashboardInTheBrowser) {
  StartServer();
  const std::string license = NewLicense(1);
  ASSERT_EQ(Activate(license, "other-computer-0001").status, 200);
  std::string typed = " '" + license + "' ";
  for (char& c : typed) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const bb::CommandResult r =
      Drive("limit", With(Env(Url(), "", "screen-0002"), "SCREEN_TYPE", typed));
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  ExpectLine(r, "typed: exactly");
  ExpectLine(r, "focused after tab: Activate");
  ExpectLine(r, "refused: state=limit-reached busy=0 headline=\"Activated on too many computers\"");
  ExpectLine(r, "link: visible=1 url=" + kDashboard + "#signin=");
  // The URL carries the one-time sign-in link (docs/dashboard.md), opened as the server
  // sent it: `#signin=` and the token, not re-encoded.
  const std::string opened = Contents(BrowserLog());
  EXPECT_EQ(opened.rfind(kDashboard + "#signin=", 0), 0u) << opened;
  EXPECT_EQ(opened.find('%'), std::string::npos) << opened;
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 1u) << "the other computer's only";
}

// Start trial on a product that offers 14-day trials: the trial's license, its days left.
TEST_F(JuceActivationScreen, StartTrialOnAProductWithTrialsShowsTheDaysLeft) {
  StartServer();
  admin().RunOk({"plan", "create", "--product", std::string(bb::kProduct), "--code", "trial",
                 "--name", "Trial", "--max", "1"});
  admin().RunOk(
      {"product", "set-trial", std::string(bb::kProduct), "--plan", "trial", "--days", "14"});
  const bb::CommandResult r = Drive("trial", Env(Url(), "", "screen-0003"));
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  ExpectLine(r, "trial: state=trial busy=0 headline=\"Trial: 14 days left\"");
  ExpectLine(r, "days=14");
  // The trial's key is kept for the next session.
  const std::string key = Contents(dir().path() / "cache" / "license-key");
  EXPECT_TRUE(bb::IsLowercaseUuidV4(key)) << key;
  const auto activations = AuditRecords(key, "license.activate");
  ASSERT_EQ(activations.size(), 1u);
  EXPECT_EQ(bb::Str(activations[0], "machineId"), "screen-0003");
}

// An air-gapped studio computer: Write offline request... writes the file the user picks;
// the vendor's admin CLI accepts it and makes the activation file; pasted into the key
// field (Activate) or picked with Import activation file..., it activates the computer
// offline until a date.
TEST_F(JuceActivationScreen, AnOfflineRequestIsAcceptedByTheServerAndItsActivationImports) {
  StartServer();
  const std::string license = NewLicense(1);
  const std::string offline = "http://127.0.0.1:9";  // this computer has no network
  const fs::path request = dir().path() / "activation-request.txt";
  const bb::CommandResult written = Drive(
      "write-request", With(Env(offline, license, "screen-0004"), "SCREEN_FILE", request.string()));
  ASSERT_EQ(written.exit_code, 0) << written.Describe();
  ExpectLine(written, "request: state=not-confirmed busy=0");
  ExpectLine(written, "action=\"The request is in " + request.string());
  ASSERT_NE(Contents(request).find("-----BEGIN LICENSE ACTIVATION REQUEST-----"), std::string::npos)
      << Contents(request);

  const fs::path activation = dir().path() / "activation.lic";
  const bb::CommandResult accepted = admin().Run(
      {"license", "offline-activate", license, request.string(), "--out", activation.string(),
       "--signing-key", bb::kPluginKey.id + "=" + bb::kPluginKey.secret, "--json"});
  ASSERT_EQ(accepted.exit_code, 0) << accepted.Describe();
  const auto records = AuditRecords(license, "license.activate");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(bb::Str(records[0], "machineId"), "screen-0004");
  EXPECT_TRUE(bb::Bool(records[0], "offline"));

  const bb::CommandResult pasted = Drive("import-text", With(Env(offline, license, "screen-0004"),
                                                             "SCREEN_PASTE", Contents(activation)));
  ASSERT_EQ(pasted.exit_code, 0) << pasted.Describe();
  ExpectLine(pasted, "imported: state=offline busy=0 headline=\"Activated offline until 20");
  ExpectLine(pasted, "action=\"The activation file is installed.\"");

  // The same file picked in the dialog, on a computer with nothing installed yet.
  bb::EnvVars fresh =
      With(Env(offline, license, "screen-0004"), "SCREEN_FILE", activation.string());
  for (auto& [name, value] : fresh) {
    if (name == "LICENSE_OFFLINE_DIR") value = (dir().path() / "offline-2").string();
    if (name == "LICENSE_CACHE_DIR") value = (dir().path() / "cache-2").string();
  }
  const bb::CommandResult imported = Drive("import-file", fresh);
  ASSERT_EQ(imported.exit_code, 0) << imported.Describe();
  ExpectLine(imported, "started: state=not-confirmed");
  ExpectLine(imported, "imported: state=offline busy=0 headline=\"Activated offline until 20");
}

// Activate against a server that accepts and never answers (the action's timeout set to
// 60 s): Cancel brings the screen back to idle, Activate enabled and Cancel hidden, long
// before the action could end by itself, and the next Activate starts again.
TEST_F(JuceActivationScreen, CancelAgainstAServerThatNeverAnswersReturnsToIdle) {
  StartServer();  // for the public key only
  const LoopbackServer silent;
  bb::EnvVars env = With(Env(silent.Url(), "", "screen-0005"), "SCREEN_TYPE",
                         "3f1c2a4e-0000-4000-8000-000000000005");
  env.push_back({"SCREEN_TIMEOUT_MS", "60000"});
  const bb::CommandResult r = Drive("cancel", env);
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  ExpectLine(r, "cancel shown while busy: 1");
  ExpectLine(r, "cancelled: state=");
  ExpectLine(r, "action=\"Cancelled.\"");
  ExpectLine(r, "controls idle: 1");
  ExpectLine(r, "again: state=");
  // The first activation's late end (it has none: the server never answers) is dropped,
  // and the second one is running when the driver stops.
  EXPECT_NE(r.out.find("busy=1", r.out.find("again: state=")), std::string::npos) << r.out;
}

// Every control has a title, a description and an accessibility handler; Tab moves
// through the enabled controls top to bottom, left to right, and wraps (Shift+Tab goes
// back); at 400 x 300, in every state that changes what is shown, nothing overlaps and
// every control is inside the screen and at least a line tall.
TEST_F(JuceActivationScreen, ControlsAreTitledAndAccessibleTabFollowsTheLayoutAndNothingOverlaps) {
  const bb::CommandResult r = Drive("a11y-layout", Env("http://127.0.0.1:9", "", "screen-0006"));
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  for (const char* control :
       {"License key", "Activate", "Start trial", "Deactivate this computer",
        "Import activation file", "Write offline request", "Free a slot", "Cancel"}) {
    ExpectLine(r, std::string("control: \"") + control + "\" handler=1");
  }
  EXPECT_EQ(r.out.find("good=0"), std::string::npos) << r.out;
  ExpectLine(r,
             "tab: License key > Activate > Start trial > Import activation file > Write offline "
             "request > License key");
  ExpectLine(r, "shift-tab: Write offline request");
  for (const char* state : {"not-activated", "busy", "limit-reached", "limit-reached-busy"}) {
    ExpectLine(r, std::string("layout ") + state + ": ");
  }
  size_t clean = 0;
  for (size_t at = r.out.find("controls, 0 problems"); at != std::string::npos;
       at = r.out.find("controls, 0 problems", at + 1)) {
    ++clean;
  }
  EXPECT_EQ(clean, 4u) << r.out;
  EXPECT_EQ(r.out.find("overlaps"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("too small or outside"), std::string::npos) << r.out;
}

}  // namespace
