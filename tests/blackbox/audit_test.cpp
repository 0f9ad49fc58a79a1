// docs/protocol.md §17: what the API writes into the audit trail.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class Audit : public BlackboxTest {};

TEST_F(Audit, ActivateRecordCarriesClientActorIpKeyIdAndRequestId) {
  Start();
  const std::string license = NewLicense(2);
  const HttpResponse r = Activate(license, "machine-0001");
  ASSERT_OK(r);
  const auto records = AuditRecords(license, "license.activate");
  ASSERT_EQ(records.size(), 1u);
  const json::value& rec = records[0];
  EXPECT_EQ(Str(rec, "licenseKey"), license);
  EXPECT_EQ(Str(rec, "machineId"), "machine-0001");
  EXPECT_EQ(Str(rec, "actor"), "client");
  EXPECT_EQ(Str(rec, "ip"), "127.0.0.1");
  EXPECT_EQ(Str(rec, "keyId"), kPluginKey.id);
  EXPECT_EQ(Str(rec, "requestId"), r.header("X-Request-Id").value_or("?"));
  EXPECT_TRUE(IsTimestamp(Str(rec, "at"))) << Dump(rec);
  EXPECT_FALSE(Has(rec, "refresh")) << Dump(rec);
}

TEST_F(Audit, RecordsAreOldestFirstWithIncreasingIds) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001"));
  ASSERT_OK(Activate(license, "machine-0001"));
  ASSERT_OK(Deactivate(license, "machine-0001"));
  const json::value all = admin().Audit(license);
  std::vector<std::string> actions;
  std::int64_t last_id = -1;
  std::string last_at;
  for (const auto& rec : Arr(all, "")) {
    const std::string action = Str(rec, "action");
    if (action == "license.create") {
      EXPECT_TRUE(actions.empty()) << "license.create must come first\n" << Dump(all);
      EXPECT_EQ(Str(rec, "actor"), "admin") << Dump(rec);
    } else {
      actions.push_back(action);
    }
    EXPECT_GT(Int(rec, "id"), last_id) << Dump(all);
    EXPECT_GE(Str(rec, "at"), last_at) << Dump(all);
    last_id = Int(rec, "id");
    last_at = Str(rec, "at");
  }
  const std::vector<std::string> expected = {"license.activate", "license.heartbeat",
                                             "license.deactivate"};
  EXPECT_EQ(actions, expected) << Dump(all);
}

TEST_F(Audit, RefusedRequestsWriteNothing) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));
  const std::string before = Dump(admin().Audit(license));
  EXPECT_EQ(Activate(license, "machine-0002").status, 409);
  EXPECT_EQ(Heartbeat(license, "machine-0002").status, 404);
  EXPECT_EQ(Deactivate(license, "machine-0002").status, 404);
  SignOptions wrong;
  wrong.secret = "wrong";
  EXPECT_EQ(Call("deactivate", Body(license, "machine-0001"), kPluginKey, wrong).status, 401);
  EXPECT_EQ(Dump(admin().Audit(license)), before);
}

}  // namespace
}  // namespace bb
