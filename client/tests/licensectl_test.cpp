// Issue 5 item 6: licensectl as docs/protocol.md §16 says: flags and their environment
// variables (flags win), --timeout, --json, human output by default, the exit statuses
// 0/2/3/4/5/6 with every cause of each, heartbeat --every until SIGTERM, the pinned
// response key as base64 or a PEM file; against the real server.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/wait.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "auth/base64.h"
#include "sdk_fixture.h"
#include "support/db_lock.h"
#include "support/store_faults.h"

namespace licensed::client::test {
namespace {

using bb::CommandResult;
using bb::EnvVars;

class Licensectl : public SdkTest {
 protected:
  // licensectl with the server's URL, key id and secret as flags, plus `args`.
  CommandResult Run(const std::vector<std::string>& args, const EnvVars& env = {}) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY,    "--url",           Url(),
                                     "--key-id",           bb::kPluginKey.id, "--secret",
                                     bb::kPluginKey.secret};
    argv.insert(argv.end(), args.begin(), args.end());
    return bb::RunCommand(argv, WithCache(env), std::chrono::seconds(60));
  }
  // Without any flag: only what the test gives.
  CommandResult RunBare(const std::vector<std::string>& args, const EnvVars& env = {}) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return bb::RunCommand(argv, WithCache(env), std::chrono::seconds(60));
  }
  // The per-user cache of the child goes under the test's directory.
  EnvVars WithCache(EnvVars env) const {
    env.emplace_back("XDG_CACHE_HOME", (dir().path() / "xdg").string());
    return env;
  }
  std::vector<std::string> For(const std::string& license, const std::string& machine,
                               std::vector<std::string> rest) const {
    std::vector<std::string> out = {"--license-key", license, "--machine-id", machine};
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
};

TEST_F(Licensectl, ActivateHeartbeatStatusDeactivateSucceedWithHumanOutput) {
  Start();
  const std::string license = NewLicense(2);
  const CommandResult activated =
      Run(For(license, "ci-runner-0001", {"--machine-name", "CI runner", "activate"}));
  EXPECT_EQ(activated.exit_code, 0) << activated.Describe();
  EXPECT_NE(activated.out.find("activate: ok, license ACTIVE, 1 of 2 machines activated"),
            std::string::npos)
      << activated.Describe();
  EXPECT_EQ(bb::Str(bb::Arr(admin().Show(license), "activations")[0], "name"), "CI runner");
  for (const char* command : {"heartbeat", "status", "deactivate"}) {
    const CommandResult r = Run(For(license, "ci-runner-0001", {command}));
    EXPECT_EQ(r.exit_code, 0) << command << r.Describe();
    EXPECT_NE(r.out.find(std::string(command) + ": ok"), std::string::npos) << r.Describe();
  }
  EXPECT_TRUE(bb::Arr(admin().Show(license), "activations").empty());
}

TEST_F(Licensectl, EnvironmentIsReadAndFlagsBeatIt) {
  Start();
  const std::string license = NewLicense(2);
  const EnvVars env = {{"LICENSE_SERVER_URL", Url()},
                       {"LICENSE_KEY_ID", bb::kPluginKey.id},
                       {"LICENSE_SECRET", bb::kPluginKey.secret},
                       {"LICENSE_KEY", license},
                       {"LICENSE_MACHINE_ID", "env-machine-0001"},
                       {"LICENSE_MACHINE_NAME", "From env"}};
  const CommandResult from_env = RunBare({"activate"}, env);
  EXPECT_EQ(from_env.exit_code, 0) << from_env.Describe();
  const bb::json::value shown = admin().Show(license);
  ASSERT_EQ(bb::Arr(shown, "activations").size(), 1u);
  EXPECT_EQ(bb::Str(bb::Arr(shown, "activations")[0], "id"), "env-machine-0001");
  EXPECT_EQ(bb::Str(bb::Arr(shown, "activations")[0], "name"), "From env");
  // A flag beats its variable: another license key, unknown to the server.
  const CommandResult flag = RunBare({"--license-key", bb::RandomUuidV4(), "status"}, env);
  EXPECT_EQ(flag.exit_code, 3) << flag.Describe();
}

