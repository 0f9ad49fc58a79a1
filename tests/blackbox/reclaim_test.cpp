// docs/protocol.md §10, stale-machine reclaim, against the real binary: machineTtl in the
// answers, counts of fresh machines only, reclaim audited as `system`, and the cap exact
// under 64 concurrent activations with stale machines to reclaim. Activations are made
// stale by ageing last_seen_at in the store (the server's clock cannot be moved from
// here), on SQLite or PostgreSQL, whichever the suite runs on.
#include <gtest/gtest.h>

#include "support/activation_age.h"
#include "support/fixture.h"

namespace bb {
namespace {

using std::chrono::minutes;

class Reclaim : public BlackboxTest {
 protected:
  std::string NewLicenseWithTtl(int max, const std::string& ttl) {
    return admin().CreateLicense(std::string(kProduct), max, std::nullopt, ttl);
  }
  // Past a 10-minute TTL.
  void MakeStale(const std::string& license) { AgeActivations(store(), license, minutes(11)); }
};

TEST_F(Reclaim, MachineTtlIsNullByDefaultAndSetFromTheAdminCli) {
  Start();
  const std::string plain = NewLicense(2);
  const HttpResponse never = Status(plain);
  ASSERT_OK(never);
  EXPECT_TRUE(IsNull(BodyJson(never), "machineTtl")) << never.Describe();
  const std::string farm = NewLicenseWithTtl(2, "10m");
  const HttpResponse ten = Status(farm);
  ASSERT_OK(ten);
  EXPECT_EQ(Int(BodyJson(ten), "machineTtl"), 600) << ten.Describe();

  EXPECT_TRUE(IsNull(admin().Show(plain), "machineTtl"));
  EXPECT_EQ(Int(admin().Show(farm), "machineTtl"), 600);
  EXPECT_EQ(admin().Run({"license", "set-machine-ttl", farm, "10 minutes"}).exit_code, 1);
  EXPECT_EQ(Int(admin().Show(farm), "machineTtl"), 600);

  ASSERT_EQ(admin().Run({"license", "set-machine-ttl", farm, "never"}).exit_code, 0);
  EXPECT_TRUE(IsNull(BodyJson(Status(farm)), "machineTtl"));
  ASSERT_EQ(admin().Run({"license", "set-machine-ttl", plain, "90s"}).exit_code, 0);
  EXPECT_EQ(Int(BodyJson(Status(plain)), "machineTtl"), 90);
}

TEST_F(Reclaim, WithoutATtlOldMachinesStillCount) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "old-machine-0001"));
  AgeActivations(store(), license, std::chrono::hours(24 * 365));
  const HttpResponse r = Activate(license, "new-machine-0001");
  EXPECT_EQ(r.status, 409) << r.Describe();
  EXPECT_EQ(Int(BodyJson(Status(license)), "activations"), 1);
  EXPECT_TRUE(AuditRecords(license, "license.reclaim").empty());
}

TEST_F(Reclaim, EveryAnswerCountsFreshMachinesOnly) {
  Start();
  const std::string license = NewLicenseWithTtl(3, "10m");
  ASSERT_OK(Activate(license, "runner-0001"));
  ASSERT_OK(Activate(license, "runner-0002"));
  MakeStale(license);
  ASSERT_OK(Activate(license, "runner-0003"));  // reclaims 0001 and 0002
  ASSERT_OK(Activate(license, "runner-0004"));
  MakeStale(license);  // 0003 and 0004 stale, not yet reclaimed

  const HttpResponse status = Status(license);
  ASSERT_OK(status);
  EXPECT_EQ(Int(BodyJson(status), "activations"), 0) << status.Describe();
  // A stale machine answers as an activated one until reclaimed, and counts again.
  const HttpResponse beat = Heartbeat(license, "runner-0003");
  ASSERT_OK(beat);
  EXPECT_EQ(Int(BodyJson(beat), "activations"), 1) << beat.Describe();
  const HttpResponse machine_status = Status(license, "runner-0004");
  ASSERT_OK(machine_status);
  EXPECT_EQ(Int(BodyJson(machine_status), "activations"), 1) << machine_status.Describe();
  const HttpResponse gone = Deactivate(license, "runner-0003");
  ASSERT_OK(gone);
  EXPECT_EQ(Int(BodyJson(gone), "activations"), 0) << gone.Describe();

  ASSERT_OK(Activate(license, "runner-0005"));  // reclaims 0004
  ASSERT_OK(Activate(license, "runner-0006"));
  ASSERT_OK(Activate(license, "runner-0007"));
  const HttpResponse full = Activate(license, "runner-0008");
  ASSERT_EQ(full.status, 409) << full.Describe();
  EXPECT_EQ(Int(BodyJson(full), "code"), 1705);
  EXPECT_EQ(Int(BodyJson(full), "activations"), 3) << full.Describe();

  const HttpResponse reclaimed = Heartbeat(license, "runner-0004");
  EXPECT_EQ(reclaimed.status, 404) << reclaimed.Describe();
  EXPECT_EQ(Int(BodyJson(reclaimed), "code"), 1707);
  const auto records = AuditRecords(license, "license.reclaim");
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) EXPECT_EQ(Str(r, "actor"), "system") << Dump(r);
}

TEST_F(Reclaim, CapIsExactUnder64ConcurrentActivationsWithFiveStaleMachines) {
  Start();
  const std::string license = NewLicenseWithTtl(5, "10m");
  for (int i = 0; i < 5; ++i) ASSERT_OK(Activate(license, "stale-runner-" + std::to_string(i)));
  MakeStale(license);

  ExpectExactlyMaxActivated(ActivateAllAtOnce(license, "new-runner-", 64), 5);
  const json::value shown = admin().Show(license);
  const json::array& left = Arr(shown, "activations");
  ASSERT_EQ(left.size(), 5u);
  for (const auto& a : left) EXPECT_TRUE(Str(a, "id").starts_with("new-runner-")) << Dump(a);
  const auto records = AuditRecords(license, "license.reclaim");
  ASSERT_EQ(records.size(), 5u);
  for (const auto& r : records) EXPECT_EQ(Str(r, "actor"), "system") << Dump(r);
}

}  // namespace
}  // namespace bb
