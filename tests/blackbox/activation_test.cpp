// docs/protocol.md §7, activate: the answer, idempotence for a known machine, and the cap.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "support/fixture.h"

namespace bb {
namespace {

class Activation : public BlackboxTest {};

TEST_F(Activation, FirstActivationAnswersLicenseAndMachine) {
  Start();
  const std::string license = NewLicense(3);
  const HttpResponse r = Activate(license, "machine-0001", "Studio PC");
  ASSERT_OK(r);
  ExpectCommonHeaders(r);
  const json::value v = BodyJson(r);
  EXPECT_EQ(Str(v, "product.slug"), kProduct);
  EXPECT_EQ(Str(v, "product.name"), kProductName);
  EXPECT_EQ(Str(v, "status"), "ACTIVE");
  EXPECT_TRUE(IsNull(v, "expiresAt")) << r.Describe();
  EXPECT_EQ(Int(v, "activations"), 1);
  EXPECT_EQ(Int(v, "max"), 3);
  EXPECT_EQ(Str(v, "machine.id"), "machine-0001");
  EXPECT_EQ(Str(v, "machine.name"), "Studio PC");
  EXPECT_TRUE(IsTimestamp(Str(v, "machine.activatedAt"))) << r.Describe();
  EXPECT_TRUE(IsTimestamp(Str(v, "machine.lastSeenAt"))) << r.Describe();

  const json::value shown = admin().Show(license);
  const json::array& activations = Arr(shown, "activations");
  ASSERT_EQ(activations.size(), 1u) << Dump(shown);
  EXPECT_EQ(Str(activations[0], "id"), "machine-0001");
  EXPECT_EQ(Str(activations[0], "name"), "Studio PC");
  EXPECT_EQ(Str(activations[0], "activatedAt"), Str(v, "machine.activatedAt"));
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 1u);
}

TEST_F(Activation, CapIsExactUnder64ConcurrentActivations) {
  Start();
  const std::string license = NewLicense(5);
  ExpectExactlyMaxActivated(ActivateAllAtOnce(license, "concurrent-machine-", 64), 5);
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 5u);
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 5u);
}

TEST_F(Activation, RepeatActivationIsIdempotentAndAuditedAsRefresh) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001"));
  const HttpResponse again = Activate(license, "machine-0001");
  ASSERT_OK(again);
  EXPECT_EQ(Int(BodyJson(again), "activations"), 1) << again.Describe();
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 1u);
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 1u);
  const auto refresh = AuditRecords(license, "license.heartbeat");
  ASSERT_EQ(refresh.size(), 1u);
  EXPECT_EQ(At(refresh[0], "refresh"), json::value(true)) << Dump(refresh[0]);
  EXPECT_EQ(Str(refresh[0], "machineId"), "machine-0001");
  EXPECT_EQ(Str(refresh[0], "actor"), "client");
  EXPECT_FALSE(Has(AuditRecords(license, "license.activate")[0], "refresh"))
      << "refresh appears only when true";
}

TEST_F(Activation, RepeatActivationReplacesMachineNameWhenGiven) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001", "Old Name"));
  const HttpResponse r = Activate(license, "machine-0001", "New Name");
  ASSERT_OK(r);
  EXPECT_EQ(Str(BodyJson(r), "machine.name"), "New Name");
  EXPECT_EQ(Str(Arr(admin().Show(license), "activations").at(0), "name"), "New Name");
}

TEST_F(Activation, RepeatActivationKeepsMachineNameWhenAbsentOrNull) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001", "Studio PC"));
  const HttpResponse absent = Activate(license, "machine-0001");
  ASSERT_OK(absent);
  EXPECT_EQ(Str(BodyJson(absent), "machine.name"), "Studio PC");
  const HttpResponse null_name =
      Call("activate",
           R"({"licenseKey":")" + license + R"(","machineId":"machine-0001","machineName":null})");
  ASSERT_OK(null_name);
  EXPECT_EQ(Str(BodyJson(null_name), "machine.name"), "Studio PC");
  EXPECT_EQ(Str(Arr(admin().Show(license), "activations").at(0), "name"), "Studio PC");
}

TEST_F(Activation, EmptyMachineNameClearsTheName) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001", "Studio PC"));
  const HttpResponse r = Activate(license, "machine-0001", "");
  ASSERT_OK(r);
  const json::value body_json1 = BodyJson(r);  // Find points into it
  const json::value* name = Find(body_json1, "machine.name");
  ASSERT_NE(name, nullptr) << r.Describe();
  EXPECT_TRUE(name->is_null() || *name == json::value("")) << r.Describe();
  const json::value shown = Arr(admin().Show(license), "activations").at(0);
  const json::value* shown_name = Find(shown, "name");
  EXPECT_TRUE(shown_name == nullptr || shown_name->is_null() || *shown_name == json::value(""))
      << Dump(shown);
}

TEST_F(Activation, LoweringMaxKeepsExistingMachinesActivating) {
  Start();
  const std::string license = NewLicense(3);
  for (const char* m : {"machine-0001", "machine-0002", "machine-0003"}) {
    ASSERT_OK(Activate(license, m));
  }
  admin().SetMax(license, 1);
  const HttpResponse existing = Activate(license, "machine-0002");
  EXPECT_OK(existing);
  EXPECT_EQ(Int(BodyJson(existing), "activations"), 3) << existing.Describe();
  EXPECT_EQ(Int(BodyJson(existing), "max"), 1) << existing.Describe();
  EXPECT_OK(Heartbeat(license, "machine-0003"));
  const HttpResponse fresh = Activate(license, "machine-0004");
  EXPECT_API_ERROR(fresh, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  EXPECT_EQ(Int(BodyJson(fresh), "activations"), 3) << fresh.Describe();
  EXPECT_EQ(Int(BodyJson(fresh), "max"), 1) << fresh.Describe();
}

TEST_F(Activation, MaxZeroRefusesEveryMachine) {
  Start();
  const std::string license = NewLicense(0);
  const HttpResponse r = Activate(license, "machine-0001");
  EXPECT_API_ERROR(r, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  EXPECT_EQ(Int(BodyJson(r), "activations"), 0) << r.Describe();
  EXPECT_EQ(Int(BodyJson(r), "max"), 0) << r.Describe();
}

TEST_F(Activation, MachineIdsAreComparedByteForByte) {
  Start();
  const std::string license = NewLicense(3);
  ASSERT_OK(Activate(license, "Machine-0001"));
  const HttpResponse r = Activate(license, "machine-0001");
  ASSERT_OK(r);
  EXPECT_EQ(Int(BodyJson(r), "activations"), 2) << r.Describe();
  EXPECT_API_ERROR(Heartbeat(license, "MACHINE-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
}

TEST_F(Activation, FreedSlotCanBeTakenByAnotherMachine) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));
  EXPECT_EQ(Activate(license, "machine-0002").status, 409);
  ASSERT_OK(Deactivate(license, "machine-0001"));
  const HttpResponse r = Activate(license, "machine-0002");
  EXPECT_OK(r);
  EXPECT_EQ(Int(BodyJson(r), "activations"), 1) << r.Describe();
}

}  // namespace
}  // namespace bb