TEST_F(Licensectl, JsonPrintsTheServersAnswerOrAnErrorObject) {
  Start();
  const std::string license = NewLicense(2);
  const CommandResult r = Run(For(license, "json-machine-01", {"--json", "activate"}));
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const bb::json::value body = bb::ParseJson(r.out);
  EXPECT_TRUE(bb::Bool(body, "ok"));
  EXPECT_EQ(bb::Int(body, "activations"), 1);
  EXPECT_EQ(bb::Str(body, "machine.id"), "json-machine-01");

  const CommandResult refused =
      Run(For(bb::RandomUuidV4(), "json-machine-01", {"--json", "status"}));
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_EQ(bb::Int(bb::ParseJson(refused.out), "code"), 1703) << refused.Describe();

  const std::uint16_t dead = port();
  Stop();
  const CommandResult none =
      bb::RunCommand({LICENSECTL_BINARY, "--url", "http://127.0.0.1:" + std::to_string(dead),
                      "--key-id", "k", "--secret", "s", "--license-key", license, "--machine-id",
                      "json-machine-01", "--timeout", "1s", "--json", "status"},
                     WithCache({}));
  EXPECT_EQ(none.exit_code, 5) << none.Describe();
  const bb::json::value failure = bb::ParseJson(none.out);
  EXPECT_FALSE(bb::Bool(failure, "ok"));
  EXPECT_EQ(bb::Str(failure, "error"), "NETWORK");
}

TEST_F(Licensectl, UsageErrorsExit2) {
  Start();
  const std::string license = NewLicense(2);
  EXPECT_EQ(RunBare({"activate"}).exit_code, 2) << "no URL, key or secret";
  EXPECT_EQ(Run(For(license, "usage-machine-1", {})).exit_code, 2) << "no command";
  EXPECT_EQ(Run(For(license, "usage-machine-1", {"frobnicate"})).exit_code, 2);
  EXPECT_EQ(Run(For(license, "usage-machine-1", {"--timeout", "soon", "status"})).exit_code, 2);
  EXPECT_EQ(Run(For(license, "usage-machine-1", {"heartbeat", "--every", "0s"})).exit_code, 2);
  EXPECT_EQ(Run(For(license, "usage-machine-1", {"--public-key", "nope", "status"})).exit_code, 2);
  EXPECT_EQ(Run({"--license-key", license, "--bogus-flag", "status"}).exit_code, 2);
  // Review item 5: plain http:// to a remote host without a pinned key.
  const CommandResult remote =
      RunBare({"--url", "http://licenses.example.com", "--key-id", "k", "--license-key", license,
               "--machine-id", "usage-machine-1", "status"},
              {{"LICENSE_SECRET", "s"}});
  EXPECT_EQ(remote.exit_code, 2) << remote.Describe();
  EXPECT_NE(remote.err.find("http://"), std::string::npos) << remote.Describe();
  // Review item 6: --help steers the secret to the environment.
  const CommandResult help = RunBare({"--help"});
  EXPECT_NE(help.out.find("prefer the LICENSE_SECRET environment variable"), std::string::npos)
      << help.Describe();
}

TEST_F(Licensectl, LicenseNotUsableExits3) {
  Start();
  const std::string license = NewLicense(2);
  EXPECT_EQ(Run(For(bb::RandomUuidV4(), "machine-n-0001", {"activate"})).exit_code, 3) << "1703";
  EXPECT_EQ(Run(For(license, "machine-n-0001", {"heartbeat"})).exit_code, 3) << "1707";
  const CommandResult invalid = Run(For(license, "machine-n-0001", {"status"}));
  EXPECT_EQ(invalid.exit_code, 3) << "valid:false " << invalid.Describe();
  admin().SetStatus(license, "REFUNDED");
  const CommandResult inactive = Run(For(license, "machine-n-0001", {"activate"}));
  EXPECT_EQ(inactive.exit_code, 3) << "1704 " << inactive.Describe();
  EXPECT_NE(inactive.err.find("REFUNDED"), std::string::npos) << inactive.Describe();
}

