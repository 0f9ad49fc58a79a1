// The payload readers of the paddle, fastspring, fastspring-generator, lemonsqueezy and
// gumroad store providers, over fixtures shaped like each provider's documented payloads
// (tests/fixtures/<provider>/), through the StoreProvider values the handler uses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "admin/form_body.h"
#include "admin/store_provider.h"
#include "auth/request_signature.h"
#include "core/timestamp.h"

namespace licensed {
namespace {

std::string fixture(const std::string& name) {
  const auto path = std::filesystem::path(LICENSED_SOURCE_DIR) / "tests/fixtures" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Storefront store(std::string provider, std::string options = "{}") {
  Storefront s;
  s.id = 7;
  s.provider = std::move(provider);
  s.secrets = {"s1"};
  s.options_json = std::move(options);
  return s;
}

InboundDelivery delivery(std::string body) {
  InboundDelivery d;
  d.body = std::move(body);
  return d;
}

const StoreProvider& provider(std::string_view name) {
  const StoreProvider* p = find_store_provider(name);
  EXPECT_NE(p, nullptr) << name;
  return *p;
}

StoreEvent read_one(std::string_view name, const std::string& file, const Storefront& s) {
  auto events = read_store_events(provider(name), delivery(fixture(file)), s);
  EXPECT_TRUE(events.ok()) << file << ": " << (events.ok() ? "" : events.error().message);
  if (!events.ok() || events->empty()) return {};
  EXPECT_EQ(events->size(), 1u) << file;
  return events->front();
}

UnixMillis at(std::string_view rfc3339) {
  return parse_timestamp(rfc3339).value();
}

TEST(StoreProviders, AreListedInTheOrderOfTheSpecAndFoundByName) {
  std::vector<std::string_view> names;
  for (const auto* p : store_providers()) names.push_back(p->name);
  const std::vector<std::string_view> mine = {"paddle", "fastspring", "fastspring-generator",
                                              "lemonsqueezy", "gumroad"};
  ASSERT_GE(names.size(), mine.size());
  EXPECT_TRUE(std::equal(mine.begin(), mine.end(), names.end() - mine.size()));
  EXPECT_EQ(find_store_provider("paddle"), &kPaddleStoreProvider);
  EXPECT_EQ(find_store_provider("gumroad"), &kGumroadStoreProvider);
  EXPECT_EQ(find_store_provider("Paddle"), nullptr);
  EXPECT_TRUE(provider("fastspring-generator").answers_keys_as_text);
  EXPECT_FALSE(provider("fastspring").answers_keys_as_text);
}

// --- paddle ---

TEST(PaddleEvent, ACompletedTransactionIsASaleWhoseBuyerComesFromTheCustomerLookup) {
  const Storefront s = store("paddle", R"({"apiKey": "pdl_live_key"})");
  StoreEvent e = read_one("paddle", "paddle/transaction_completed.json", s);
  EXPECT_EQ(e.event_key, "evt_01hstoresfixtureevent000001");
  EXPECT_EQ(e.event_type, "transaction.completed");
  EXPECT_TRUE(e.live);
  ASSERT_EQ(e.action, StoreAction::kFulfil);
  EXPECT_EQ(e.order.order_id, "txn_01hstoresfixturetxn00000001");
  EXPECT_EQ(e.order.references, std::vector<std::string>{"sub_01hstoresfixturesubscript01"});
  ASSERT_EQ(e.order.lines.size(), 2u);
  EXPECT_EQ(e.order.lines[0].item_id, "pri_01hstoresfixturesingle00001");
  EXPECT_EQ(e.order.lines[0].quantity, 2);
  EXPECT_EQ(e.order.lines[1].item_id, "pri_01hstoresfixturemonthly0001");
  EXPECT_FALSE(e.order.customer.email.has_value()) << "Paddle's event names only customer_id";
  ASSERT_TRUE(e.lookup.has_value());
  EXPECT_EQ(e.lookup->base, "https://api.paddle.com");
  EXPECT_EQ(e.lookup->path_and_query, "/customers/ctm_01hstoresfixturecustomer001");
  ASSERT_EQ(e.lookup->headers.size(), 1u);
  EXPECT_EQ(e.lookup->headers[0].second, "Bearer pdl_live_key");

  auto done = kPaddleStoreProvider.complete(e, fixture("paddle/customer.json"), s);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_FALSE(done->lookup.has_value());
  EXPECT_EQ(done->order.customer.email, "ada@example.com");
  EXPECT_EQ(done->order.customer.name, "Ada Lovelace");
  EXPECT_EQ(done->order.lines.size(), 2u);

  const Storefront local = store("paddle", R"({"apiKey": "k", "apiBase": "http://127.0.0.1:9/"})");
  EXPECT_EQ(read_one("paddle", "paddle/transaction_completed.json", local).lookup->base,
            "http://127.0.0.1:9");
  EXPECT_FALSE(kPaddleStoreProvider.complete(e, "{\"data\": 1}", s).ok());
}

TEST(PaddleEvent, ARecurringTransactionRenewsItsSubscriptionForItsBillingPeriod) {
  const StoreEvent e =
      read_one("paddle", "paddle/transaction_completed_renewal.json", store("paddle"));
  EXPECT_EQ(e.action, StoreAction::kRenewal);
  EXPECT_EQ(e.reference, "sub_01hstoresfixturesubscript01");
  EXPECT_EQ(e.period_start, at("2026-04-02T10:15:44.296Z"));
  EXPECT_EQ(e.period_end, at("2026-05-02T10:15:44.296Z"));
  EXPECT_FALSE(e.lookup.has_value());
}

TEST(PaddleEvent, AdjustmentsRefundOnlyWhenApprovedAndFullAndDisputeOnChargebacks) {
  const Storefront s = store("paddle");
  const StoreEvent full =
      read_one("paddle", "paddle/adjustment_updated_full_refund_approved.json", s);
  EXPECT_EQ(full.action, StoreAction::kRefund);
  EXPECT_EQ(full.reference, "txn_01hstoresfixturetxn00000001");
  EXPECT_EQ(read_one("paddle", "paddle/adjustment_created_refund_pending.json", s).action,
            StoreAction::kAcknowledge);
  EXPECT_EQ(read_one("paddle", "paddle/adjustment_updated_partial_refund_approved.json", s).action,
            StoreAction::kPartialRefund);
  const StoreEvent dispute = read_one("paddle", "paddle/adjustment_created_chargeback.json", s);
  EXPECT_EQ(dispute.action, StoreAction::kDispute);
  const StoreEvent won = read_one("paddle", "paddle/adjustment_created_chargeback_reverse.json", s);
  EXPECT_EQ(won.action, StoreAction::kDisputeWon);
  EXPECT_EQ(won.dispute_id, dispute.dispute_id) << "the won dispute names the one it ends";
  EXPECT_EQ(won.reference, "txn_01hstoresfixturetxn00000001");
}

TEST(PaddleEvent, ACancellationAndAFailedPaymentCiteTheSubscription) {
  const Storefront s = store("paddle");
  const StoreEvent cancel = read_one("paddle", "paddle/subscription_canceled.json", s);
  EXPECT_EQ(cancel.action, StoreAction::kCancellation);
  EXPECT_EQ(cancel.reference, "sub_01hstoresfixturesubscript01");
  EXPECT_EQ(cancel.period_end, at("2026-06-02T10:15:44.296Z")) << "canceled_at: no period left";
  const StoreEvent failed = read_one("paddle", "paddle/transaction_payment_failed.json", s);
  EXPECT_EQ(failed.action, StoreAction::kPaymentFailed);
  EXPECT_EQ(failed.reference, "sub_01hstoresfixturesubscript01");
}

TEST(PaddleEvent, OtherTypesAreAcknowledgedAndMalformedEventsRefused) {
  const Storefront s = store("paddle");
  auto other = kPaddleStoreProvider.read(
      delivery(R"({"event_id":"evt_9","event_type":"customer.updated","data":{"x":1}})"), s);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->action, StoreAction::kAcknowledge);
  for (
      const std::string& body : std::vector<std::string>{
          "",
          "[]",
          R"({"event_type":"transaction.completed","data":{}})",
          R"({"event_id":"evt_1","event_type":"transaction.completed"})",
          R"({"event_id":"evt_1","event_type":"transaction.completed","data":{"id":"txn_1","items":[{"price":{"id":"pri_1"},"quantity":0}]}})",
          R"({"event_id":"evt_1","event_type":"transaction.completed","data":{"id":"txn_1","items":[{"quantity":1}]}})",
          R"({"event_id":"evt_1","event_type":"adjustment.created","data":{"action":"refund"}})",
      }) {
    auto e = kPaddleStoreProvider.read(delivery(body), s);
    ASSERT_FALSE(e.ok()) << body;
    EXPECT_EQ(e.error().code, StatusCode::kInvalidArgument) << body;
  }
}

// --- fastspring ---

TEST(FastSpringEvent, ADeliveryOfSeveralEventsIsReadWholeEachUnderItsOwnId) {
  const Storefront s = store("fastspring");
  auto events = read_store_events(provider("fastspring"),
                                  delivery(fixture("fastspring/order_completed.json")), s);
  ASSERT_TRUE(events.ok()) << events.error().message;
  ASSERT_EQ(events->size(), 2u);
  const StoreEvent& order = events->at(0);
  EXPECT_EQ(order.event_key, "FsFixtureEvent0001AbCd");
  EXPECT_EQ(order.event_type, "order.completed");
  EXPECT_TRUE(order.live);
  ASSERT_EQ(order.action, StoreAction::kFulfil);
  EXPECT_EQ(order.order.order_id, "FsFixtureOrder0001aBcD");
  EXPECT_EQ(order.order.references,
            (std::vector<std::string>{"LIC260302-1234-56789", "FsFixtureSubscr0001qRs"}));
  EXPECT_EQ(order.order.customer.email, "ada@example.com");
  EXPECT_EQ(order.order.customer.name, "Ada Lovelace");
  ASSERT_EQ(order.order.lines.size(), 2u);
  EXPECT_EQ(order.order.lines[0].item_id, "studio-plugin");
  EXPECT_EQ(order.order.lines[0].quantity, 2);
  EXPECT_EQ(order.order.lines[1].item_id, "studio-plugin-updates");
  EXPECT_FALSE(order.lookup.has_value());
  EXPECT_EQ(events->at(1).event_key, "FsFixtureEvent0002AbCd");
  EXPECT_EQ(events->at(1).action, StoreAction::kAcknowledge);

  auto single =
      kFastSpringStoreProvider.read(delivery(fixture("fastspring/order_completed.json")), s);
  ASSERT_FALSE(single.ok()) << "read alone must not drop the second event";
  EXPECT_TRUE(
      kFastSpringStoreProvider.read(delivery(fixture("fastspring/return_created_partial.json")), s)
          .ok());
}

TEST(FastSpringEvent, ATestOrderIsNotLive) {
  const StoreEvent e =
      read_one("fastspring", "fastspring/order_completed_test.json", store("fastspring"));
  EXPECT_FALSE(e.live);
  EXPECT_EQ(e.action, StoreAction::kFulfil);
}

TEST(FastSpringEvent, AReturnOfTheWholeOrderRefundsItAndASmallerOneDoesNot) {
  const Storefront s = store("fastspring");
  const StoreEvent whole = read_one("fastspring", "fastspring/return_created_whole_order.json", s);
  EXPECT_EQ(whole.action, StoreAction::kRefund);
  EXPECT_EQ(whole.reference, "FsFixtureOrder0001aBcD");
  EXPECT_EQ(read_one("fastspring", "fastspring/return_created_partial.json", s).action,
            StoreAction::kPartialRefund);
}

TEST(FastSpringEvent, SubscriptionChargesAndCancellationsCiteTheSubscription) {
  const Storefront s = store("fastspring");
  const StoreEvent renewal =
      read_one("fastspring", "fastspring/subscription_charge_completed.json", s);
  EXPECT_EQ(renewal.action, StoreAction::kRenewal);
  EXPECT_EQ(renewal.reference, "FsFixtureSubscr0001qRs");
  EXPECT_EQ(renewal.period_start, 1775124945000);
  EXPECT_EQ(renewal.period_end, 1777716945000);
  const StoreEvent cancel = read_one("fastspring", "fastspring/subscription_canceled.json", s);
  EXPECT_EQ(cancel.action, StoreAction::kCancellation);
  EXPECT_EQ(cancel.reference, "FsFixtureSubscr0001qRs");
  EXPECT_EQ(cancel.period_end, 1777716945000);
  const StoreEvent failed = read_one("fastspring", "fastspring/subscription_charge_failed.json", s);
  EXPECT_EQ(failed.action, StoreAction::kPaymentFailed);
  EXPECT_EQ(failed.reference, "FsFixtureSubscr0001qRs");
}

TEST(FastSpringEvent, MalformedDeliveriesAreRefused) {
  for (
      const std::string& body : std::vector<std::string>{
          "",
          "{}",
          R"({"events":[]})",
          R"({"events":{}})",
          R"({"events":[1]})",
          R"({"events":[{"id":"e1","type":"order.completed"}]})",
          R"({"events":[{"id":"e1","type":"order.completed","live":true,"data":{"order":"o","items":[{"product":"p","quantity":1001}]}}]})",
          R"({"events":[{"id":"e1","type":"x","live":true},{"id":"e2","type":"order.completed","live":true,"data":{}}]})",
      }) {
    auto e = read_store_events(provider("fastspring"), delivery(body), store("fastspring"));
    ASSERT_FALSE(e.ok()) << body;
    EXPECT_EQ(e.error().code, StatusCode::kInvalidArgument) << body;
  }
}

// --- fastspring-generator ---

constexpr std::string_view kGeneratorOptions =
    R"({"apiKey": "user:pass", "generatorParams": ["company", "email", "internalProductName", "name", "quantity", "reference", "test"]})";

Storefront generator_store() {
  Storefront s = store("fastspring-generator", std::string(kGeneratorOptions));
  s.secrets = {"rotated-key", "fs-generator-private-key-1"};
  return s;
}

TEST(FastSpringGenerator, ARequestHashedWithTheKeyAndTheConfiguredNamesIsAuthentic) {
  const std::string body = fixture("fastspring-generator/license_request.txt");
  const StoreProvider& p = provider("fastspring-generator");
  EXPECT_TRUE(p.authentic(delivery(body), generator_store()));
  Storefront other_key = generator_store();
  other_key.secrets = {"rotated-key"};
  EXPECT_FALSE(p.authentic(delivery(body), other_key));
  // One name fewer configured: the form now carries a name the store does not accept.
  Storefront fewer = store(
      "fastspring-generator",
      R"({"generatorParams": ["company", "email", "internalProductName", "name", "quantity", "reference"]})");
  fewer.secrets = generator_store().secrets;
  EXPECT_FALSE(p.authentic(delivery(body), fewer));
  // One name more configured: the form lacks one.
  Storefront more = store(
      "fastspring-generator",
      R"({"generatorParams": ["company", "email", "internalProductName", "name", "quantity", "reference", "test", "subscriptionReference"]})");
  more.secrets = generator_store().secrets;
  EXPECT_FALSE(p.authentic(delivery(body), more));
  EXPECT_FALSE(p.authentic(delivery(body + "&email=x"), generator_store())) << "a name twice";
  EXPECT_FALSE(p.authentic(delivery(body + "&extra=1"), generator_store()));
  std::string tampered = body;
  tampered.replace(tampered.find("quantity=2"), 10, "quantity=9");
  EXPECT_FALSE(p.authentic(delivery(tampered), generator_store()));
  EXPECT_FALSE(p.authentic(delivery(body), store("fastspring-generator"))) << "no generatorParams";
}

TEST(FastSpringGenerator, IssuesOnlyForAnOrderFastSpringConfirms) {
  const std::string body = fixture("fastspring-generator/license_request.txt");
  const Storefront s = generator_store();
  const StoreProvider& p = provider("fastspring-generator");
  auto read = p.read(delivery(body), s);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->event_key, sha256_hex(body));
  EXPECT_EQ(read->action, StoreAction::kFulfil);
  EXPECT_TRUE(read->live);
  EXPECT_EQ(read->order.order_id, "LIC260302-1234-56789");
  EXPECT_EQ(read->order.customer.email, "ada@example.com");
  EXPECT_TRUE(read->order.lines.empty()) << "what was bought comes from the API, not the form";
  ASSERT_TRUE(read->lookup.has_value());
  EXPECT_EQ(read->lookup->base, "https://api.fastspring.com");
  EXPECT_EQ(read->lookup->path_and_query, "/orders/LIC260302-1234-56789");
  ASSERT_EQ(read->lookup->headers.size(), 1u);
  EXPECT_EQ(read->lookup->headers[0].second, "Basic dXNlcjpwYXNz");  // base64("user:pass")

  auto done = p.complete(read.value(), fixture("fastspring-generator/order.json"), s);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_FALSE(done->lookup.has_value());
  ASSERT_EQ(done->order.lines.size(), 1u);
  EXPECT_EQ(done->order.lines[0].item_id, "studio-plugin");
  EXPECT_EQ(done->order.lines[0].quantity, 2);
  auto listed = p.complete(read.value(),
                           "{\"orders\": [" + fixture("fastspring-generator/order.json") + "]}", s);
  EXPECT_TRUE(listed.ok()) << "the API's list form is read too";

  for (const std::string& answer :
       {fixture("fastspring-generator/order_not_completed.json"), std::string(R"({"orders": []})"),
        std::string(R"({"reference": "ANOTHER-ORDER", "completed": true, "items": []})"),
        std::string("not json")}) {
    auto refused = p.complete(read.value(), answer, s);
    ASSERT_FALSE(refused.ok()) << answer;
    EXPECT_EQ(refused.error().code, StatusCode::kInvalidArgument);
  }
}

// --- lemonsqueezy ---

TEST(LemonSqueezyEvent, APaidOrderIsASaleOfItsVariantKeyedByTheBodysHash) {
  const std::string body = fixture("lemonsqueezy/order_created.json");
  auto e = kLemonSqueezyStoreProvider.read(delivery(body), store("lemonsqueezy"));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->event_key, sha256_hex(body));
  EXPECT_EQ(e->event_type, "order_created");
  EXPECT_TRUE(e->live);
  ASSERT_EQ(e->action, StoreAction::kFulfil);
  EXPECT_EQ(e->order.order_id, "78001");
  EXPECT_EQ(e->order.references, std::vector<std::string>{"8f4a2c1e-3b5d-4e6f-9a7b-1c2d3e4f5a6b"});
  EXPECT_EQ(e->order.customer.email, "ada@example.com");
  EXPECT_EQ(e->order.customer.name, "Ada Lovelace");
  ASSERT_EQ(e->order.lines.size(), 1u);
  EXPECT_EQ(e->order.lines[0].item_id, "91001");
  EXPECT_EQ(e->order.lines[0].quantity, 3);
  EXPECT_FALSE(e->lookup.has_value());
}

TEST(LemonSqueezyEvent, TestModeAndUnpaidOrdersAndRefunds) {
  const Storefront s = store("lemonsqueezy");
  const StoreEvent test = read_one("lemonsqueezy", "lemonsqueezy/order_created_test_mode.json", s);
  EXPECT_FALSE(test.live);
  EXPECT_EQ(read_one("lemonsqueezy", "lemonsqueezy/order_created_pending.json", s).action,
            StoreAction::kAcknowledge);
  const StoreEvent refund = read_one("lemonsqueezy", "lemonsqueezy/order_refunded.json", s);
  EXPECT_EQ(refund.action, StoreAction::kRefund);
  EXPECT_EQ(refund.reference, "78001");
  EXPECT_EQ(read_one("lemonsqueezy", "lemonsqueezy/order_refunded_partial.json", s).action,
            StoreAction::kPartialRefund);
}

TEST(LemonSqueezyEvent, ACancellationCitesTheOrderAndInvoicesLookUpTheirSubscription) {
  const Storefront s = store("lemonsqueezy", R"({"apiKey": "ls_key"})");
  const StoreEvent cancel = read_one("lemonsqueezy", "lemonsqueezy/subscription_cancelled.json", s);
  EXPECT_EQ(cancel.action, StoreAction::kCancellation);
  EXPECT_EQ(cancel.reference, "78001");
  EXPECT_EQ(cancel.period_end, at("2026-05-02T10:15:44Z"));

  const StoreEvent paid =
      read_one("lemonsqueezy", "lemonsqueezy/subscription_payment_success.json", s);
  EXPECT_EQ(paid.action, StoreAction::kRenewal);
  ASSERT_TRUE(paid.lookup.has_value());
  EXPECT_EQ(paid.lookup->base, "https://api.lemonsqueezy.com");
  EXPECT_EQ(paid.lookup->path_and_query, "/v1/subscriptions/62001");
  auto renewed =
      kLemonSqueezyStoreProvider.complete(paid, fixture("lemonsqueezy/subscription.json"), s);
  ASSERT_TRUE(renewed.ok()) << renewed.error().message;
  EXPECT_EQ(renewed->reference, "78001");
  EXPECT_EQ(renewed->period_start, at("2026-04-02T10:15:44Z"));
  EXPECT_EQ(renewed->period_end, at("2026-05-02T10:15:44Z"));
  EXPECT_FALSE(renewed->lookup.has_value());

  const StoreEvent failed =
      read_one("lemonsqueezy", "lemonsqueezy/subscription_payment_failed.json", s);
  EXPECT_EQ(failed.action, StoreAction::kPaymentFailed);
  auto done =
      kLemonSqueezyStoreProvider.complete(failed, fixture("lemonsqueezy/subscription.json"), s);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->reference, "78001");
}

