// licensectl's concurrent-seat commands (docs/protocol.md §27) against the real server:
// `checkout` takes a seat and exits 4 on 1710, `checkout --every` renews until SIGTERM and
// then checks the seat in, `checkin` gives it back; README.md's seats recipe runs as written.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

class LicensectlSeats : public SdkTest {
 protected:
  std::vector<std::string> Argv(const std::string& license, const std::string& machine,
                                const std::vector<std::string>& rest) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY,
                                     "--url",
                                     Url(),
                                     "--key-id",
                                     bb::kPluginKey.id,
                                     "--secret",
                                     bb::kPluginKey.secret,
                                     "--license-key",
                                     license,
                                     "--machine-id",
                                     machine};
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
  }
  bb::EnvVars Env() const { return {{"XDG_CACHE_HOME", (dir().path() / "xdg").string()}}; }
  bb::CommandResult Run(const std::string& license, const std::string& machine,
                        const std::vector<std::string>& rest) const {
    return bb::RunCommand(Argv(license, machine, rest), Env(), std::chrono::seconds(60));
  }
  std::string SeatLicense(int max, int seats) const {
    const bb::CommandResult r =
        admin().Run({"license", "create", "--product", std::string(bb::kProduct), "--max",
                     std::to_string(max), "--max-concurrent", std::to_string(seats), "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return bb::Str(bb::ParseJson(r.out), "licenseKey");
  }
  int64_t Leases(const std::string& license) const {
    return bb::Int(bb::BodyJson(Status(license)), "leases");
  }
};

TEST_F(LicensectlSeats, CheckoutTakesASeatCheckinGivesItBackAndAFullLicenseExits4) {
  Start();
  const std::string license = SeatLicense(3, 1);
  ASSERT_EQ(Run(license, "ci-runner-0001", {"activate"}).exit_code, 0);
  ASSERT_EQ(Run(license, "ci-runner-0002", {"activate"}).exit_code, 0);
  const bb::CommandResult taken = Run(license, "ci-runner-0001", {"checkout"});
  EXPECT_EQ(taken.exit_code, 0) << taken.Describe();
  EXPECT_EQ(Leases(license), 1);
  const bb::CommandResult full = Run(license, "ci-runner-0002", {"checkout"});
  EXPECT_EQ(full.exit_code, 4) << full.Describe();
  EXPECT_NE(full.err.find("every concurrent seat is in use"), std::string::npos) << full.Describe();
  const bb::CommandResult json = Run(license, "ci-runner-0002", {"--json", "checkout"});
  EXPECT_EQ(json.exit_code, 4);
  EXPECT_EQ(bb::Int(bb::ParseJson(json.out), "code"), 1710) << json.Describe();
  EXPECT_EQ(Run(license, "ci-runner-0001", {"checkin"}).exit_code, 0);
  EXPECT_EQ(Leases(license), 0);
  EXPECT_EQ(Run(license, "ci-runner-0002", {"checkout", "--session", "job-4711-abc"}).exit_code, 0);
  EXPECT_EQ(Run(license, "ci-runner-0002", {"checkin", "--session", "job-4711-abc"}).exit_code, 0);
  EXPECT_EQ(Leases(license), 0);
}

TEST_F(LicensectlSeats, CheckoutEveryHoldsTheSeatUntilSigtermThenChecksIn) {
  Start();
  const std::string license = SeatLicense(3, 1);
  ASSERT_EQ(Run(license, "long-job-0001", {"activate"}).exit_code, 0);
  bb::ServerProcess job(Argv(license, "long-job-0001", {"checkout", "--every", "1s"}), Env());
  for (int i = 0; i < 1500 && Leases(license) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(Leases(license), 1) << job.log();
  const int status = job.Terminate();
  EXPECT_TRUE(WIFEXITED(status)) << job.log();
  EXPECT_EQ(WEXITSTATUS(status), 0) << job.log();
  EXPECT_NE(job.log().find("checkin: ok"), std::string::npos) << job.log();
  EXPECT_EQ(Leases(license), 0);
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 1u);  // renewals are not audited
}

// Issue 25 item 2 through licensectl: `checkout --borrow` installs the lease file (with the
// pinned key, in --offline-dir), and `status` with the server out of reach answers from it
// as the SDK's start-up check does (source lease, exit 0); another computer's does not.
TEST_F(LicensectlSeats, CheckoutBorrowInstallsTheLeaseFileAndStatusAnswersFromItOffline) {
  Start();
  const bb::CommandResult created =
      admin().Run({"license", "create", "--product", std::string(bb::kProduct), "--max", "3",
                   "--max-concurrent", "1", "--max-borrow", "7d", "--json"});
  ASSERT_EQ(created.exit_code, 0) << created.Describe();
  const std::string license = bb::Str(bb::ParseJson(created.out), "licenseKey");
  const std::vector<std::string> files = {"--public-key",  SigningPublicKey(),
                                          "--offline-dir", (dir().path() / "machine-wide").string(),
                                          "--timeout",     "1s"};
  const auto with_files = [&](std::vector<std::string> rest) {
    rest.insert(rest.begin(), files.begin(), files.end());
    return rest;
  };
  ASSERT_EQ(Run(license, "tour-laptop-01", {"activate"}).exit_code, 0);
  const bb::CommandResult borrowed =
      Run(license, "tour-laptop-01", with_files({"checkout", "--borrow", "3d"}));
  ASSERT_EQ(borrowed.exit_code, 0) << borrowed.Describe();
  EXPECT_NE(
      borrowed.out.find("lease file installed at " + (dir().path() / "machine-wide").string()),
      std::string::npos)
      << borrowed.Describe();
  const auto laptop = Argv(license, "tour-laptop-01", with_files({"status"}));
  const auto laptop_json = Argv(license, "tour-laptop-01", with_files({"--json", "status"}));
  const auto elsewhere = Argv(license, "tour-desktop-02", with_files({"status"}));

  Stop();
  const bb::CommandResult offline = bb::RunCommand(laptop, Env(), std::chrono::seconds(60));
  EXPECT_EQ(offline.exit_code, 0) << offline.Describe();
  EXPECT_NE(offline.out.find("status: ok, borrowed seat until "), std::string::npos)
      << offline.Describe();
  const bb::CommandResult json = bb::RunCommand(laptop_json, Env(), std::chrono::seconds(60));
  EXPECT_EQ(json.exit_code, 0) << json.Describe();
  EXPECT_EQ(bb::Str(bb::ParseJson(json.out), "source"), "lease") << json.Describe();
  EXPECT_EQ(bb::Str(bb::ParseJson(json.out), "lease.machine.id"), "tour-laptop-01");
  const bb::CommandResult other = bb::RunCommand(elsewhere, Env(), std::chrono::seconds(60));
  EXPECT_EQ(other.exit_code, 5) << "no answer for another computer: " << other.Describe();
}

// The shell block under README.md's "### A CI job that needs one of N seats", as written.
std::string ReadmeSeatsRecipeText() {
  std::ifstream in(LICENSED_README);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const size_t section = readme.find("### A CI job that needs one of N seats");
  const size_t start = readme.find("```sh\n", section);
  const size_t end = readme.find("```\n", start + 6);
  if (section == std::string::npos || start == std::string::npos || end == std::string::npos) {
    return "";
  }
  return readme.substr(start + 6, end - start - 6);
}

// Issue 25 item 4: the recipe runs as a CI runner runs it (bash -e, licensectl on PATH, the
// secrets in the environment), each job in a directory of its own holding
// `./run-the-build-with-the-plugin`.
class ReadmeSeatsRecipe : public LicensectlSeats {
 protected:
  // The job's argv and environment; `build_script` is its build.
  std::pair<std::vector<std::string>, bb::EnvVars> Job(const std::string& license,
                                                       const std::string& runner_id,
                                                       const std::string& job_id,
                                                       const std::string& build_script) const {
    const std::string recipe = ReadmeSeatsRecipeText();
    EXPECT_FALSE(recipe.empty()) << "no seats recipe in " << LICENSED_README;
    const std::string name = "job-" + job_id;
    std::filesystem::create_directories(dir().path() / name);
    dir().WriteFile(name + "/recipe.sh", recipe);
    const auto build = dir().WriteFile(name + "/run-the-build-with-the-plugin", build_script);
    std::filesystem::permissions(build, std::filesystem::perms::owner_all);
    const std::string path =
        std::filesystem::path(LICENSECTL_BINARY).parent_path().string() + ":/usr/bin:/bin";
    bb::EnvVars env = Env();
    env.insert(env.end(), {{"PATH", path},
                           {"JOB_DIR", (dir().path() / name).string()},
                           {"LICENSE_SERVER_URL", Url()},
                           {"LICENSE_KEY_ID", bb::kPluginKey.id},
                           {"LICENSE_SECRET", bb::kPluginKey.secret},
                           {"LICENSE_KEY", license},
                           {"LICENSE_PUBLIC_KEY", SigningPublicKey()},
                           {"CI_RUNNER_ID", runner_id},
                           {"CI_JOB_ID", job_id}});
    return {{"/bin/bash", "-e", "-c", "cd \"$JOB_DIR\" && . ./recipe.sh"}, env};
  }
  // Lets a job's build end (the file it waits for), then waits for the job to end on its
  // own: run even when an assertion fails, so that the recipe checks in and nothing it
  // started outlives the test (or keeps the job's output pipe open).
  struct FinishTheBuild {
    std::filesystem::path go;
    bb::ServerProcess& job;
    ~FinishTheBuild() {
      { std::ofstream(go) << "go"; }
      for (int i = 0; i < 1500 && !job.ExitedOnItsOwn(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  };
  // A build that runs until `go` exists (at most a minute).
  static std::string BuildUntil(const std::filesystem::path& go) {
    return "#!/bin/sh\ni=0\nwhile [ ! -e '" + go.string() +
           "' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n";
  }
  static size_t Count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
};

TEST_F(ReadmeSeatsRecipe, AJobHoldsASeatRenewsItAndChecksItInOnSigtermWhileASecondJobExits4) {
  Start();
  const std::string license = SeatLicense(3, 1);
  // Job 1's build runs until the test lets it finish.
  const auto go = dir().path() / "go";
  auto [argv, env] = Job(license, "101", "5001", BuildUntil(go));
  bb::ServerProcess first(argv, env);
  const FinishTheBuild finally{go, first};
  // The seat is taken, then renewed by the loop (its first checkout renews at once).
  for (int i = 0; i < 1500 && Count(first.log(), "checkout: ok") < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(Count(first.log(), "checkout: ok"), 2u) << first.log();
  EXPECT_NE(first.log().find("(machine ci-runner-101)"), std::string::npos) << first.log();
  EXPECT_EQ(Leases(license), 1);
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 1u)
      << "the second checkout renewed the lease (renewals are not audited)";

  // A second job on another runner meanwhile: every seat is taken, it fails at its start.
  const auto built = dir().path() / "second-job-built";
  auto [argv2, env2] = Job(license, "102", "5002", "#!/bin/sh\ntouch '" + built.string() + "'\n");
  const bb::CommandResult second = bb::RunCommand(argv2, env2, std::chrono::seconds(60));
  EXPECT_EQ(second.exit_code, 4) << "1710 ends the job: " << second.Describe();
  EXPECT_NE(second.err.find("every concurrent seat is in use"), std::string::npos)
      << second.Describe();
  EXPECT_FALSE(std::filesystem::exists(built)) << "the build did not run";
  EXPECT_EQ(Leases(license), 1);

  // Job 1's build ends: the recipe's kill (SIGTERM) makes the loop check the seat in.
  { std::ofstream(go) << "go"; }
  std::optional<int> status;  // the job ends on its own: the recipe kills its renewal loop
  for (int i = 0; i < 1500 && !(status = first.ExitedOnItsOwn()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(status.has_value()) << first.log();
  first.Terminate();  // the log complete
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << first.log();
  EXPECT_EQ(Count(first.log(), "checkin: ok"), 1u) << "the loop checked in: " << first.log();
  EXPECT_EQ(Leases(license), 0);
  EXPECT_EQ(AuditRecords(license, "license.checkin").size(), 1u);
}

TEST_F(ReadmeSeatsRecipe, AFailedBuildFailsTheJobAndStillGivesTheSeatBack) {
  Start();
  const std::string license = SeatLicense(3, 1);
  auto [argv, env] = Job(license, "103", "5003", "#!/bin/sh\nsleep 1\nexit 1\n");
  const bb::CommandResult r = bb::RunCommand(argv, env, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_NE(r.out.find("checkin: ok"), std::string::npos) << r.Describe();
  EXPECT_EQ(Leases(license), 0);
}

}  // namespace
}  // namespace licensed::client::test