TEST_F(Licensectl, MachineCapExits4WithTheHint) {
  bb::ServerOptions options;
  options.args = {"--dashboard-url", "https://example.com/account/activations"};
  Start(options);
  const std::string license = NewLicense(1);
  ASSERT_EQ(Run(For(license, "cap-machine-0001", {"activate"})).exit_code, 0);
  const CommandResult r = Run(For(license, "cap-machine-0002", {"activate"}));
  EXPECT_EQ(r.exit_code, 4) << r.Describe();
  EXPECT_NE(r.err.find("1 of 1 machines"), std::string::npos) << r.Describe();
  EXPECT_NE(r.err.find("https://example.com/account/activations"), std::string::npos);
}

TEST_F(Licensectl, TransientFailuresExit5WithinTheTimeout) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_EQ(Run(For(license, "transient-0001", {"activate"})).exit_code, 0);
  {
    // 503 1708 from a store locked by another process (the server waits 5 s for the
    // lock before it answers); the retry after it is cut short by the timeout. 9 s, not
    // less: on a loaded machine the 503 itself came after 7 s (seen in a full run).
    bb::DbLock lock(db_path());
    const CommandResult locked =
        Run(For(license, "transient-0001", {"--timeout", "9s", "heartbeat"}));
    EXPECT_EQ(locked.exit_code, 5) << locked.Describe();
    EXPECT_NE(locked.err.find("LICENSE_API_UNAVAILABLE"), std::string::npos) << locked.Describe();
  }
  // 500 1709 from a corrupted row, retried until the timeout.
  bb::CorruptLicenseStatus(db_path(), license);
  const CommandResult broken =
      Run(For(license, "transient-0001", {"--timeout", "1500ms", "status"}));
  EXPECT_EQ(broken.exit_code, 5) << broken.Describe();
  EXPECT_NE(broken.err.find("LICENSE_API_INTERNAL"), std::string::npos) << broken.Describe();
}

TEST_F(Licensectl, RateLimitedBeyondTheTimeoutExits5) {
  Start(bb::WithRateLimits("off", "1/1h"));
  const std::string license = NewLicense(2);
  ASSERT_EQ(Run(For(license, "limited-0001", {"activate"})).exit_code, 0);
  const CommandResult r = Run(For(license, "limited-0001", {"heartbeat"}));
  EXPECT_EQ(r.exit_code, 5) << r.Describe();
  EXPECT_NE(r.err.find("LICENSE_API_RATE_LIMITED"), std::string::npos) << r.Describe();
}

TEST_F(Licensectl, WronglySignedOrMalformedExits6) {
  Start();
  const std::string license = NewLicense(2);
  const CommandResult bad_secret =
      bb::RunCommand({LICENSECTL_BINARY, "--url", Url(), "--key-id", bb::kPluginKey.id, "--secret",
                      "wrong", "--license-key", license, "--machine-id", "signed-0001", "activate"},
                     WithCache({}));
  EXPECT_EQ(bad_secret.exit_code, 6) << bad_secret.Describe();
  const CommandResult malformed =
      Run(For(license, "signed-0002", {"--machine-name", std::string(101, 'n'), "activate"}));
  EXPECT_EQ(malformed.exit_code, 6) << "1702 " << malformed.Describe();
}

