// The Store contract for webhooks (docs/protocol.md §25), on SQLite and on PostgreSQL alike: an
// event is written with the change it reports (and rolled back with it), only for endpoints that
// take its type; endpoints keep their secrets through a rotation; a due delivery is claimed once,
// by one of two stores on one database; attempts, retries, marks and pruning.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <future>
#include <set>

#include "admin/admin_operations.h"
#include "core/webhook_event.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::License;
using licensed::Result;
using licensed::StoreTx;
using licensed::UnixMillis;
using licensed::WebhookDelivery;
using licensed::WebhookEndpoint;

constexpr UnixMillis kT0 = 1'780'000'000'000;
constexpr UnixMillis kHour = 3'600'000;

class WebhookConformance : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    auto made = Write([](StoreTx& tx) {
      return licensed::create_product(tx, "reverb", "Reverb Pro", licensed::AdminContext{kT0});
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
  }

  int64_t AddEndpoint(std::vector<std::string> events, std::string secret = "whsec_one") {
    WebhookEndpoint w;
    w.url = "https://hooks.example.com/in";
    w.events = std::move(events);
    w.created_at = kT0;
    w.secrets = {{std::move(secret), kT0, std::nullopt}};
    auto made = Write([&](StoreTx& tx) { return tx.insert_webhook_endpoint(w); });
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made.ok() ? made->id : 0;
  }

  License CreateLicense(UnixMillis at = kT0) {
    licensed::LicenseSpec spec;
    spec.product_slug = "reverb";
    spec.max = 2;
    auto made = Write([&](StoreTx& tx) {
      return licensed::create_license(tx, spec, licensed::AdminContext{at, "ops"});
    });
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made.ok() ? made.value() : License{};
  }

  std::vector<WebhookDelivery> Deliveries(int64_t endpoint_id) {
    auto listed =
        Read([&](StoreTx& tx) { return tx.list_webhook_deliveries(endpoint_id, 0, 100); });
    EXPECT_TRUE(listed.ok()) << listed.error().message;
    return listed.ok() ? listed.value() : std::vector<WebhookDelivery>{};
  }

  std::vector<WebhookDelivery> Claim(licensed::Store& store, UnixMillis now, int64_t limit = 100) {
    auto claimed = licensed::run_blocking(store, licensed::TxKind::kWrite, [&](StoreTx& tx) {
      return tx.claim_webhook_deliveries(now, now + 60'000, limit);
    });
    EXPECT_TRUE(claimed.ok()) << claimed.error().message;
    return claimed.ok() ? claimed.value() : std::vector<WebhookDelivery>{};
  }

  int64_t Pending() {
    auto stats = Read([](StoreTx& tx) { return tx.webhook_outbox_stats(); });
    EXPECT_TRUE(stats.ok());
    return stats.ok() ? stats->pending : -1;
  }
};

TEST_P(WebhookConformance, WithoutEndpointsAChangeWritesNoEvent) {
  CreateLicense();
  EXPECT_EQ(Pending(), 0);
}

TEST_P(WebhookConformance, AChangeWritesItsEventForEachEndpointThatTakesItsType) {
  const int64_t all = AddEndpoint({"*"});
  const int64_t created_only = AddEndpoint({"license.created"});
  const int64_t deletions = AddEndpoint({"license.deleted"});
  const License l = CreateLicense();
  ASSERT_EQ(Deliveries(all).size(), 1u);
  ASSERT_EQ(Deliveries(created_only).size(), 1u);
  EXPECT_TRUE(Deliveries(deletions).empty());
  const WebhookDelivery d = Deliveries(all)[0];
  EXPECT_EQ(d.type, "license.created");
  EXPECT_EQ(d.attempts, 0);
  EXPECT_EQ(d.next_attempt_at, kT0);
  auto event = Read([&](StoreTx& tx) { return tx.find_webhook_event(d.event_id); });
  ASSERT_TRUE(event.ok() && event->has_value());
  const auto body = boost::json::parse(event.value()->body).as_object();
  EXPECT_EQ(body.at("type").as_string(), "license.created");
  EXPECT_EQ(body.at("data").at("license").at("licenseKey").as_string(), l.key);
  EXPECT_EQ(body.at("data").at("actor").as_string(), "admin");
}

TEST_P(WebhookConformance, AnEventIsRolledBackWithItsChange) {
  const int64_t id = AddEndpoint({"*"});
  licensed::LicenseSpec spec;
  spec.product_slug = "reverb";
  spec.max = 1;
  licensed::Store& s = store();
  s.submit(licensed::TxKind::kWrite,
           licensed::StoreJob{[&](StoreTx& tx) {
                                (void)licensed::create_license(tx, spec,
                                                               licensed::AdminContext{kT0});
                                return false;  // roll back
                              },
                              [](const std::optional<licensed::Error>&) {}});
  CreateLicense();  // queued behind it: once it is done, the first has been rolled back
  EXPECT_EQ(Deliveries(id).size(), 1u);
}

TEST_P(WebhookConformance, ARotationKeepsTheOldSecretSigningUntilItRetires) {
  const int64_t id = AddEndpoint({"*"}, "whsec_old");
  ASSERT_TRUE(Write([&](StoreTx& tx) {
                return tx.rotate_webhook_secret(id, "whsec_new", kT0 + kHour, kT0 + 25 * kHour);
              }).ok());
  auto during = Read([&](StoreTx& tx) { return tx.find_webhook_endpoint(id, kT0 + 2 * kHour); });
  ASSERT_TRUE(during.ok() && during->has_value());
  ASSERT_EQ(during.value()->secrets.size(), 2u);
  EXPECT_EQ(during.value()->secrets[0].secret, "whsec_new");
  EXPECT_EQ(during.value()->secrets[1].secret, "whsec_old");
  auto after = Read([&](StoreTx& tx) { return tx.find_webhook_endpoint(id, kT0 + 25 * kHour); });
  ASSERT_TRUE(after.ok() && after->has_value());
  ASSERT_EQ(after.value()->secrets.size(), 1u);
  EXPECT_EQ(after.value()->secrets[0].secret, "whsec_new");
}

TEST_P(WebhookConformance, ARotationThatRetiresAtOnceLeavesOnlyTheNewSecret) {
  const int64_t id = AddEndpoint({"*"}, "whsec_old");
  ASSERT_TRUE(Write([&](StoreTx& tx) {
                return tx.rotate_webhook_secret(id, "whsec_new", kT0 + kHour, kT0 + kHour);
              }).ok());
  auto found = Read([&](StoreTx& tx) { return tx.find_webhook_endpoint(id, kT0 + kHour); });
  ASSERT_TRUE(found.ok() && found->has_value());
  ASSERT_EQ(found.value()->secrets.size(), 1u);
  EXPECT_EQ(found.value()->secrets[0].secret, "whsec_new");
}

TEST_P(WebhookConformance, AClaimedDeliveryIsNotClaimedAgainUntilItsClaimLapses) {
  AddEndpoint({"*"});
  CreateLicense();
  EXPECT_TRUE(Claim(store(), kT0 - 1).empty()) << "not due yet";
  ASSERT_EQ(Claim(store(), kT0).size(), 1u);
  EXPECT_TRUE(Claim(store(), kT0 + 1000).empty());
  EXPECT_EQ(Claim(store(), kT0 + 60'000).size(), 1u) << "the claimer died: attempted again";
}

TEST_P(WebhookConformance, ADisabledEndpointsDeliveriesWait) {
  const int64_t id = AddEndpoint({"*"});
  CreateLicense();
  auto found = Read([&](StoreTx& tx) { return tx.find_webhook_endpoint(id, kT0); });
  ASSERT_TRUE(found.ok() && found->has_value());
  WebhookEndpoint w = *found.value();
  w.enabled = false;
  w.disabled_reason = "410";
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.update_webhook_endpoint(w); }).ok());
  EXPECT_TRUE(Claim(store(), kT0 + 1000).empty());
  EXPECT_EQ(Pending(), 1);
}

