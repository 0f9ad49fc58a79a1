// The Stripe provider over fixtures shaped like Stripe's documented events
// (tests/fixtures/stripe/): which action each event asks for, what it cites, the line-item
// look-up of a paid session and its completion, and authenticity.
#include "admin/stripe_provider.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "auth/crypto_primitives.h"
#include "core/hex.h"

namespace licensed {
namespace {

constexpr UnixMillis kNow = 1'780'000'000'000;

std::string fixture(const std::string& name) {
  const auto path = std::filesystem::path(LICENSED_SOURCE_DIR) / "tests/fixtures/stripe" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Storefront store(std::string options = R"({"apiKey":"rk_live_readonly"})") {
  Storefront f;
  f.id = 7;
  f.provider = "stripe";
  f.name = "Shop";
  f.secrets = {"whsec_old", "whsec_new"};
  f.options_json = std::move(options);
  return f;
}

InboundDelivery delivery(std::string body) {
  InboundDelivery d;
  d.body = std::move(body);
  d.now = kNow;
  return d;
}

Result<StoreEvent> read_fixture(const std::string& name, const Storefront& f = store()) {
  return stripe_provider().read(delivery(fixture(name)), f);
}

std::string signature(std::string_view secret, int64_t t, std::string_view body) {
  const HmacSha256 hmac(secret);
  Sha256Digest d{};
  EXPECT_TRUE(hmac.compute(std::to_string(t) + "." + std::string(body), d));
  return "t=" + std::to_string(t) + ",v1=" + to_hex(d.data(), d.size());
}

TEST(StripeProvider, IsListedFirstUnderItsName) {
  ASSERT_FALSE(store_providers().empty());
  EXPECT_EQ(store_providers().front(), &stripe_provider());
  EXPECT_EQ(find_store_provider("stripe"), &stripe_provider());
  EXPECT_FALSE(stripe_provider().answers_keys_as_text);
}

TEST(StripeProvider, ADeliverySignedWithAnyOfTheStoresSecretsWithinFiveMinutesIsAuthentic) {
  const std::string body = fixture("checkout_session_completed_paid.json");
  InboundDelivery d = delivery(body);
  EXPECT_FALSE(stripe_provider().authentic(d, store())) << "no header";
  d.headers["stripe-signature"] = signature("whsec_new", kNow / 1000 - 10, body);
  EXPECT_TRUE(stripe_provider().authentic(d, store()));
  d.headers["stripe-signature"] = signature("whsec_old", kNow / 1000 + 10, body);
  EXPECT_TRUE(stripe_provider().authentic(d, store()));
  d.headers["stripe-signature"] = signature("whsec_other", kNow / 1000, body);
  EXPECT_FALSE(stripe_provider().authentic(d, store()));
  d.headers["stripe-signature"] = signature("whsec_new", kNow / 1000 - 301, body);
  EXPECT_FALSE(stripe_provider().authentic(d, store())) << "stale t";
  d.headers["stripe-signature"] = signature("whsec_new", kNow / 1000, body + " ");
  EXPECT_FALSE(stripe_provider().authentic(d, store())) << "another body";
}

TEST(StripeProvider, APaidSessionIsFulfilledAfterLookingUpItsLineItemsWithTheApiKey) {
  auto e = read_fixture("checkout_session_completed_paid.json");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->action, StoreAction::kFulfil);
  EXPECT_EQ(e->event_key, "evt_1LcStoresFixture0001");
  EXPECT_EQ(e->event_type, "checkout.session.completed");
  EXPECT_TRUE(e->live);
  EXPECT_EQ(e->order.order_id, "cs_live_a1StoresFixtureSession0001");
  EXPECT_EQ(e->order.customer.email, "ada@example.com");
  EXPECT_EQ(e->order.references, std::vector<std::string>{"pi_3StoresFixture0001"});
  EXPECT_TRUE(e->order.lines.empty());
  ASSERT_TRUE(e->lookup.has_value());
  EXPECT_EQ(e->lookup->base, "https://api.stripe.com");
  EXPECT_EQ(e->lookup->path_and_query,
            "/v1/checkout/sessions/cs_live_a1StoresFixtureSession0001/line_items?limit=100");
  ASSERT_EQ(e->lookup->headers.size(), 1u);
  EXPECT_EQ(e->lookup->headers[0].first, "Authorization");
  EXPECT_EQ(e->lookup->headers[0].second, "Bearer rk_live_readonly");

  auto done = stripe_provider().complete(std::move(e.value()),
                                         fixture("checkout_session_line_items.json"), store());
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_FALSE(done->lookup.has_value());
  ASSERT_EQ(done->order.lines.size(), 2u);
  EXPECT_EQ(done->order.lines[0].item_id, "price_1StoresFixtureSingle");
  EXPECT_EQ(done->order.lines[0].quantity, 2);
  EXPECT_EQ(done->order.lines[1].item_id, "price_1StoresFixtureSite");
}

TEST(StripeProvider, TheApiBaseOptionReplacesStripesAddress) {
  auto e = read_fixture("checkout_session_async_payment_succeeded.json",
                        store(R"({"apiKey":"rk_1","apiBase":"http://127.0.0.1:4242/"})"));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->action, StoreAction::kFulfil);
  ASSERT_TRUE(e->lookup.has_value());
  EXPECT_EQ(e->lookup->base, "http://127.0.0.1:4242");
}

TEST(StripeProvider, APaidSessionOfAStoreWithoutApiKeyIsUnavailableSoStripeRetries) {
  auto e = read_fixture("checkout_session_completed_paid.json", store("{}"));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, StatusCode::kUnavailable);
}

TEST(StripeProvider, ASubscriptionSessionKeepsTheSubscriptionAsAReference) {
  auto e = read_fixture("checkout_session_completed_subscription.json");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->order.references, std::vector<std::string>{"sub_1StoresFixture0001"});
}

TEST(StripeProvider, AnUnpaidSessionOrAnUnknownTypeIsOnlyAcknowledged) {
  for (const char* name : {"checkout_session_completed_unpaid.json", "customer_created.json"}) {
    auto e = read_fixture(name);
    ASSERT_TRUE(e.ok()) << name << ": " << e.error().message;
    EXPECT_EQ(e->action, StoreAction::kAcknowledge) << name;
    EXPECT_FALSE(e->lookup.has_value()) << name;
    EXPECT_FALSE(e->event_key.empty()) << name;
  }
}

TEST(StripeProvider, ATestModeSaleIsLookedUpOnlyForAStoreInTestMode) {
  auto live_store = read_fixture("checkout_session_completed_test_mode.json");
  ASSERT_TRUE(live_store.ok()) << live_store.error().message;
  EXPECT_FALSE(live_store->live);
  EXPECT_FALSE(live_store->lookup.has_value()) << "ignored anyway: nothing to fetch";
  auto test_store = read_fixture("checkout_session_completed_test_mode.json",
                                 store(R"({"apiKey":"rk_test_1","testMode":true})"));
  ASSERT_TRUE(test_store.ok()) << test_store.error().message;
  EXPECT_TRUE(test_store->lookup.has_value());
}

TEST(StripeProvider, AFullRefundIsARefundOfThePaymentIntentAndAPartialOneIsNot) {
  auto full = read_fixture("charge_refunded_full.json");
  ASSERT_TRUE(full.ok()) << full.error().message;
  EXPECT_EQ(full->action, StoreAction::kRefund);
  EXPECT_EQ(full->reference, "pi_3StoresFixture0001");
  auto partial = read_fixture("charge_refunded_partial.json");
  ASSERT_TRUE(partial.ok()) << partial.error().message;
  EXPECT_EQ(partial->action, StoreAction::kPartialRefund);
  EXPECT_EQ(partial->reference, "pi_3StoresFixture0001");
}

TEST(StripeProvider, ADisputeSuspendsAndOnlyAWonCloseRestores) {
  auto created = read_fixture("charge_dispute_created.json");
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->action, StoreAction::kDispute);
  EXPECT_EQ(created->reference, "pi_3StoresFixture0001");
  EXPECT_EQ(created->dispute_id, "dp_1StoresFixture0001");
  auto won = read_fixture("charge_dispute_closed_won.json");
  ASSERT_TRUE(won.ok()) << won.error().message;
  EXPECT_EQ(won->action, StoreAction::kDisputeWon);
  EXPECT_EQ(won->dispute_id, "dp_1StoresFixture0001");
  auto lost = read_fixture("charge_dispute_closed_lost.json");
  ASSERT_TRUE(lost.ok()) << lost.error().message;
  EXPECT_EQ(lost->action, StoreAction::kAcknowledge);
}

TEST(StripeProvider, APaidInvoiceRenewsTheSubscriptionToItsLinesPeriod) {
  auto e = read_fixture("invoice_paid.json");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->action, StoreAction::kRenewal);
  EXPECT_EQ(e->reference, "sub_1StoresFixture0001");
  EXPECT_EQ(e->period_start, UnixMillis{1'811'536'000'000});
  EXPECT_EQ(e->period_end, UnixMillis{1'843'072'000'000});
  auto failed = read_fixture("invoice_payment_failed.json");
  ASSERT_TRUE(failed.ok()) << failed.error().message;
  EXPECT_EQ(failed->action, StoreAction::kPaymentFailed);
  EXPECT_EQ(failed->reference, "sub_1StoresFixture0001");
}