TEST_F(Licensectl, MachineIdIsDerivedAsTheSdkDoes) {
  const auto guid = linux_machine_guid("/");
  if (!guid) GTEST_SKIP() << "no /etc/machine-id here";
  Start();
  const std::string license = NewLicense(2);
  const CommandResult first = Run({"--license-key", license, "--vendor", "acme-audio", "activate"});
  ASSERT_EQ(first.exit_code, 0) << first.Describe();
  const std::string expected = *derive_machine_id(*guid, "acme-audio");
  EXPECT_NE(first.out.find("machine " + expected), std::string::npos) << first.Describe();
  // The SDK in a plugin with the same vendor sends the same id.
  ClientConfig config;
  config.url = Url();
  config.key_id = bb::kPluginKey.id;
  config.secret = bb::kPluginKey.secret;
  config.license_key = license;
  config.vendor = "acme-audio";
  std::string error;
  const auto sdk = Client::create(config, error);
  ASSERT_NE(sdk, nullptr) << error;
  EXPECT_EQ(sdk->machine_id(), expected);
  // LICENSE_VENDOR says the same as --vendor.
  const CommandResult again = bb::RunCommand(
      {LICENSECTL_BINARY, "--url", Url(), "--key-id", bb::kPluginKey.id, "--license-key", license,
       "activate"},
      WithCache({{"LICENSE_SECRET", bb::kPluginKey.secret}, {"LICENSE_VENDOR", "acme-audio"}}));
  EXPECT_NE(again.out.find("1 of 2 machines"), std::string::npos) << again.Describe();
}

// Issue item 4: two programs on one computer, in different directories (two DAWs, a DAW
// and its plugin scanner, a DAW upgraded into a new versioned path), derive one id, so
// with max 1 the second does not get 1705.
TEST_F(Licensectl, TwoProgramsInDifferentDirectoriesTakeOneSlot) {
  if (!linux_machine_guid("/")) GTEST_SKIP() << "no /etc/machine-id here";
  Start();
  const std::string license = NewLicense(1);
  std::vector<std::string> copies;
  for (const char* where : {"DAW 11/bin", "DAW 12/plugin-scanner"}) {
    const auto target = dir().path() / where / "licensectl";
    std::filesystem::create_directories(target.parent_path());
    std::filesystem::copy_file(LICENSECTL_BINARY, target);
    copies.push_back(target.string());
  }
  std::vector<std::string> ids;
  for (const std::string& program : copies) {
    const CommandResult r =
        bb::RunCommand({program, "--url", Url(), "--key-id", bb::kPluginKey.id, "--license-key",
                        license, "--vendor", "acme-audio", "activate"},
                       WithCache({{"LICENSE_SECRET", bb::kPluginKey.secret}}));
    EXPECT_EQ(r.exit_code, 0) << program << ": " << r.Describe();
    EXPECT_NE(r.out.find("1 of 1 machines"), std::string::npos) << r.Describe();
  }
}

