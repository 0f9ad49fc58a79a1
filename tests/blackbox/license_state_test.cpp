// docs/protocol.md §6: effective status (SUSPENDED, REFUNDED, REVOKED, EXPIRED) and soft delete.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/fixture.h"

namespace bb {
namespace {

class InactiveLicense : public BlackboxTest {
 protected:
  // `license` has machine-0001 activated and effective status `status` now: activate and
  // heartbeat answer 403 1704, status answers 200 valid:false, deactivate still works.
  void ExpectLockedButTidyable(const std::string& license, const std::string& status) {
    for (const HttpResponse& r :
         {Activate(license, "machine-0002"), Activate(license, "machine-0001"),
          Heartbeat(license, "machine-0001")}) {
      EXPECT_API_ERROR(r, 403, 1704, "LICENSE_API_INACTIVE");
      EXPECT_EQ(Str(BodyJson(r), "status"), status) << r.Describe();
    }
    const HttpResponse plain = Status(license);
    ASSERT_OK(plain);
    EXPECT_FALSE(Bool(BodyJson(plain), "valid")) << plain.Describe();
    EXPECT_EQ(Str(BodyJson(plain), "status"), status) << plain.Describe();
    const HttpResponse machine = Status(license, "machine-0001");
    ASSERT_OK(machine);
    EXPECT_FALSE(Bool(BodyJson(machine), "valid")) << machine.Describe();
    EXPECT_TRUE(Bool(BodyJson(machine), "machine.activated")) << machine.Describe();
    EXPECT_EQ(Str(BodyJson(machine), "status"), status) << machine.Describe();

    const HttpResponse gone = Deactivate(license, "machine-0001");
    EXPECT_OK(gone);
    EXPECT_EQ(Int(BodyJson(gone), "activations"), 0) << gone.Describe();
    EXPECT_EQ(AuditRecords(license, "license.deactivate").size(), 1u);
    EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 0u);
  }

  void CheckStoredStatus(const std::string& status) {
    Start();
    const std::string license = NewLicense(3);
    ASSERT_OK(Activate(license, "machine-0001"));
    admin().SetStatus(license, status);
    ExpectLockedButTidyable(license, status);
  }
};

class Deletion : public BlackboxTest {};

TEST_F(InactiveLicense, SuspendedRefusesActivateAndHeartbeatButAllowsStatusAndDeactivate) {
  CheckStoredStatus("SUSPENDED");
}

TEST_F(InactiveLicense, RefundedRefusesActivateAndHeartbeatButAllowsStatusAndDeactivate) {
  CheckStoredStatus("REFUNDED");
}

TEST_F(InactiveLicense, RevokedRefusesActivateAndHeartbeatButAllowsStatusAndDeactivate) {
  CheckStoredStatus("REVOKED");
}

TEST_F(InactiveLicense, ExpiredRefusesActivateAndHeartbeatButAllowsStatusAndDeactivate) {
  Start();
  const std::string expires = TimestampFromNow(std::chrono::milliseconds(2000));
  const std::string license = NewLicense(3, kProduct, expires);
  const HttpResponse before = Activate(license, "machine-0001");
  ASSERT_OK(before);
  EXPECT_EQ(Str(BodyJson(before), "expiresAt"), expires);
  EXPECT_EQ(Str(BodyJson(before), "status"), "ACTIVE");
  // Poll until the server sees the license as expired.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string status;
  while (std::chrono::steady_clock::now() < deadline) {
    const HttpResponse r = Status(license);
    ASSERT_OK(r);
    status = Str(BodyJson(r), "status");
    if (status != "ACTIVE") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(status, "EXPIRED");
  ExpectLockedButTidyable(license, "EXPIRED");
}

TEST_F(InactiveLicense, ExpiresAtInThePastIsExpiredFromTheStart) {
  Start();
  const std::string license = NewLicense(3, kProduct, "2020-01-01T00:00:00.000Z");
  const HttpResponse r = Activate(license, "machine-0001");
  EXPECT_API_ERROR(r, 403, 1704, "LICENSE_API_INACTIVE");
  EXPECT_EQ(Str(BodyJson(r), "status"), "EXPIRED") << r.Describe();
  const HttpResponse s = Status(license);
  ASSERT_OK(s);
  EXPECT_FALSE(Bool(BodyJson(s), "valid"));
  EXPECT_EQ(Str(BodyJson(s), "status"), "EXPIRED");
  EXPECT_EQ(Str(BodyJson(s), "expiresAt"), "2020-01-01T00:00:00.000Z");
  // deactivate is not refused for the status: it gets as far as "not activated".
  EXPECT_API_ERROR(Deactivate(license, "machine-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
}

TEST_F(InactiveLicense, SettingActiveAgainRestoresService) {
  Start();
  const std::string license = NewLicense(3);
  ASSERT_OK(Activate(license, "machine-0001"));
  admin().SetStatus(license, "SUSPENDED");
  EXPECT_EQ(Heartbeat(license, "machine-0001").status, 403);
  admin().SetStatus(license, "ACTIVE");
  EXPECT_OK(Heartbeat(license, "machine-0001"));
  EXPECT_OK(Activate(license, "machine-0002"));
}

TEST_F(Deletion, SoftDeletedLicenseAnswersExactlyLikeAnUnknownKeyOnAllEndpoints) {
  Start();
  const std::string license = NewLicense(3);
  ASSERT_OK(Activate(license, "machine-0001"));
  admin().Delete(license);
  const std::string unknown = RandomUuidV4();
  for (const char* endpoint : {"activate", "heartbeat", "status", "deactivate"}) {
    SCOPED_TRACE(endpoint);
    for (const char* machine : {"machine-0001", "machine-0002"}) {
      const HttpResponse deleted = Call(endpoint, Body(license, machine));
      EXPECT_API_ERROR(deleted, 404, 1703, "LICENSE_API_NOT_FOUND");
      const HttpResponse missing = Call(endpoint, Body(unknown, machine));
      EXPECT_EQ(Comparable(deleted, {license}), Comparable(missing, {unknown}));
    }
  }
  const HttpResponse plain = Status(license);
  EXPECT_API_ERROR(plain, 404, 1703, "LICENSE_API_NOT_FOUND");
  // Still shown by the admin CLI, with deletedAt; the refused calls wrote nothing.
  const json::value shown = admin().Show(license);
  EXPECT_TRUE(IsTimestamp(Str(shown, "deletedAt"))) << Dump(shown);
  EXPECT_EQ(AuditRecords(license, "license.deactivate").size(), 0u);
}

}  // namespace
}  // namespace bb
