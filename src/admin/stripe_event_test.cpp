#include "admin/stripe_event.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace licensed {
namespace {

std::string fixture(const std::string& name) {
  const auto path = std::filesystem::path(LICENSED_SOURCE_DIR) / "tests/fixtures/stripe" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(StripeEvent, APaidCheckoutSessionBecomesAnOrderWithItsCustomer) {
  auto event = parse_stripe_event(fixture("checkout_session_completed_paid.json"));
  ASSERT_TRUE(event.ok()) << event.error().message;
  EXPECT_EQ(event->id, "evt_1LcStoresFixture0001");
  EXPECT_EQ(event->type, "checkout.session.completed");
  EXPECT_TRUE(event->livemode);
  auto checkout = parse_stripe_checkout(event.value());
  ASSERT_TRUE(checkout.ok()) << checkout.error().message;
  EXPECT_EQ(checkout->session_id, "cs_live_a1StoresFixtureSession0001");
  EXPECT_EQ(checkout->customer.email, "ada@example.com");
  EXPECT_EQ(checkout->customer.name, "Ada Lovelace");
  EXPECT_FALSE(checkout->lines.has_value()) << "webhooks do not carry line items";
  EXPECT_TRUE(stripe_fulfils(event.value(), checkout.value()));

  auto lines = parse_stripe_line_items(fixture("checkout_session_line_items.json"));
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ(lines.value()[0].item_id, "price_1StoresFixtureSingle");
  EXPECT_EQ(lines.value()[0].quantity, 2);
  EXPECT_EQ(lines.value()[1].item_id, "price_1StoresFixtureSite");
  EXPECT_EQ(lines.value()[1].quantity, 1);

  const VerifiedOrder order = stripe_order(event.value(), checkout.value(), lines.value());
  EXPECT_EQ(order.event_key, "evt_1LcStoresFixture0001");
  EXPECT_EQ(order.order_id, "cs_live_a1StoresFixtureSession0001");
  EXPECT_EQ(order.customer.email, "ada@example.com");
  EXPECT_EQ(order.lines.size(), 2u);
}

TEST(StripeEvent, AnUnpaidSessionWaitsForItsAsyncPaymentToSucceed) {
  auto unpaid = parse_stripe_event(fixture("checkout_session_completed_unpaid.json"));
  ASSERT_TRUE(unpaid.ok());
  auto checkout = parse_stripe_checkout(unpaid.value());
  ASSERT_TRUE(checkout.ok());
  EXPECT_FALSE(stripe_fulfils(unpaid.value(), checkout.value()));
  EXPECT_EQ(checkout->customer.email, "grace@example.com");
  EXPECT_FALSE(checkout->customer.name.has_value());

  auto later = parse_stripe_event(fixture("checkout_session_async_payment_succeeded.json"));
  ASSERT_TRUE(later.ok());
  auto paid = parse_stripe_checkout(later.value());
  ASSERT_TRUE(paid.ok());
  EXPECT_TRUE(stripe_fulfils(later.value(), paid.value()));
  EXPECT_EQ(paid->session_id, checkout->session_id) << "one order: the unit keys match";
}

TEST(StripeEvent, ExpandedLineItemsAreReadFromTheSession) {
  const std::string body =
      R"({"id":"evt_x","type":"checkout.session.completed","livemode":false,"data":{"object":)"
      R"({"id":"cs_test_x","payment_status":"paid","customer_details":null,"line_items":)"
      R"({"object":"list","data":[{"price":{"id":"price_a"},"quantity":3}],"has_more":false}}}})";
  auto event = parse_stripe_event(body);
  ASSERT_TRUE(event.ok()) << event.error().message;
  EXPECT_FALSE(event->livemode);
  auto checkout = parse_stripe_checkout(event.value());
  ASSERT_TRUE(checkout.ok()) << checkout.error().message;
  ASSERT_TRUE(checkout->lines.has_value());
  ASSERT_EQ(checkout->lines->size(), 1u);
  EXPECT_EQ((*checkout->lines)[0].quantity, 3);
  EXPECT_FALSE(checkout->customer.email.has_value());
}

TEST(StripeEvent, MalformedPayloadsAreRefusedNamingTheMember) {
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "event"},
      {"[]", "event"},
      {R"({"type":"x","livemode":true,"data":{"object":{}}})", "id"},
      {R"({"id":"","type":"x","livemode":true,"data":{"object":{}}})", "id"},
      {R"({"id":"e","livemode":true,"data":{"object":{}}})", "type"},
      {R"({"id":"e","type":"x","livemode":"yes","data":{"object":{}}})", "livemode"},
      {R"({"id":"e","type":"x","livemode":true})", "data"},
      {R"({"id":"e","type":"x","livemode":true,"data":{"object":[]}})", "data.object"},
  };
  for (const auto& [body, member] : cases) {
    auto e = parse_stripe_event(body);
    ASSERT_FALSE(e.ok()) << body;
    EXPECT_EQ(e.error().subject, member) << body;
  }
  auto no_status =
      parse_stripe_event(R"({"id":"e","type":"x","livemode":true,"data":{"object":{"id":"cs"}}})");
  ASSERT_TRUE(no_status.ok());
  EXPECT_FALSE(parse_stripe_checkout(no_status.value()).ok());
}

TEST(StripeEvent, LineItemsNeedAPriceIdAndASaneQuantityAndOnePage) {
  for (const std::string& bad : {
           std::string(R"({"data":[{"price":{"id":"p"},"quantity":0}],"has_more":false})"),
           std::string(R"({"data":[{"price":{"id":"p"},"quantity":1001}],"has_more":false})"),
           std::string(R"({"data":[{"price":{"id":"p"},"quantity":1.5}],"has_more":false})"),
           std::string(R"({"data":[{"price":{"id":"p"},"quantity":null}],"has_more":false})"),
           std::string(R"({"data":[{"price":{"id":""},"quantity":1}],"has_more":false})"),
           std::string(R"({"data":[{"price":"p","quantity":1}],"has_more":false})"),
           std::string(R"({"data":[{"price":{"id":"p"},"quantity":1}],"has_more":true})"),
           std::string(R"({"data":{}})"),
           std::string(R"([])"),
       }) {
    EXPECT_FALSE(parse_stripe_line_items(bad).ok()) << bad;
  }
  auto empty = parse_stripe_line_items(R"({"object":"list","data":[],"has_more":false})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace licensed