// docs/protocol.md §4 and §16: licensectl sends a given machine id as it is; the server refuses one
// under 8 characters as malformed (the README's CI recipe adds a prefix instead).
TEST_F(Licensectl, AMachineIdShorterThanEightCharactersIsRefusedByTheServerAsMalformed) {
  Start();
  const std::string license = NewLicense(1);
  const CommandResult r = Run({"--license-key", license, "--machine-id", "ci-1001", "activate"});
  EXPECT_EQ(r.exit_code, 6) << r.Describe();
  // Eight code points of UTF-8 are enough, whatever their bytes.
  const CommandResult ok = Run({"--license-key", license, "--machine-id",
                                "ci-\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "activate"});
  EXPECT_EQ(ok.exit_code, 0) << ok.Describe();
}

// The shell block under README.md's "### In a CI job", as written.
std::string ReadmeCiRecipeText() {
  std::ifstream in(LICENSED_README);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const size_t section = readme.find("### In a CI job");
  const size_t start = readme.find("```sh\n", section);
  const size_t end = readme.find("```\n", start + 6);
  if (section == std::string::npos || start == std::string::npos || end == std::string::npos) {
    return "";
  }
  return readme.substr(start + 6, end - start - 6);
}

// Issue item 9: the recipe runs as a CI runner runs it (bash -e, licensectl on PATH, the
// secrets in the environment), in a directory holding `./run-the-build-with-the-plugin`.
class ReadmeCiRecipe : public Licensectl {
 protected:
  CommandResult RunRecipe(const std::string& license, const std::string& job_id,
                          const std::string& build_script) const {
    const std::string recipe = ReadmeCiRecipeText();
    EXPECT_FALSE(recipe.empty()) << "no CI recipe in " << LICENSED_README;
    const auto job = dir().path() / "job";
    std::filesystem::create_directories(job);
    dir().WriteFile("job/recipe.sh", recipe);
    const auto build = dir().WriteFile("job/run-the-build-with-the-plugin", build_script);
    std::filesystem::permissions(build, std::filesystem::perms::owner_all);
    const std::string path =
        std::filesystem::path(LICENSECTL_BINARY).parent_path().string() + ":/usr/bin:/bin";
    return bb::RunCommand({"/bin/bash", "-e", "-c", "cd \"$JOB_DIR\" && . ./recipe.sh"},
                          WithCache({{"PATH", path},
                                     {"JOB_DIR", job.string()},
                                     {"LICENSE_SERVER_URL", Url()},
                                     {"LICENSE_KEY_ID", bb::kPluginKey.id},
                                     {"LICENSE_SECRET", bb::kPluginKey.secret},
                                     {"LICENSE_KEY", license},
                                     {"LICENSE_PUBLIC_KEY", SigningPublicKey()},
                                     {"CI_JOB_ID", job_id},
                                     {"CI_RUNNER_DESCRIPTION", "shared runner 3"}}),
                          std::chrono::seconds(60));
  }
  // Whether the license's one slot is free: another machine can take it.
  bool SlotIsFree(const std::string& license) const {
    const CommandResult r = Run(For(license, "someone-else-01", {"activate"}));
    return r.exit_code == 0;
  }
};

TEST_F(ReadmeCiRecipe, RunsAsWrittenWithAShortJobIdAndGivesTheSlotBack) {
  Start();
  const std::string license = NewLicense(1);
  // The build checks the license the way a plugin under test would.
  const CommandResult r = RunRecipe(license, "7", "#!/bin/sh\nlicensectl status\n");
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find("activate: ok"), std::string::npos) << r.Describe();
  EXPECT_NE(r.out.find("status: ok"), std::string::npos) << r.Describe();
  EXPECT_NE(r.out.find("(machine ci-job-7)"), std::string::npos) << r.Describe();
  EXPECT_NE(r.out.find("deactivate: ok"), std::string::npos) << r.Describe();
  EXPECT_TRUE(SlotIsFree(license));
}

TEST_F(ReadmeCiRecipe, AFailedBuildFailsTheJobAndStillGivesTheSlotBack) {
  Start();
  const std::string license = NewLicense(1);
  const CommandResult r = RunRecipe(license, "1001", "#!/bin/sh\nexit 1\n");
  EXPECT_NE(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find("deactivate: ok"), std::string::npos) << r.Describe();
  EXPECT_TRUE(SlotIsFree(license));
}

TEST_F(ReadmeCiRecipe, AJobWhoseLicenseIsFullFailsAtItsStartAndTakesNothing) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_EQ(Run(For(license, "another-runner-1", {"activate"})).exit_code, 0);
  const CommandResult r = RunRecipe(license, "42", "#!/bin/sh\nexit 0\n");
  EXPECT_EQ(r.exit_code, 4) << "1705 ends the job at activate: " << r.Describe();
  EXPECT_EQ(r.out.find("heartbeat"), std::string::npos) << r.Describe();
}

// The server's response key as a PEM "PUBLIC KEY" file.
std::filesystem::path WritePem(const bb::TempDir& dir, const std::string& base64_key) {
  const auto raw = base64_decode(base64_key);
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, raw->data(), raw->size());
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(out, key);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  const std::string pem(data, static_cast<size_t>(size));
  BIO_free(out);
  EVP_PKEY_free(key);
  return dir.WriteFile("response-key.pem", pem);
}

