#include "dashboard/claim.h"

#include <gtest/gtest.h>

#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "admin/store_fulfilment.h"
#include "store/sqlite/memory_test_store.h"

namespace licensed {
namespace {

constexpr UnixMillis kSold = 1'795'000'000'000;
constexpr std::string_view kSession = "cs_live_a1B2c3D4e5F6g7H8";
constexpr std::string_view kIdentifier = "104e18a2-d755-4d4b-80c4-a6c1dcbe1c10";

TEST(ClaimId, AStripeCheckoutSessionIdOrAUuidIsAcceptedAndNothingElse) {
  EXPECT_EQ(claim_id_provider("cs_test_a1B2c3"), "stripe");
  EXPECT_EQ(claim_id_provider("cs_live_a1B2c3_x"), "stripe");
  EXPECT_EQ(claim_id_provider(kIdentifier), "lemonsqueezy");
  EXPECT_EQ(claim_id_provider("104E18A2-D755-4D4B-80C4-A6C1DCBE1C10"), "lemonsqueezy");
  for (const std::string_view refused :
       {"", "cs_test_", "cs_other_abc", "pi_3Nabc", "cs_live_abc-def", "cs_live_ab%2Fc",
        "cs_live_a/b", "12345", "104e18a2d7554d4b80c4a6c1dcbe1c10",
        "104e18a2-d755-4d4b-80c4-a6c1dcbe1c1", "104e18a2-d755-4d4b-80c4-a6c1dcbe1c1g",
        "104e18a2_d755-4d4b-80c4-a6c1dcbe1c10"}) {
    EXPECT_FALSE(claim_id_provider(refused)) << refused;
  }
  EXPECT_FALSE(claim_id_provider("cs_live_" + std::string(248, 'a'))) << "over 255 characters";
  EXPECT_TRUE(claim_id_provider("cs_live_" + std::string(247, 'a')));
}

TEST(ClaimPageHtml, VendorAndBuyerTextIsEscaped) {
  EXPECT_EQ(html_escape(R"(<a href="x" title='y'>&amp;</a>)"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
  ClaimedOrder order;
  order.customer_name = "<img src=x onerror=alert(1)>";
  order.ordered_at = kSold;
  order.keys.push_back({"6f1c8f0e-0000-4000-8000-000000000001", "Reverb <b>&</b> Co",
                        "Pro \"site\"", std::nullopt, std::nullopt, "REFUNDED"});
  const std::string html = claim_page_html(order);
  EXPECT_EQ(html.find("<img"), std::string::npos) << html;
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << html;
  EXPECT_NE(html.find("Reverb &lt;b&gt;&amp;&lt;/b&gt; Co"), std::string::npos) << html;
  EXPECT_NE(html.find("Pro &quot;site&quot;"), std::string::npos) << html;
  EXPECT_NE(html.find("value=\"6f1c8f0e-0000-4000-8000-000000000001\""), std::string::npos);
  EXPECT_NE(html.find("badge-refunded"), std::string::npos) << "a status other than ACTIVE shows";
  // No inline script or style for the CSP to refuse.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
  EXPECT_EQ(html.find("<style"), std::string::npos);
}

TEST(ClaimPageHtml, TheWaitingPageReloadsUntilItsLastAttempt) {
  const std::string first = claim_waiting_html(1);
  EXPECT_NE(first.find(R"(<meta http-equiv="refresh" content="5; url=?try=2">)"), std::string::npos)
      << first;
  EXPECT_NE(first.find("being prepared"), std::string::npos);
  const std::string last = claim_waiting_html(kClaimRefreshAttempts);
  EXPECT_EQ(last.find("http-equiv=\"refresh\""), std::string::npos) << last;
  EXPECT_EQ(claim_waiting_html(3), claim_waiting_html(3)) << "the page depends on nothing else";
}

TEST(ClaimPageHtml, TheAttemptComesFromTheQueryWithinItsBounds) {
  EXPECT_EQ(claim_attempt_of(""), 1);
  EXPECT_EQ(claim_attempt_of("try=7"), 7);
  EXPECT_EQ(claim_attempt_of("x=1&try=12"), 12);
  EXPECT_EQ(claim_attempt_of("try=0"), 1);
  EXPECT_EQ(claim_attempt_of("try=999"), kClaimRefreshAttempts);
  EXPECT_EQ(claim_attempt_of("try=99999999999"), 1);
  EXPECT_EQ(claim_attempt_of("try=-3"), 1);
  EXPECT_EQ(claim_attempt_of("try="), 1);
}

class Claim : public ::testing::Test {
 protected:
  template <class Fn>
  auto write(Fn&& fn) {
    return run_blocking(*store_, TxKind::kWrite, std::forward<Fn>(fn));
  }

  void SetUp() override {
    store_ = open_memory_test_store();
    ASSERT_TRUE(store_);
    auto made = write([this](StoreTx& tx) -> Result<bool> {
      const AdminContext admin{kSold, std::nullopt};
      ASSIGN_OR_RETURN(const Product p, create_product(tx, "reverb", "Reverb <Studio>", admin));
      const boost::json::object pro{
          {"code", "pro"}, {"name", "Reverb Pro"}, {"max", 2}, {"validFor", "365d"}};
      ASSIGN_OR_RETURN(const Plan plan, create_plan(tx, "reverb", pro, admin));
      (void)plan;
      ASSIGN_OR_RETURN(stripe_, add_store(tx, "stripe", p.id, 'a'));
      ASSIGN_OR_RETURN(lemon_, add_store(tx, "lemonsqueezy", p.id, 'b'));
      return true;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
  }

  static Result<Storefront> add_store(StoreTx& tx, std::string provider, int64_t product_id,
                                      char token) {
    Storefront f;
    f.provider = std::move(provider);
    f.name = "Shop";
    f.token_sha256_hex = std::string(64, token);
    f.secrets = {"s"};
    f.created_at = kSold;
    ASSIGN_OR_RETURN(Storefront s, tx.insert_storefront(f));
    RETURN_IF_ERROR(tx.put_sku_mapping(s.id, SkuMapping{"item", product_id, "pro", true}));
    return s;
  }

  std::vector<std::string> sell(const Storefront& store, std::string order_id,
                                std::vector<std::string> references, int64_t units) {
    VerifiedOrder o;
    o.event_key = "evt-" + order_id;
    o.event_type = "sale";
    o.order_id = std::move(order_id);
    o.customer = {std::string("ada@example.com"), std::string("Ada <Lovelace>")};
    o.lines = {{"item", units}};
    o.references = std::move(references);
    auto f = write([&](StoreTx& tx) { return fulfil_order(tx, store, o, kSold); });
    EXPECT_TRUE(f.ok()) << f.error().message;
    return f.ok() ? f->created : std::vector<std::string>{};
  }

  std::optional<ClaimedOrder> claim(int64_t store_id, std::string_view id, UnixMillis now) {
    auto found = run_blocking(*store_, TxKind::kRead, [&](StoreTx& tx) {
      return find_claimed_order(tx, std::to_string(store_id), id, now);
    });
    EXPECT_TRUE(found.ok()) << found.error().message;
    return found.ok() ? found.value() : std::nullopt;
  }

  std::unique_ptr<SqliteStore> store_;
  Storefront stripe_;
  Storefront lemon_;
};

TEST_F(Claim, AStripeSessionShowsItsKeysWithProductPlanAndExpiry) {
  const auto keys = sell(stripe_, std::string(kSession), {"pi_1"}, 2);
  ASSERT_EQ(keys.size(), 2u);
  const auto order = claim(stripe_.id, kSession, kSold + 1000);
  ASSERT_TRUE(order);
  EXPECT_EQ(order->customer_name, "Ada <Lovelace>");
  EXPECT_EQ(order->ordered_at, kSold);
  ASSERT_EQ(order->keys.size(), 2u);
  EXPECT_EQ(order->keys[0].key, keys[0]);
  EXPECT_EQ(order->keys[1].key, keys[1]);
  EXPECT_EQ(order->keys[0].product, "Reverb <Studio>");
  EXPECT_EQ(order->keys[0].plan, "Reverb Pro");
  EXPECT_EQ(order->keys[0].expires_at, kSold + 365LL * 86400 * 1000);
  EXPECT_EQ(order->keys[0].status, "ACTIVE");
  const std::string html = claim_page_html(*order);
  EXPECT_NE(html.find(keys[0]), std::string::npos);
  EXPECT_NE(html.find("Reverb &lt;Studio&gt;"), std::string::npos) << html;
  EXPECT_NE(html.find("2027-11-18"), std::string::npos) << "expiry date, UTC: " << html;
}

TEST_F(Claim, ALemonSqueezyOrderIsFoundByItsIdentifier) {
  const auto keys = sell(lemon_, "4711", {std::string(kIdentifier)}, 1);
  ASSERT_EQ(keys.size(), 1u);
  const auto order = claim(lemon_.id, kIdentifier, kSold);
  ASSERT_TRUE(order);
  ASSERT_EQ(order->keys.size(), 1u);
  EXPECT_EQ(order->keys[0].key, keys[0]);
  EXPECT_FALSE(claim(lemon_.id, "4711", kSold)) << "the numeric order id is not a claim id";
}

TEST_F(Claim, AnythingButTheRightStoreAndASoldIdFindsNothing) {
  sell(stripe_, std::string(kSession), {}, 1);
  sell(lemon_, "4711", {std::string(kIdentifier)}, 1);
  ASSERT_TRUE(claim(stripe_.id, kSession, kSold));
  EXPECT_FALSE(claim(lemon_.id, kSession, kSold)) << "a store of another provider";
  EXPECT_FALSE(claim(stripe_.id, kIdentifier, kSold)) << "a Stripe store and a UUID";
  EXPECT_FALSE(claim(stripe_.id + 100, kSession, kSold)) << "an unknown store";
  EXPECT_FALSE(claim(stripe_.id, "cs_live_notsoldyet", kSold)) << "no webhook yet";
  EXPECT_FALSE(claim(stripe_.id, "pi_1", kSold)) << "a reference of another shape";
  auto found = run_blocking(*store_, TxKind::kRead, [&](StoreTx& tx) {
    return find_claimed_order(tx, "0x1", kSession, kSold);
  });
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found.value()) << "a store id that is no number";
}

TEST_F(Claim, ThePageStopsThirtyDaysAfterTheOrder) {
  sell(stripe_, std::string(kSession), {}, 1);
  EXPECT_TRUE(claim(stripe_.id, kSession, kSold + kClaimLifetimeMs - 1));
  EXPECT_FALSE(claim(stripe_.id, kSession, kSold + kClaimLifetimeMs));
  EXPECT_FALSE(claim(stripe_.id, kSession, kSold + 2 * kClaimLifetimeMs));
}

TEST_F(Claim, ADeletedLicenseIsLeftOutAndAnOrderOfOnlyDeletedOnesFindsNothing) {
  const auto keys = sell(stripe_, std::string(kSession), {}, 2);
  ASSERT_EQ(keys.size(), 2u);
  const AdminContext admin{kSold + 1, std::nullopt};
  ASSERT_TRUE(write([&](StoreTx& tx) { return delete_license(tx, keys[0], admin); }).ok());
  auto order = claim(stripe_.id, kSession, kSold + 2);
  ASSERT_TRUE(order);
  ASSERT_EQ(order->keys.size(), 1u);
  EXPECT_EQ(order->keys[0].key, keys[1]);
  ASSERT_TRUE(write([&](StoreTx& tx) { return delete_license(tx, keys[1], admin); }).ok());
  EXPECT_FALSE(claim(stripe_.id, kSession, kSold + 2));
}

}  // namespace
}  // namespace licensed