TEST_P(WebhookConformance, AnAttemptIsRecordedAndARetryMakesItDueAgain) {
  const int64_t id = AddEndpoint({"*"});
  CreateLicense();
  auto claimed = Claim(store(), kT0);
  ASSERT_EQ(claimed.size(), 1u);
  WebhookDelivery d = claimed[0];
  d.attempts = 1;
  d.last_status = 200;
  d.delivered_at = kT0 + 10;
  d.next_attempt_at.reset();
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.record_webhook_attempt(d); }).ok());
  auto listed = Deliveries(id);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].attempts, 1);
  EXPECT_EQ(listed[0].last_status, 200);
  EXPECT_EQ(listed[0].delivered_at, kT0 + 10);
  EXPECT_EQ(Pending(), 0);
  auto retried =
      Write([&](StoreTx& tx) { return tx.retry_webhook_delivery(id, d.event_id, kT0 + kHour); });
  ASSERT_TRUE(retried.ok() && retried.value());
  EXPECT_EQ(Claim(store(), kT0 + kHour).size(), 1u);
  auto unknown = Write([&](StoreTx& tx) { return tx.retry_webhook_delivery(id, 999999, kT0); });
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown.value());
}

TEST_P(WebhookConformance, DeliveriesAreListedNewestEventFirstInPages) {
  const int64_t id = AddEndpoint({"*"});
  for (int i = 0; i < 3; ++i) CreateLicense(kT0 + i);
  auto first = Read([&](StoreTx& tx) { return tx.list_webhook_deliveries(id, 0, 2); });
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 2u);
  EXPECT_GT(first.value()[0].event_id, first.value()[1].event_id);
  auto rest = Read(
      [&](StoreTx& tx) { return tx.list_webhook_deliveries(id, first.value()[1].event_id, 2); });
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_LT(rest.value()[0].event_id, first.value()[1].event_id);
}