TEST_F(Licensectl, PinnedResponseKeyAsBase64OrPemFile) {
  Start();
  const std::string license = NewLicense(2);
  const std::string key = SigningPublicKey();
  EXPECT_EQ(Run(For(license, "pinned-0001", {"--public-key", key, "activate"})).exit_code, 0);
  const std::string pem = WritePem(dir(), key).string();
  EXPECT_EQ(
      Run(For(license, "pinned-0001", {"heartbeat"}), {{"LICENSE_PUBLIC_KEY", pem}}).exit_code, 0);
  // Another key: every answer fails verification, which is a network failure (5).
  const CommandResult wrong =
      Run(For(license, "pinned-0001",
              {"--public-key", "1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=", "--timeout", "1s",
               "status"}));
  EXPECT_EQ(wrong.exit_code, 5) << wrong.Describe();
}

TEST_F(Licensectl, HeartbeatEveryRunsUntilSigterm) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_EQ(Run(For(license, "long-job-0001", {"activate"})).exit_code, 0);
  std::vector<std::string> argv = {LICENSECTL_BINARY,    "--url",           Url(),
                                   "--key-id",           bb::kPluginKey.id, "--secret",
                                   bb::kPluginKey.secret};
  for (const auto& a : For(license, "long-job-0001", {"heartbeat", "--every", "1s"})) {
    argv.push_back(a);
  }
  bb::ServerProcess job(argv, WithCache({}));
  // Two heartbeats: the loop goes on by itself.
  for (int i = 0; i < 1500; ++i) {
    const std::string log = job.log();
    const size_t first = log.find("heartbeat: ok");
    if (first != std::string::npos && log.find("heartbeat: ok", first + 1) != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const int status = job.Terminate();
  EXPECT_TRUE(WIFEXITED(status)) << job.log();
  EXPECT_EQ(WEXITSTATUS(status), 0) << job.log();
  const std::string log = job.log();
  const size_t first = log.find("heartbeat: ok");
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_NE(log.find("heartbeat: ok", first + 1), std::string::npos) << log;
}

TEST_F(Licensectl, HeartbeatEveryActivatesAgainWhenTheSlotWasFreed) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_EQ(Run(For(license, "long-job-0003", {"activate"})).exit_code, 0);
  std::vector<std::string> argv = {LICENSECTL_BINARY,    "--url",           Url(),
                                   "--key-id",           bb::kPluginKey.id, "--secret",
                                   bb::kPluginKey.secret};
  for (const auto& a : For(license, "long-job-0003", {"heartbeat", "--every", "1s"})) {
    argv.push_back(a);
  }
  bb::ServerProcess job(argv, WithCache({}));
  const auto wait_for_beats = [&](size_t n) {
    for (int i = 0; i < 1500; ++i) {
      size_t count = 0;
      const std::string log = job.log();
      for (size_t at = log.find("heartbeat: ok"); at != std::string::npos;
           at = log.find("heartbeat: ok", at + 1)) {
        ++count;
      }
      if (count >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };
  ASSERT_TRUE(wait_for_beats(1)) << job.log();
  // The slot is freed under the job (a customer on the dashboard, or a stale-machine
  // reclaim): the next heartbeat answers 1707 and the loop activates again.
  ASSERT_EQ(Run(For(license, "long-job-0003", {"deactivate"})).exit_code, 0);
  // Counting beats would race (one may land between the deactivate and its answer); the
  // machine coming back can only be the loop activating again.
  bb::json::value shown;
  for (int i = 0; i < 300; ++i) {
    shown = admin().Show(license);
    if (!bb::Arr(shown, "activations").empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const int status = job.Terminate();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << job.log();
  ASSERT_EQ(bb::Arr(shown, "activations").size(), 1u) << job.log();
  EXPECT_EQ(bb::Str(bb::Arr(shown, "activations")[0], "id"), "long-job-0003");
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 2u) << job.log();
}

TEST_F(Licensectl, HeartbeatEveryStopsOnARefusal) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_EQ(Run(For(license, "long-job-0002", {"activate"})).exit_code, 0);
  admin().SetStatus(license, "REVOKED");
  const CommandResult r = Run(For(license, "long-job-0002", {"heartbeat", "--every", "1h"}));
  EXPECT_EQ(r.exit_code, 3) << r.Describe();
}

}  // namespace
}  // namespace licensed::client::test
