// The Store contract for plans, entitlements, trials and the server's own secrets
// (docs/protocol.md §20), run on SQLite and on PostgreSQL alike: every member round-trips,
// plan codes are unique per product, trial records find their license and a reset
// forgets them, the trial key is made once, and of 64 concurrent first trials of one
// machine exactly one creates.
#include <gtest/gtest.h>

#include <future>
#include <latch>
#include <set>
#include <thread>

#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "auth/trial_key.h"
#include "core/operations.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Entitlement;
using licensed::License;
using licensed::Plan;
using licensed::Result;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;

class PlansTrialsConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!StoreKindAvailable(GetParam())) GTEST_SKIP() << "no test PostgreSQL server";
    harness_ = std::make_unique<StoreHarness>(GetParam());
    auto made = licensed::run_blocking(harness_->store(), TxKind::kWrite, [](StoreTx& tx) {
      return licensed::create_product(tx, "reverb", "Reverb Pro", licensed::AdminContext{kT0});
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
    product_id_ = made->id;
  }
  licensed::Store& store() { return harness_->store(); }
  template <class Fn>
  auto Write(Fn&& fn) {
    return licensed::run_blocking(store(), TxKind::kWrite, std::forward<Fn>(fn));
  }
  template <class Fn>
  auto Read(Fn&& fn) {
    return licensed::run_blocking(store(), TxKind::kRead, std::forward<Fn>(fn));
  }
  Plan FullPlan() const {
    Plan p;
    p.product_id = product_id_;
    p.code = "pro";
    p.name = "Reverb Pro";
    p.max = 3;
    p.valid_for_seconds = 365 * 86400;
    p.valid_from_first_activation = true;
    p.machine_ttl_seconds = 600;
    p.offline_grace_seconds = 7 * 86400;
    p.offline_lease_seconds = 30 * 86400;
    p.offline_release = licensed::OfflineRelease::kDeactivation;
    p.max_concurrent = 2;
    p.lease_ttl_seconds = 900;
    p.max_deactivations = 5;
    p.max_borrow_seconds = 14 * 86400;
    p.entitlements = {{"updates", 365 * 86400, std::nullopt}, {"voices", std::nullopt, "64"}};
    p.created_at = kT0;
    return p;
  }
  licensed::OperationContext TrialContext(const licensed::TrialKey& key) const {
    licensed::OperationContext ctx;
    ctx.now = kT0;
    ctx.trial_identity = &key;
    ctx.new_license_key = &licensed::generate_license_key;
    return ctx;
  }
  void OfferTrials() {
    auto offered = Write([](StoreTx& tx) -> Result<licensed::Product> {
      const boost::json::object plan{{"code", "trial"}, {"name", "Trial"}, {"max", 1}};
      if (auto p = licensed::create_plan(tx, "reverb", plan, licensed::AdminContext{kT0});
          !p.ok()) {
        return p.error();
      }
      return licensed::patch_product(
          tx, "reverb",
          boost::json::object{{"trial", boost::json::object{{"plan", "trial"}, {"days", 14}}}});
    });
    ASSERT_TRUE(offered.ok()) << offered.error().message;
  }

  std::unique_ptr<StoreHarness> harness_;
  int64_t product_id_ = 0;
};

TEST_P(PlansTrialsConformance, APlanRoundTripsEveryMemberAndItsCodeIsUniquePerProduct) {
  const Plan full = FullPlan();
  auto inserted = Write([&](StoreTx& tx) { return tx.insert_plan(full); });
  ASSERT_TRUE(inserted.ok()) << inserted.error().message;
  auto found = Read([&](StoreTx& tx) { return tx.find_plan(product_id_, "pro"); });
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ(licensed::plan_json(*found.value()), licensed::plan_json(full));
  auto again = Write([&](StoreTx& tx) { return tx.insert_plan(full); });
  EXPECT_FALSE(again.ok()) << "a second plan pro of the same product";

  Plan changed = *found.value();
  changed.name = "Reverb Pro 2";
  changed.entitlements.clear();
  changed.max.reset();
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.update_plan(changed); }).ok());
  auto listed = Read([&](StoreTx& tx) { return tx.list_plans(product_id_); });
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(licensed::plan_json(listed->front()), licensed::plan_json(changed));
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.delete_plan(changed.id); }).ok());
  EXPECT_TRUE(Read([&](StoreTx& tx) { return tx.list_plans(product_id_); })->empty());
}

TEST_P(PlansTrialsConformance, AProductKeepsItsDefaultPlanAndTrialOffer) {
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.insert_plan(FullPlan()); }).ok());
  auto product = Read([](StoreTx& tx) { return tx.find_product("reverb"); });
  ASSERT_TRUE(product.ok() && product->has_value());
  licensed::Product p = *product.value();
  EXPECT_FALSE(p.default_plan || p.trial);
  p.default_plan = "pro";
  p.trial = licensed::TrialOffer{"pro", 30};
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.update_product(p); }).ok());
  auto listed = Read([](StoreTx& tx) { return tx.list_products(); });
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().default_plan, "pro");
  ASSERT_TRUE(listed->front().trial.has_value());
  EXPECT_EQ(listed->front().trial->plan, "pro");
  EXPECT_EQ(listed->front().trial->days, 30);
}

