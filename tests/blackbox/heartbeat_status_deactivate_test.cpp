// docs/protocol.md §8 and §9: heartbeat, status and deactivate.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class Heartbeat : public BlackboxTest {};
class Status : public BlackboxTest {};
class Deactivate : public BlackboxTest {};

TEST_F(Heartbeat, AnswersStatusExpiresAtLastSeenAtActivationsMax) {
  Start();
  const std::string license = NewLicense(4);
  ASSERT_OK(Activate(license, "machine-0001"));
  const HttpResponse r = BlackboxTest::Heartbeat(license, "machine-0001");
  ASSERT_OK(r);
  const json::value v = BodyJson(r);
  EXPECT_EQ(Str(v, "status"), "ACTIVE");
  EXPECT_TRUE(IsNull(v, "expiresAt")) << r.Describe();
  EXPECT_TRUE(IsTimestamp(Str(v, "lastSeenAt"))) << r.Describe();
  EXPECT_EQ(Int(v, "activations"), 1);
  EXPECT_EQ(Int(v, "max"), 4);
}

TEST_F(Heartbeat, UpdatesLastSeenAt) {
  Start();
  const std::string license = NewLicense(1);
  const HttpResponse activated = Activate(license, "machine-0001");
  ASSERT_OK(activated);
  const std::string first = Str(BodyJson(activated), "machine.lastSeenAt");
  // The admin CLI run in between takes well over a millisecond.
  EXPECT_EQ(Str(Arr(admin().Show(license), "activations").at(0), "lastSeenAt"), first);
  const HttpResponse r = BlackboxTest::Heartbeat(license, "machine-0001");
  ASSERT_OK(r);
  const std::string second = Str(BodyJson(r), "lastSeenAt");
  EXPECT_GT(second, first);
  EXPECT_EQ(Str(Arr(admin().Show(license), "activations").at(0), "lastSeenAt"), second);
}

TEST_F(Heartbeat, WritesNoAuditRecord) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));
  const std::size_t before = Arr(admin().Audit(license), "").size();
  ASSERT_OK(BlackboxTest::Heartbeat(license, "machine-0001"));
  ASSERT_OK(BlackboxTest::Heartbeat(license, "machine-0001"));
  EXPECT_EQ(Arr(admin().Audit(license), "").size(), before);
}

TEST_F(Heartbeat, InactiveComesBeforeMachineNotActivated) {
  Start();
  const std::string license = NewLicense(1);
  admin().SetStatus(license, "REVOKED");
  const HttpResponse r = BlackboxTest::Heartbeat(license, "machine-0001");
  EXPECT_API_ERROR(r, 403, 1704, "LICENSE_API_INACTIVE");
  EXPECT_EQ(Str(BodyJson(r), "status"), "REVOKED") << r.Describe();
}

TEST_F(Status, WritesNothing) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001"));
  const std::string shown = Dump(admin().Show(license));
  const std::string audit = Dump(admin().Audit(license));
  EXPECT_OK(BlackboxTest::Status(license, "machine-0001"));
  EXPECT_OK(BlackboxTest::Status(license, "machine-0002"));
  EXPECT_OK(BlackboxTest::Status(license));
  EXPECT_EQ(Dump(admin().Show(license)), shown);
  EXPECT_EQ(Dump(admin().Audit(license)), audit);
}

TEST_F(Status, MachineIsNullWithoutMachineId) {
  Start();
  const std::string license = NewLicense(3);
  ASSERT_OK(Activate(license, "machine-0001"));
  const HttpResponse r = BlackboxTest::Status(license);
  ASSERT_OK(r);
  const json::value v = BodyJson(r);
  EXPECT_TRUE(Bool(v, "valid"));
  EXPECT_TRUE(IsNull(v, "machine")) << "machine must be present and null\n" << r.Describe();
  EXPECT_EQ(Str(v, "product.slug"), kProduct);
  EXPECT_EQ(Str(v, "product.name"), kProductName);
  EXPECT_EQ(Str(v, "status"), "ACTIVE");
  EXPECT_TRUE(IsNull(v, "expiresAt")) << r.Describe();
  EXPECT_EQ(Int(v, "activations"), 1);
  EXPECT_EQ(Int(v, "max"), 3);
}

TEST_F(Status, ActivatedMachineIsValid) {
  Start();
  const std::string license = NewLicense(3);
  const HttpResponse activated = Activate(license, "machine-0001");
  ASSERT_OK(activated);
  const HttpResponse r = BlackboxTest::Status(license, "machine-0001");
  ASSERT_OK(r);
  const json::value v = BodyJson(r);
  EXPECT_TRUE(Bool(v, "valid"));
  EXPECT_EQ(Str(v, "machine.id"), "machine-0001");
  EXPECT_TRUE(Bool(v, "machine.activated"));
  EXPECT_EQ(Str(v, "machine.lastSeenAt"), Str(BodyJson(activated), "machine.lastSeenAt"));
}

TEST_F(Status, MachineNotActivatedIsNotValid) {
  Start();
  const std::string license = NewLicense(3);
  ASSERT_OK(Activate(license, "machine-0001"));
  const HttpResponse r = BlackboxTest::Status(license, "machine-0002");
  ASSERT_OK(r);
  const json::value v = BodyJson(r);
  EXPECT_FALSE(Bool(v, "valid"));
  EXPECT_EQ(Str(v, "machine.id"), "machine-0002");
  EXPECT_FALSE(Bool(v, "machine.activated"));
  EXPECT_EQ(Str(v, "status"), "ACTIVE");
  EXPECT_EQ(Int(v, "activations"), 1);
}

TEST_F(Deactivate, RemovesTheActivationAndWritesAuditThenHeartbeatIs1707) {
  Start();
  const std::string license = NewLicense(3);
  ASSERT_OK(Activate(license, "machine-0001"));
  ASSERT_OK(Activate(license, "machine-0002"));
  const HttpResponse r = BlackboxTest::Deactivate(license, "machine-0001");
  ASSERT_OK(r);
  const json::value v = BodyJson(r);
  EXPECT_EQ(Int(v, "activations"), 1);
  EXPECT_EQ(Int(v, "max"), 3);
  const json::array left = Arr(admin().Show(license), "activations");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(Str(left[0], "id"), "machine-0002");
  const auto records = AuditRecords(license, "license.deactivate");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(Str(records[0], "machineId"), "machine-0001");
  EXPECT_EQ(Str(records[0], "actor"), "client");
  EXPECT_EQ(Str(records[0], "requestId"), r.header("X-Request-Id").value_or("?"));
  EXPECT_API_ERROR(BlackboxTest::Heartbeat(license, "machine-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_API_ERROR(BlackboxTest::Deactivate(license, "machine-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_EQ(AuditRecords(license, "license.deactivate").size(), 1u);
}

}  // namespace
}  // namespace bb