TEST(LemonSqueezyEvent, MalformedPayloadsAreRefused) {
  for (
      const std::string& body : std::vector<std::string>{
          "",
          "{}",
          R"({"meta":{}})",
          R"({"meta":{"event_name":"order_created","test_mode":"no"}})",
          R"({"meta":{"event_name":"order_created"},"data":{"id":"1","attributes":{"status":"paid"}}})",
          R"({"meta":{"event_name":"order_refunded"},"data":{"id":"1","attributes":{"total":10}}})",
      }) {
    auto e = kLemonSqueezyStoreProvider.read(delivery(body), store("lemonsqueezy"));
    ASSERT_FALSE(e.ok()) << body;
    EXPECT_EQ(e.error().code, StatusCode::kInvalidArgument) << body;
  }
}

// --- gumroad ---

constexpr std::string_view kGumroadOptions =
    R"({"apiKey": "gr token", "sellerId": "gRsFixtureSeller0001=="})";

TEST(GumroadEvent, APingIsAuthenticOnlyForTheConfiguredSeller) {
  const std::string body = fixture("gumroad/sale_ping.txt");
  EXPECT_TRUE(kGumroadStoreProvider.authentic(delivery(body),
                                              store("gumroad", std::string(kGumroadOptions))));
  EXPECT_FALSE(kGumroadStoreProvider.authentic(
      delivery(body), store("gumroad", R"({"sellerId": "gRsFixtureSeller0002=="})")));
  EXPECT_FALSE(kGumroadStoreProvider.authentic(delivery(body), store("gumroad")));
  EXPECT_FALSE(kGumroadStoreProvider.authentic(delivery(body + "&seller_id=x"),
                                               store("gumroad", std::string(kGumroadOptions))))
      << "two seller ids";
  EXPECT_FALSE(kGumroadStoreProvider.authentic(delivery("seller_id=%zz"),
                                               store("gumroad", std::string(kGumroadOptions))));
}

