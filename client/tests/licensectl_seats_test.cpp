// licensectl's concurrent-seat commands (docs/protocol.md §27) against the real server:
// `checkout` takes a seat and exits 4 on 1710, `checkout --every` renews until SIGTERM and
// then checks the seat in, `checkin` gives it back.
#include <gtest/gtest.h>
#include <sys/wait.h>

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

}  // namespace
}  // namespace licensed::client::test