TEST(StripeProvider, ADeletedSubscriptionEndsAtItsCurrentPeriodsEnd) {
  auto e = read_fixture("customer_subscription_deleted.json");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->action, StoreAction::kCancellation);
  EXPECT_EQ(e->reference, "sub_1StoresFixture0001");
  EXPECT_EQ(e->period_end, UnixMillis{1'811'536'000'000});
}

TEST(StripeProvider, APayloadStripeNeverSendsIsAnInvalidArgument) {
  for (const std::string& body :
       {std::string("not json"), std::string(R"({"id":"evt_1","type":"charge.refunded"})"),
        std::string(R"({"id":"evt_1","type":"charge.refunded","livemode":true,)"
                    R"("data":{"object":{"id":"ch_1","amount":"10","amount_refunded":10}}})"),
        std::string(R"({"id":"evt_1","type":"checkout.session.completed","livemode":true,)"
                    R"("data":{"object":{"id":"cs_1/../x","payment_status":"paid"}}})")}) {
    auto e = stripe_provider().read(delivery(body), store());
    ASSERT_FALSE(e.ok()) << body;
    EXPECT_EQ(e.error().code, StatusCode::kInvalidArgument) << body;
  }
  auto bad_answer = stripe_provider().complete(StoreEvent{}, R"({"data":"x"})", store());
  ASSERT_FALSE(bad_answer.ok());
  EXPECT_EQ(bad_answer.error().code, StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace licensed