TEST(GumroadEvent, APingOnlyTriggersALookupOfItsSale) {
  const Storefront s = store("gumroad", std::string(kGumroadOptions));
  const std::string body = fixture("gumroad/sale_ping.txt");
  auto e = kGumroadStoreProvider.read(delivery(body), s);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->event_key, sha256_hex(body));
  EXPECT_EQ(e->event_type, "sale");
  EXPECT_TRUE(e->live);
  EXPECT_EQ(e->action, StoreAction::kAcknowledge) << "nothing is decided from the ping";
  EXPECT_TRUE(e->order.lines.empty());
  ASSERT_TRUE(e->lookup.has_value());
  EXPECT_EQ(e->lookup->base, "https://api.gumroad.com");
  EXPECT_EQ(e->lookup->path_and_query,
            "/v2/sales/gRsFixtureSale0001%3D%3D?access_token=gr%20token");

  auto sale = kGumroadStoreProvider.complete(e.value(), fixture("gumroad/sale.json"), s);
  ASSERT_TRUE(sale.ok()) << sale.error().message;
  ASSERT_EQ(sale->action, StoreAction::kFulfil);
  EXPECT_FALSE(sale->lookup.has_value());
  EXPECT_EQ(sale->order.order_id, "gRsFixtureSale0001==");
  ASSERT_EQ(sale->order.lines.size(), 1u);
  EXPECT_EQ(sale->order.lines[0].item_id, "gRsFixtureProduct001==");
  EXPECT_EQ(sale->order.lines[0].quantity, 2);
  EXPECT_EQ(sale->order.customer.email, "ada@example.com");
  EXPECT_EQ(sale->order.customer.name, "Ada Lovelace");

  auto test = kGumroadStoreProvider.read(delivery(fixture("gumroad/sale_ping_test.txt")), s);
  ASSERT_TRUE(test.ok());
  EXPECT_FALSE(test->live);
}

