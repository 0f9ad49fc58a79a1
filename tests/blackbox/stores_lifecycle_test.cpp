// What later Stripe events do to a sale's licenses over HTTP, against the real server
// (docs/protocol.md §22.7; docs/stores.md "Lifecycle"): a full refund makes the
// session's licenses REFUNDED, audited with actor store, found through the payment intent
// the sale listed; a partial refund changes nothing; a dispute suspends them and its win
// restores them. And test mode: a livemode:false sale makes licenses only in a store with
// options.testMode. Lemon Squeezy's and Gumroad's refunds are in stores_providers_test.cpp.
// Runs on SQLite, and as scale.* on PostgreSQL with Redis.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/fixture.h"
#include "support/signer.h"
#include "support/stores.h"

namespace bb {
namespace {

constexpr std::string_view kSecret = "whsec_lifecycle_0123456789";
constexpr std::string_view kFixturePaymentIntent = "pi_3StoresFixture0001";

class StoresLifecycle : public StoresTest {
 protected:
  // A Stripe store of reverb's pro plan (price_single per unit, price_site per line).
  std::pair<std::int64_t, std::string> CreateStore(std::string_view options = "{}") {
    return CreateStoreFrom(
        R"({"provider":"stripe","name":"Lifecycle shop","secret":")" + std::string(kSecret) +
        R"(","mapping":{"price_single":{"product":"reverb","plan":"pro","perUnit":true},)"
        R"("price_site":{"product":"reverb","plan":"pro"}},"options":)" +
        std::string(options) + "}");
  }
  HttpResponse Deliver(const std::string& url, const std::string& body) {
    return Send(StripeDelivery(url, body, StripeSignature(kSecret, UnixNow(), body)));
  }
  // A Stripe fixture event about the payment intent `payment_intent`.
  static std::string About(std::string_view fixture, std::string_view payment_intent) {
    return ReplaceAll(Fixture("stripe/" + std::string(fixture)), kFixturePaymentIntent,
                      payment_intent);
  }
  // The statuses of the session's licenses, by key.
  std::map<std::string, std::string> Statuses(const std::string& session) {
    std::map<std::string, std::string> out;
    for (const auto& l : StoreLicenses()) {
      if (Str(l, "source.orderId") == session) out[Str(l, "licenseKey")] = Str(l, "status");
    }
    return out;
  }
  static bool All(const std::map<std::string, std::string>& statuses, std::string_view status) {
    for (const auto& entry : statuses) {
      if (entry.second != status) return false;
    }
    return !statuses.empty();
  }
  // The session sold: three licenses, ACTIVE.
  void Sell(const std::string& url, const std::string& session, const std::string& intent) {
    const HttpResponse r = Deliver(url, StripePaidSession("evt_" + session, session, intent));
    ASSERT_EQ(r.status, 200) << r.Describe();
    ASSERT_EQ(Statuses(session).size(), 3u);
  }
};

TEST_F(StoresLifecycle, AFullStripeRefundMakesTheSessionsLicensesRefundedAndAPartialOneDoesNot) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  Sell(url, "cs_live_refunded", "pi_lc_refunded");
  Sell(url, "cs_live_kept", "pi_lc_kept");

  // A third of the charge refunded: nothing changes, each license's record says why.
  const HttpResponse partial =
      Deliver(url, About("charge_refunded_partial.json", "pi_lc_refunded"));
  ASSERT_EQ(partial.status, 200) << partial.Describe();
  EXPECT_TRUE(All(Statuses("cs_live_refunded"), "ACTIVE"));
  for (const auto& [key, status] : Statuses("cs_live_refunded")) {
    const auto updates = LicenseAudit(key, "license.update");
    ASSERT_EQ(updates.size(), 1u) << key;
    EXPECT_EQ(Str(updates[0], "actor"), "store");
    EXPECT_EQ(Str(updates[0], "reason"), "partial refund");
    EXPECT_TRUE(LicenseAudit(key, "license.status").empty());
  }