TEST_P(WebhookConformance, TwoStoresOnOneDatabaseClaimEachDeliveryOnce) {
  AddEndpoint({"*"});
  for (int i = 0; i < 40; ++i) CreateLicense();
  auto other = harness_->OpenAnother();
  std::vector<WebhookDelivery> mine, theirs;
  auto a = std::async(std::launch::async, [&] {
    for (int i = 0; i < 20; ++i) {
      for (auto& d : Claim(store(), kT0, 3)) mine.push_back(d);
    }
  });
  auto b = std::async(std::launch::async, [&] {
    for (int i = 0; i < 20; ++i) {
      for (auto& d : Claim(*other, kT0, 3)) theirs.push_back(d);
    }
  });
  a.get();
  b.get();
  std::set<int64_t> seen;
  for (const auto& d : mine) EXPECT_TRUE(seen.insert(d.event_id).second);
  for (const auto& d : theirs) EXPECT_TRUE(seen.insert(d.event_id).second) << d.event_id;
  EXPECT_EQ(seen.size(), 40u);
}

TEST_P(WebhookConformance, AMarkIsTakenOnceOrAgainAfterItsRenewal) {
  auto take = [&](UnixMillis now, std::optional<int64_t> renew) {
    auto taken = Write([&](StoreTx& tx) { return tx.take_webhook_mark("m:1", now, renew); });
    EXPECT_TRUE(taken.ok());
    return taken.ok() && taken.value();
  };
  EXPECT_TRUE(take(kT0, kHour));
  EXPECT_FALSE(take(kT0 + kHour - 1, kHour));
  EXPECT_TRUE(take(kT0 + kHour, kHour));
  EXPECT_FALSE(take(kT0 + 100 * kHour, std::nullopt));
}

TEST_P(WebhookConformance, PruningForgetsFinishedOldEventsAndKeepsPendingOnes) {
  const int64_t id = AddEndpoint({"*"});
  CreateLicense(kT0);
  CreateLicense(kT0 + 1);
  auto claimed = Claim(store(), kT0);
  ASSERT_EQ(claimed.size(), 1u);
  WebhookDelivery d = claimed[0];
  d.attempts = 1;
  d.delivered_at = kT0;
  d.next_attempt_at.reset();
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.record_webhook_attempt(d); }).ok());
  auto pruned = Write([](StoreTx& tx) { return tx.prune_webhook_outbox(kT0 + 10, kT0); });
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  EXPECT_EQ(pruned.value(), 1);
  EXPECT_EQ(Deliveries(id).size(), 1u);
  EXPECT_EQ(Pending(), 1);
  pruned = Write([](StoreTx& tx) { return tx.prune_webhook_outbox(kT0 + 10, kT0 + 10); });
  ASSERT_TRUE(pruned.ok());
  EXPECT_TRUE(Deliveries(id).empty());
}

TEST_P(WebhookConformance, DeletingAnEndpointForgetsItsDeliveries) {
  const int64_t id = AddEndpoint({"*"});
  CreateLicense();
  auto deleted = Write([&](StoreTx& tx) { return tx.delete_webhook_endpoint(id); });
  ASSERT_TRUE(deleted.ok() && deleted.value());
  EXPECT_EQ(Pending(), 0);
  auto again = Write([&](StoreTx& tx) { return tx.delete_webhook_endpoint(id); });
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again.value());
}

TEST_P(WebhookConformance, LicensesExpiringInAWindowAreFound) {
  licensed::LicenseSpec spec;
  spec.product_slug = "reverb";
  spec.max = 1;
  spec.expires_at = kT0 + 5 * 24 * kHour;
  ASSERT_TRUE(Write([&](StoreTx& tx) {
                return licensed::create_license(tx, spec, licensed::AdminContext{kT0});
              }).ok());
  spec.expires_at = kT0 + 9 * 24 * kHour;
  ASSERT_TRUE(Write([&](StoreTx& tx) {
                return licensed::create_license(tx, spec, licensed::AdminContext{kT0});
              }).ok());
  auto found = Read(
      [](StoreTx& tx) { return tx.licenses_expiring_between(kT0, kT0 + 7 * 24 * kHour, 0, 10); });
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found.value()[0].expires_at, kT0 + 5 * 24 * kHour);
}

INSTANTIATE_TEST_SUITE_P(Stores, WebhookConformance, ::testing::Values("sqlite", "postgresql"));

}  // namespace
}  // namespace bb
