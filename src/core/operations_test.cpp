#include "core/operations.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "admin/admin_operations.h"
#include "core/timestamp.h"
#include "store/sqlite/memory_test_store.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;

class OperationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_memory_test_store();
    ASSERT_TRUE(store_);
    auto product = run_blocking(*store_, TxKind::kWrite, [&](StoreTx& tx) {
      return create_product(tx, "reverb", "Reverb Pro", admin());
    });
    ASSERT_TRUE(product.ok());
  }

  AdminContext admin() const { return AdminContext{clock_.now_ms(), std::nullopt}; }

  template <class Fn>
  auto write(Fn&& fn) {
    return run_blocking(*store_, TxKind::kWrite, std::forward<Fn>(fn));
  }

  std::string new_license(int64_t max, std::optional<int64_t> ttl = std::nullopt) {
    LicenseSpec spec{"reverb", max, std::nullopt, ttl, LicenseStatus::kActive, "", {}, {}, {}};
    auto l = write([&](StoreTx& tx) { return create_license(tx, spec, admin()); });
    EXPECT_TRUE(l.ok());
    return l->key;
  }

  RequestResult<boost::json::object> call(Endpoint e, const std::string& key,
                                          std::optional<std::string> machine,
                                          std::optional<std::string> name = std::nullopt) {
    LicenseRequest req{key, std::move(machine), std::move(name), {}, {}, {}, {}};
    return write([&](StoreTx& tx) {
      OperationContext ctx;
      ctx.now = clock_.now_ms();
      ctx.ip = "127.0.0.1";
      ctx.key_id = "k";
      ctx.request_id = "req_test";
      ctx.dashboard_url = &dashboard_;
      return run_operation(e, tx, req, ctx);
    });
  }

  std::vector<std::string> actions(const std::string& key) {
    auto audit = write([&](StoreTx& tx) { return license_audit(tx, key); });
    std::vector<std::string> out;
    for (const auto& e : audit.value()) out.emplace_back(e.at("action").as_string());
    return out;
  }

  // The refusal an operation chose; a store failure (none is expected here) fails the test.
  static const ApiError& refusal(const RequestResult<boost::json::object>& r) {
    static const ApiError kNone = errors::internal();
    const ApiError* answer = r.error().answer();
    EXPECT_NE(answer, nullptr) << "a store failure: " << r.error().failure()->message;
    return answer != nullptr ? *answer : kNone;
  }

  static int code(const RequestResult<boost::json::object>& r) {
    return r.ok() ? 200 : static_cast<int>(refusal(r).code.value_or(ErrorCode::kInternal));
  }

  ManualClock clock_{kStart};
  std::optional<std::string> dashboard_ = std::string("https://example.com/activations");
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(OperationsTest, ActivateCountsDistinctMachinesUpToTheCap) {
  const auto key = new_license(2);
  EXPECT_EQ(call(Endpoint::kActivate, key, "machine-1")->at("activations").as_int64(), 1);
  EXPECT_EQ(call(Endpoint::kActivate, key, "machine-2")->at("activations").as_int64(), 2);
  auto third = call(Endpoint::kActivate, key, "machine-3");
  ASSERT_EQ(code(third), 1705);
  EXPECT_EQ(refusal(third).http_status, 409);
  EXPECT_EQ(refusal(third).extra.at("activations").as_int64(), 2);
  EXPECT_EQ(refusal(third).extra.at("max").as_int64(), 2);
  EXPECT_EQ(refusal(third).extra.at("dashboardUrl").as_string(), "https://example.com/activations");
}

TEST_F(OperationsTest, RepeatActivationRefreshesReplacesNameAndAuditsHeartbeat) {
  const auto key = new_license(1);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1", "Old").ok());
  clock_.advance_ms(5000);
  auto again = call(Endpoint::kActivate, key, "machine-1", "New");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->at("activations").as_int64(), 1);
  EXPECT_EQ(again->at("machine").at("name").as_string(), "New");
  EXPECT_NE(again->at("machine").at("lastSeenAt"), again->at("machine").at("activatedAt"));
  auto kept = call(Endpoint::kActivate, key, "machine-1");
  EXPECT_EQ(kept->at("machine").at("name").as_string(), "New");
  auto cleared = call(Endpoint::kActivate, key, "machine-1", "");
  EXPECT_TRUE(cleared->at("machine").at("name").is_null());
  EXPECT_EQ(actions(key),
            (std::vector<std::string>{"license.create", "license.activate", "license.heartbeat",
                                      "license.heartbeat", "license.heartbeat"}));
}