TEST(GumroadEvent, TheApiNotThePingDecidesRefundsDisputesAndCancellations) {
  const Storefront s = store("gumroad", std::string(kGumroadOptions));
  // A "sale" ping for a sale the API reports refunded is a refund: the API wins.
  auto ping = kGumroadStoreProvider.read(delivery(fixture("gumroad/sale_ping.txt")), s);
  ASSERT_TRUE(ping.ok());
  auto refunded =
      kGumroadStoreProvider.complete(ping.value(), fixture("gumroad/sale_refunded.json"), s);
  ASSERT_TRUE(refunded.ok());
  EXPECT_EQ(refunded->action, StoreAction::kRefund);
  EXPECT_EQ(refunded->reference, "gRsFixtureSale0001==");
  // A refund ping for a sale the API does not report refunded refunds nothing.
  auto refund_ping = kGumroadStoreProvider.read(delivery(fixture("gumroad/refund_ping.txt")), s);
  ASSERT_TRUE(refund_ping.ok());
  EXPECT_EQ(refund_ping->event_type, "refund");
  auto not_refunded =
      kGumroadStoreProvider.complete(refund_ping.value(), fixture("gumroad/sale.json"), s);
  ASSERT_TRUE(not_refunded.ok());
  EXPECT_NE(not_refunded->action, StoreAction::kRefund);

  auto disputed =
      kGumroadStoreProvider.complete(ping.value(), fixture("gumroad/sale_disputed.json"), s);
  ASSERT_TRUE(disputed.ok());
  EXPECT_EQ(disputed->action, StoreAction::kDispute);
  auto won =
      kGumroadStoreProvider.complete(ping.value(), fixture("gumroad/sale_dispute_won.json"), s);
  ASSERT_TRUE(won.ok());
  EXPECT_EQ(won->action, StoreAction::kDisputeWon);
  EXPECT_EQ(won->dispute_id, disputed->dispute_id);

  auto cancel_ping =
      kGumroadStoreProvider.read(delivery(fixture("gumroad/cancellation_ping.txt")), s);
  ASSERT_TRUE(cancel_ping.ok());
  EXPECT_EQ(cancel_ping->event_type, "cancellation");
  auto cancelled = kGumroadStoreProvider.complete(
      cancel_ping.value(), fixture("gumroad/sale_subscription_cancelled.json"), s);
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->action, StoreAction::kCancellation);
  EXPECT_EQ(cancelled->reference, "gRsFixtureSubscr01==");
  ASSERT_TRUE(cancelled->lookup.has_value()) << "the end comes from the subscriber";
  EXPECT_EQ(cancelled->lookup->path_and_query,
            "/v2/subscribers/gRsFixtureSubscr01%3D%3D?access_token=gr%20token");
  auto ended =
      kGumroadStoreProvider.complete(cancelled.value(), fixture("gumroad/subscriber.json"), s);
  ASSERT_TRUE(ended.ok()) << ended.error().message;
  EXPECT_FALSE(ended->lookup.has_value());
  EXPECT_EQ(ended->action, StoreAction::kCancellation);
  EXPECT_EQ(ended->period_end, at("2026-05-02T10:15:44Z"));

  auto recurring = kGumroadStoreProvider.complete(ping.value(),
                                                  fixture("gumroad/sale_recurring_charge.json"), s);
  ASSERT_FALSE(recurring.ok()) << "the API answered another sale than the ping named";
  auto failed = kGumroadStoreProvider.complete(ping.value(), R"({"success": false})", s);
  EXPECT_FALSE(failed.ok());
}