  // The whole charge refunded: the session's licenses are REFUNDED, the other sale's not.
  const HttpResponse full = Deliver(url, About("charge_refunded_full.json", "pi_lc_refunded"));
  ASSERT_EQ(full.status, 200) << full.Describe();
  const auto refunded = Statuses("cs_live_refunded");
  EXPECT_TRUE(All(refunded, "REFUNDED"));
  EXPECT_TRUE(All(Statuses("cs_live_kept"), "ACTIVE"));
  for (const auto& entry : refunded) {
    const auto records = LicenseAudit(entry.first, "license.status");
    ASSERT_EQ(records.size(), 1u) << entry.first;
    EXPECT_EQ(Str(records[0], "actor"), "store");
    EXPECT_EQ(Str(records[0], "actorName"), "Lifecycle shop");
    EXPECT_EQ(Str(records[0], "source.provider"), "stripe");
    EXPECT_EQ(Int(records[0], "source.storeId"), id);
    EXPECT_EQ(Str(records[0], "source.orderId"), "cs_live_refunded");
    EXPECT_EQ(Str(records[0], "changes.status.from"), "ACTIVE");
    EXPECT_EQ(Str(records[0], "changes.status.to"), "REFUNDED");
  }
  // Stripe delivers the refund again: a duplicate, no second record.
  ASSERT_EQ(Deliver(url, About("charge_refunded_full.json", "pi_lc_refunded")).status, 200);
  for (const auto& entry : refunded) {
    EXPECT_EQ(LicenseAudit(entry.first, "license.status").size(), 1u);
  }
}

TEST_F(StoresLifecycle, AStripeDisputeSuspendsTheSessionsLicensesAndItsWinMakesThemActiveAgain) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  Sell(url, "cs_live_disputed", "pi_lc_disputed");

  const HttpResponse opened = Deliver(url, About("charge_dispute_created.json", "pi_lc_disputed"));
  ASSERT_EQ(opened.status, 200) << opened.Describe();
  EXPECT_TRUE(All(Statuses("cs_live_disputed"), "SUSPENDED"));

  const HttpResponse won = Deliver(url, About("charge_dispute_closed_won.json", "pi_lc_disputed"));
  ASSERT_EQ(won.status, 200) << won.Describe();
  const auto statuses = Statuses("cs_live_disputed");
  EXPECT_TRUE(All(statuses, "ACTIVE"));
  for (const auto& entry : statuses) {
    const auto records = LicenseAudit(entry.first, "license.status");
    ASSERT_EQ(records.size(), 2u) << "suspended, then active again";
    for (const auto& r : records) {
      EXPECT_EQ(Str(r, "actor"), "store");
      EXPECT_EQ(Str(r, "source.orderId"), "cs_live_disputed");
    }
  }
}

TEST_F(StoresLifecycle, AStripeTestModeSaleMakesLicensesOnlyInAStoreInTestMode) {
  StartWithPlan();
  const auto [live_id, live_url] = CreateStore();
  const auto [test_id, test_url] = CreateStore(R"({"testMode":true})");

  const std::string sale = StripePaidSession("evt_lc_test_1", "cs_test_lc_1", "pi_test_1", false);
  const HttpResponse ignored = Deliver(live_url, sale);
  ASSERT_EQ(ignored.status, 200) << ignored.Describe();
  EXPECT_EQ(Dump(BodyJson(ignored)), R"({"ok":true})");
  EXPECT_TRUE(StoreLicenses().empty()) << "a test-mode sale on a live store makes nothing";
  EXPECT_TRUE(Rejections(live_id).empty()) << "and is no failed check";

  const HttpResponse made = Deliver(test_url, sale);
  ASSERT_EQ(made.status, 200) << made.Describe();
  const auto licenses = StoreLicenses();
  ASSERT_EQ(licenses.size(), 3u);
  for (const auto& l : licenses) EXPECT_EQ(Int(l, "source.storeId"), test_id);
}

}  // namespace
}  // namespace bb