TEST_F(OperationsTest, MachineActivatedBeforeMaxWasLoweredStillActivates) {
  const auto key = new_license(2);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-2").ok());
  ASSERT_TRUE(write([&](StoreTx& tx) { return set_license_max(tx, key, 1, admin()); }).ok());
  auto known = call(Endpoint::kActivate, key, "machine-2");
  ASSERT_TRUE(known.ok());
  EXPECT_EQ(known->at("activations").as_int64(), 2);
  EXPECT_EQ(known->at("max").as_int64(), 1);
  EXPECT_EQ(code(call(Endpoint::kActivate, key, "machine-3")), 1705);
}

TEST_F(OperationsTest, InactiveStatusesRefuseActivateAndHeartbeatButNotStatusOrDeactivate) {
  for (auto st : {LicenseStatus::kSuspended, LicenseStatus::kRefunded, LicenseStatus::kRevoked}) {
    const auto key = new_license(3);
    ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
    ASSERT_TRUE(write([&](StoreTx& tx) { return set_license_status(tx, key, st, admin()); }).ok());
    auto a = call(Endpoint::kActivate, key, "machine-2");
    ASSERT_EQ(code(a), 1704);
    EXPECT_EQ(refusal(a).extra.at("status").as_string(), to_string(st));
    EXPECT_EQ(code(call(Endpoint::kHeartbeat, key, "machine-1")), 1704);
    auto s = call(Endpoint::kStatus, key, "machine-1");
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(s->at("valid").as_bool());
    EXPECT_EQ(s->at("status").as_string(), to_string(st));
    EXPECT_TRUE(call(Endpoint::kDeactivate, key, "machine-1").ok());
  }
}

TEST_F(OperationsTest, ExpiredLicenseIsEffectivelyExpired) {
  LicenseSpec spec{"reverb", 3, kStart + 1000, std::nullopt, LicenseStatus::kActive, "", {},
                   {},       {}};
  const auto key = write([&](StoreTx& tx) { return create_license(tx, spec, admin()); })->key;
  EXPECT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
  clock_.advance_ms(1000);  // expiresAt == now: not in the future, so expired
  auto a = call(Endpoint::kActivate, key, "machine-1");
  ASSERT_EQ(code(a), 1704);
  EXPECT_EQ(refusal(a).extra.at("status").as_string(), "EXPIRED");
  EXPECT_EQ(call(Endpoint::kStatus, key, std::nullopt)->at("status").as_string(), "EXPIRED");
}

TEST_F(OperationsTest, DeletedLicenseAnswersAsUnknownEverywhere) {
  const auto key = new_license(3);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
  ASSERT_TRUE(write([&](StoreTx& tx) { return delete_license(tx, key, admin()); }).ok());
  for (auto e :
       {Endpoint::kActivate, Endpoint::kHeartbeat, Endpoint::kStatus, Endpoint::kDeactivate}) {
    EXPECT_EQ(code(call(e, key, "machine-1")), 1703);
    EXPECT_EQ(code(call(e, "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c", "machine-1")), 1703);
  }
}