TEST(FormBody, DecodesPlusAndEscapesAndRefusesMalformedOnes) {
  auto form = parse_form_body("a=1+2&b=%41%3d&c&d=");
  ASSERT_TRUE(form.has_value());
  ASSERT_EQ(form->size(), 4u);
  EXPECT_EQ(form->at(0), (std::pair<std::string, std::string>{"a", "1 2"}));
  EXPECT_EQ(form->at(1).second, "A=");
  EXPECT_EQ(form->at(2).second, "");
  EXPECT_EQ(form_value(*form, "b"), "A=");
  EXPECT_EQ(form_value(*form, "z"), std::nullopt);
  EXPECT_EQ(form_value(*parse_form_body("a=1&a=2"), "a"), std::nullopt) << "ambiguous";
  EXPECT_TRUE(parse_form_body("")->empty());
  for (const std::string& bad :
       std::vector<std::string>{"a=%4", "a=%zz", "=1", "a=1&&b=2", "a=%"}) {
    EXPECT_FALSE(parse_form_body(bad).has_value()) << bad;
  }
  std::string many;
  for (size_t i = 0; i <= kMaxFormParameters; ++i)
    many += (i ? "&p" : "p") + std::to_string(i) + "=1";
  EXPECT_FALSE(parse_form_body(many).has_value());
  EXPECT_EQ(percent_encode("a b=/~"), "a%20b%3D%2F~");
}

// Ids from a delivery go into a look-up's path: none may move it (docs/protocol.md §22.9: look-ups
// stay on the provider's API; a dot segment would climb out of /v2/sales/).
TEST(FormBody, AnIdBecomesOneEncodedPathSegmentOrIsRefused) {
  EXPECT_EQ(path_segment("FO8TXN-dbxYaBdE7_vHN7JA=="), "FO8TXN-dbxYaBdE7_vHN7JA%3D%3D");
  EXPECT_EQ(path_segment("../v2/products?x=1#f"), "..%2Fv2%2Fproducts%3Fx%3D1%23f");
  EXPECT_EQ(path_segment("@evil.example"), "%40evil.example");
  for (const std::string_view bad : {"", ".", ".."}) {
    EXPECT_EQ(path_segment(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(path_segment(std::string(257, 'a')), std::nullopt);
  EXPECT_TRUE(path_segment(std::string(256, 'a')).has_value());
}

TEST(GumroadEvent, APingNamingADotSegmentAsItsSaleIsRefusedBeforeAnyLookUp) {
  const auto read = kGumroadStoreProvider.read(delivery("seller_id=seller&sale_id=.."),
                                               store("gumroad", std::string(kGumroadOptions)));
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace licensed