TEST_P(PlansTrialsConformance, ALicenseKeepsItsPlanEntitlementsGraceTrialAndPendingValidity) {
  licensed::NewLicense n;
  n.key = "0b9f6ad2-3c1e-4b8a-9d2f-5e6a7b8c9d01";
  n.product_id = product_id_;
  n.max = 1;
  n.created_at = kT0;
  n.plan = "pro";
  n.entitlements = {Entitlement{"voices", std::nullopt, "64", std::nullopt},
                    Entitlement{"updates", kT0 + 5, std::nullopt, std::nullopt},
                    Entitlement{"later", std::nullopt, "\"text\"", 86400}};
  n.offline_grace_seconds = 3600;
  n.trial = true;
  n.valid_for_pending_seconds = 86400;
  auto made = Write([&](StoreTx& tx) { return tx.insert_license(n); });
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(made->plan, "pro");
  EXPECT_TRUE(made->trial);
  EXPECT_EQ(made->offline_grace_seconds, 3600);
  EXPECT_EQ(made->valid_for_pending_seconds, 86400);
  EXPECT_EQ(licensed::entitlements_to_store(made->entitlements),
            licensed::entitlements_to_store(n.entitlements));

  License changed = made.value();
  changed.entitlements.pop_back();
  changed.offline_grace_seconds.reset();
  changed.valid_for_pending_seconds.reset();
  changed.plan.reset();
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.update_license(changed); }).ok());
  auto found = Read([&](StoreTx& tx) { return tx.find_license(n.key); });
  ASSERT_TRUE(found.ok() && found->has_value());
  const License& l = *found.value();
  EXPECT_EQ(l.entitlements.size(), 2u);
  EXPECT_FALSE(l.offline_grace_seconds || l.valid_for_pending_seconds || l.plan);
  EXPECT_EQ(licensed::offline_grace_seconds(l), 3 * 86400) << "a trial's default";
}

TEST_P(PlansTrialsConformance, TheServerSecretIsMadeOnceAndKept) {
  auto first = Write([](StoreTx& tx) { return tx.ensure_server_secret("trial", "aaaa", kT0); });
  auto second = Write([](StoreTx& tx) { return tx.ensure_server_secret("trial", "bbbb", kT0); });
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first.value(), "aaaa");
  EXPECT_EQ(second.value(), "aaaa");
}

TEST_P(PlansTrialsConformance, ATrialIsFoundAgainByItsMachineAndAResetForgetsIt) {
  OfferTrials();
  auto key = Write([](StoreTx& tx) { return licensed::stored_trial_key(tx, kT0); });
  ASSERT_TRUE(key.ok());
  const licensed::TrialKey& trial_key = *key.value();
  licensed::LicenseRequest req;
  req.product = "reverb";
  req.machine_id = "trial-machine-01";
  req.email = "ann@example.com";
  auto run = [&](licensed::TrialMode mode) {
    return Write(
        [&](StoreTx& tx) { return licensed::trial(tx, req, TrialContext(trial_key), mode); });
  };
  auto none = run(licensed::TrialMode::kFindOnly);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value()) << "find-only creates nothing";
  auto made = run(licensed::TrialMode::kCreate);
  ASSERT_TRUE(made.ok() && made->has_value());
  const std::string license_key(made->value().at("licenseKey").as_string());
  auto again = run(licensed::TrialMode::kFindOnly);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ(again->value().at("licenseKey").as_string(), license_key);

  auto machine = Read([&](StoreTx& tx) {
    return tx.find_trial(product_id_, trial_key.machine("trial-machine-01"));
  });
  ASSERT_TRUE(machine.ok());
  EXPECT_EQ(machine.value(), license_key);
  auto reset = Write([&](StoreTx& tx) {
    return licensed::reset_trial(tx, "reverb", "trial-machine-01", licensed::AdminContext{kT0});
  });
  ASSERT_TRUE(reset.ok()) << reset.error().message;
  auto email = Read([&](StoreTx& tx) {
    return tx.find_trial_email(product_id_, trial_key.email("ann@example.com"));
  });
  ASSERT_TRUE(email.ok());
  EXPECT_FALSE(email->has_value()) << "the reset trial's email is forgotten too";
  EXPECT_FALSE(run(licensed::TrialMode::kFindOnly).value().has_value());
}

TEST_P(PlansTrialsConformance, SixtyFourConcurrentFirstTrialsOfOneMachineCreateOne) {
  OfferTrials();
  auto key = Write([](StoreTx& tx) { return licensed::stored_trial_key(tx, kT0); });
  ASSERT_TRUE(key.ok());
  const licensed::TrialKey& trial_key = *key.value();
  constexpr int kCalls = 64;
  std::latch go(kCalls);
  std::vector<std::future<std::string>> answers;
  for (int i = 0; i < kCalls; ++i) {
    answers.push_back(std::async(std::launch::async, [&]() -> std::string {
      licensed::LicenseRequest req;
      req.product = "reverb";
      req.machine_id = "trial-machine-race";
      go.arrive_and_wait();
      auto r = Write([&](StoreTx& tx) {
        return licensed::trial(tx, req, TrialContext(trial_key), licensed::TrialMode::kCreate);
      });
      if (!r.ok() || !r->has_value()) return "failed: " + r.error().message();
      return std::string(r->value().at("licenseKey").as_string());
    }));
  }
  std::set<std::string> keys;
  for (auto& a : answers) keys.insert(a.get());
  EXPECT_EQ(keys.size(), 1u) << *keys.begin();
}

INSTANTIATE_TEST_SUITE_P(Stores, PlansTrialsConformance, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