TEST_F(OperationsTest, HeartbeatNeedsAnActivatedMachineAndMovesLastSeen) {
  const auto key = new_license(3);
  EXPECT_EQ(code(call(Endpoint::kHeartbeat, key, "machine-1")), 1707);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
  clock_.advance_ms(60'000);
  auto hb = call(Endpoint::kHeartbeat, key, "machine-1");
  ASSERT_TRUE(hb.ok());
  EXPECT_EQ(hb->at("lastSeenAt").as_string(), format_timestamp(kStart + 60'000));
  EXPECT_EQ(actions(key).size(), 2u);  // heartbeats write no audit record
}

TEST_F(OperationsTest, StatusWritesNothing) {
  const auto key = new_license(3);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
  clock_.advance_ms(10'000);
  auto s = call(Endpoint::kStatus, key, "machine-1");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->at("valid").as_bool());
  EXPECT_EQ(s->at("machine").at("lastSeenAt").as_string(), format_timestamp(kStart));
  auto unknown_machine = call(Endpoint::kStatus, key, "machine-9");
  EXPECT_FALSE(unknown_machine->at("valid").as_bool());
  EXPECT_FALSE(unknown_machine->at("machine").at("activated").as_bool());
  EXPECT_TRUE(call(Endpoint::kStatus, key, std::nullopt)->at("machine").is_null());
  EXPECT_EQ(actions(key).size(), 2u);
}

TEST_F(OperationsTest, DeactivateFreesTheSlotAndAudits) {
  const auto key = new_license(1);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "machine-1").ok());
  auto d = call(Endpoint::kDeactivate, key, "machine-1");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->at("activations").as_int64(), 0);
  EXPECT_EQ(code(call(Endpoint::kDeactivate, key, "machine-1")), 1707);
  EXPECT_TRUE(call(Endpoint::kActivate, key, "machine-2").ok());
  EXPECT_EQ(actions(key)[2], "license.deactivate");
}

TEST_F(OperationsTest, StaleMachinesDoNotCountAndAreReclaimedByTheNextActivate) {
  const auto key = new_license(2, 600);
  ASSERT_TRUE(call(Endpoint::kActivate, key, "runner-1").ok());
  ASSERT_TRUE(call(Endpoint::kActivate, key, "runner-2").ok());
  EXPECT_EQ(code(call(Endpoint::kActivate, key, "runner-3")), 1705);
  clock_.advance_ms(601'000);
  // Stale machines still answer status and heartbeat until reclaimed...
  EXPECT_EQ(call(Endpoint::kStatus, key, std::nullopt)->at("activations").as_int64(), 0);
  auto hb = call(Endpoint::kHeartbeat, key, "runner-1");
  ASSERT_TRUE(hb.ok());  // ...and a heartbeat makes runner-1 count again
  EXPECT_EQ(hb->at("activations").as_int64(), 1);
  auto a = call(Endpoint::kActivate, key, "runner-3");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->at("activations").as_int64(), 2);
  EXPECT_EQ(code(call(Endpoint::kHeartbeat, key, "runner-2")), 1707);  // reclaimed
  const auto acts = actions(key);
  EXPECT_EQ(std::count(acts.begin(), acts.end(), "license.reclaim"), 1);
}

// "The next activate of that license deletes the stale activations": the activating
// machine's own too. It held no slot, so it activates anew: a reclaim record, then an
// activate record (not a refresh), a new activatedAt, and the cap applies to it.
TEST_F(OperationsTest, AStaleMachineActivatingIsReclaimedThenActivatedAnew) {
  const auto key = new_license(1, 600);
  auto first = call(Endpoint::kActivate, key, "runner-1");
  ASSERT_TRUE(first.ok());
  const auto first_activated = first->at("machine").at("activatedAt");
  clock_.advance_ms(601'000);
  auto again = call(Endpoint::kActivate, key, "runner-1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->at("activations").as_int64(), 1);
  EXPECT_NE(again->at("machine").at("activatedAt"), first_activated);
  EXPECT_EQ(actions(key), (std::vector<std::string>{"license.create", "license.activate",
                                                    "license.reclaim", "license.activate"}));
  // Fresh again, it holds the only slot.
  EXPECT_EQ(code(call(Endpoint::kActivate, key, "runner-2")), 1705);
}

TEST_F(OperationsTest, FiftyShortLivedRunnersNeverHitTheCapWithATtl) {
  const auto key = new_license(5, 600);
  for (int i = 0; i < 50; ++i) {
    const std::string runner = "runner-" + std::to_string(1000 + i);
    ASSERT_EQ(code(call(Endpoint::kActivate, key, runner)), 200) << runner;
    clock_.advance_ms(5 * 60'000);  // a job runs 5 minutes then the runner vanishes
  }
  // Five runners at once after the earlier ones went stale: all fit; a sixth does not.
  clock_.advance_ms(11 * 60'000);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(code(call(Endpoint::kActivate, key, "burst-" + std::to_string(1000 + i))), 200);
  }
  EXPECT_EQ(code(call(Endpoint::kActivate, key, "burst-sixth")), 1705);
}

}  // namespace
}  // namespace licensed
