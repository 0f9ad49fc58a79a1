// The sample deliveries of `licensed admin store send-sample` read as real ones: each is
// authentic under the store's secret (and only under it) and read by the provider's own
// reader as the sale or refund it stands for.
#include "admin/store_sample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "admin/store_provider.h"

namespace licensed {
namespace {

constexpr UnixMillis kNow = 1'780'000'000'000;

Storefront store(std::string provider, std::string secret, std::string options = "{}") {
  Storefront s;
  s.id = 3;
  s.provider = std::move(provider);
  s.secrets = {std::move(secret)};
  s.options_json = std::move(options);
  return s;
}

InboundDelivery inbound(const SampleDelivery& d) {
  InboundDelivery in;
  for (const auto& [name, value] : d.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    in.headers.emplace(lower, value);
  }
  in.body = d.body;
  in.now = kNow;
  return in;
}

SampleRequest sale(std::string provider, std::string item) {
  SampleRequest r;
  r.provider = std::move(provider);
  r.item = std::move(item);
  r.quantity = 3;
  r.email = "ada@example.com";
  r.name = "Ada Lovelace";
  return r;
}

// The one event the sample carries, as the provider reads it from an authentic delivery.
StoreEvent read_sample(const SampleDelivery& d, const Storefront& s) {
  const StoreProvider* provider = find_store_provider(s.provider);
  EXPECT_NE(provider, nullptr);
  if (provider == nullptr) return {};
  const InboundDelivery in = inbound(d);
  EXPECT_TRUE(provider->authentic(in, s)) << d.body;
  Storefront other = s;
  other.secrets = {"another-secret"};
  if (s.provider != "gumroad") {
    EXPECT_FALSE(provider->authentic(in, other)) << s.provider;
  }
  auto events = read_store_events(*provider, in, s);
  EXPECT_TRUE(events.ok()) << (events.ok() ? "" : events.error().message);
  if (!events.ok() || events->size() != 1) {
    ADD_FAILURE() << "one event expected";
    return {};
  }
  return events->front();
}

void expect_sale(const StoreEvent& e, const std::string& item, int64_t quantity) {
  EXPECT_EQ(e.action, StoreAction::kFulfil);
  ASSERT_EQ(e.order.lines.size(), 1u);
  EXPECT_EQ(e.order.lines[0].item_id, item);
  EXPECT_EQ(e.order.lines[0].quantity, quantity);
}

TEST(StoreSample, AStripeSaleIsSignedInTestModeWithItsLineItemsSoNoLookUpIsNeeded) {
  const Storefront s = store("stripe", "whsec_1", R"({"testMode":true})");
  auto d = build_store_sample(sale("stripe", "price_1"), "whsec_1", kNow);
  ASSERT_TRUE(d.ok()) << d.error().message;
  const StoreEvent e = read_sample(d.value(), s);
  expect_sale(e, "price_1", 3);
  EXPECT_FALSE(e.live);
  EXPECT_FALSE(e.lookup.has_value());
  EXPECT_EQ(e.order.order_id, d->order_id);
  EXPECT_EQ(e.order.customer.email, "ada@example.com");
  EXPECT_EQ(e.order.customer.name, "Ada Lovelace");
}

TEST(StoreSample, LiveSendsStripesLivemodeTrue) {
  SampleRequest r = sale("stripe", "price_1");
  r.live = true;
  auto d = build_store_sample(r, "whsec_1", kNow);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(read_sample(d.value(), store("stripe", "whsec_1")).live);
}

TEST(StoreSample, EachSaleIsANewEventAndANewOrderUnlessAnOrderIsGiven) {
  auto a = build_store_sample(sale("stripe", "price_1"), "whsec_1", kNow);
  auto b = build_store_sample(sale("stripe", "price_1"), "whsec_1", kNow);
  ASSERT_TRUE(a.ok() && b.ok());
  const Storefront s = store("stripe", "whsec_1");
  EXPECT_NE(read_sample(a.value(), s).event_key, read_sample(b.value(), s).event_key);
  EXPECT_NE(a->order_id, b->order_id);
  SampleRequest r = sale("stripe", "price_1");
  r.order_id = "cs_given";
  auto c = build_store_sample(r, "whsec_1", kNow);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(read_sample(c.value(), s).order.order_id, "cs_given");
}

TEST(StoreSample, ARefundCitesTheOrderAndRefundsItWhole) {
  for (const std::string provider : {"stripe", "paddle", "fastspring", "lemonsqueezy"}) {
    SampleRequest r;
    r.provider = provider;
    r.kind = SampleKind::kRefund;
    r.order_id = "order_1";
    auto d = build_store_sample(r, "s1", kNow);
    ASSERT_TRUE(d.ok()) << provider << ": " << d.error().message;
    const StoreEvent e = read_sample(d.value(), store(provider, "s1"));
    EXPECT_EQ(e.action, StoreAction::kRefund) << provider;
    EXPECT_EQ(e.reference, "order_1") << provider;
  }
}

TEST(StoreSample, ARefundWithoutAnOrderOrFromTheGeneratorIsRefused) {
  SampleRequest r;
  r.provider = "stripe";
  r.kind = SampleKind::kRefund;
  EXPECT_FALSE(build_store_sample(r, "s1", kNow).ok());
  r.provider = "fastspring-generator";
  r.order_id = "LIC-1";
  EXPECT_FALSE(build_store_sample(r, "s1", kNow).ok());
}

TEST(StoreSample, APaddleSaleIsSignedAndNamesNoCustomerToLookUp) {
  auto d = build_store_sample(sale("paddle", "pri_1"), "pdl_1", kNow);
  ASSERT_TRUE(d.ok());
  const StoreEvent e = read_sample(d.value(), store("paddle", "pdl_1"));
  expect_sale(e, "pri_1", 3);
  EXPECT_FALSE(e.lookup.has_value());
  EXPECT_FALSE(d->notes.empty());
}

TEST(StoreSample, AFastSpringSaleCarriesItsCustomer) {
  auto d = build_store_sample(sale("fastspring", "studio-plugin"), "fs_1", kNow);
  ASSERT_TRUE(d.ok());
  const StoreEvent e = read_sample(d.value(), store("fastspring", "fs_1"));
  expect_sale(e, "studio-plugin", 3);
  EXPECT_FALSE(e.live);
  EXPECT_EQ(e.order.customer.email, "ada@example.com");
  EXPECT_EQ(e.order.customer.name, "Ada Lovelace");
}

TEST(StoreSample, ALemonSqueezySaleReadsItsNumericVariant) {
  auto d = build_store_sample(sale("lemonsqueezy", "91001"), "ls_1", kNow);
  ASSERT_TRUE(d.ok());
  EXPECT_NE(d->body.find(R"("variant_id":91001)"), std::string::npos) << d->body;
  const StoreEvent e = read_sample(d.value(), store("lemonsqueezy", "ls_1"));
  expect_sale(e, "91001", 3);
  EXPECT_FALSE(e.live);
  EXPECT_EQ(e.order.customer.email, "ada@example.com");
}

TEST(StoreSample, TheGeneratorSendsTheStoresParametersHashedAndIsLookedUp) {
  const Storefront s = store("fastspring-generator", "private_key",
                             R"({"generatorParams":["reference","internalProductName","quantity",)"
                             R"("email","test"]})");
  SampleRequest r = sale("fastspring-generator", "studio-plugin");
  r.generator_params = {"reference", "internalProductName", "quantity", "email", "test"};
  auto d = build_store_sample(r, "private_key", kNow);
  ASSERT_TRUE(d.ok());
  const StoreEvent e = read_sample(d.value(), s);
  EXPECT_EQ(e.order.order_id, d->order_id);
  EXPECT_FALSE(e.live);
  EXPECT_TRUE(e.lookup.has_value()) << "FastSpring's API confirms every generator request";
  // The default parameters are not this store's: the request is refused.
  auto defaults =
      build_store_sample(sale("fastspring-generator", "studio-plugin"), "private_key", kNow);
  ASSERT_TRUE(defaults.ok());
  EXPECT_FALSE(kFastSpringGeneratorStoreProvider.authentic(inbound(defaults.value()), s));
}

TEST(StoreSample, AGumroadPingNamesTheSellerAndTheSaleToLookUp) {
  const Storefront s = store("gumroad", "", R"({"sellerId":"seller==","apiKey":"k"})");
  SampleRequest r = sale("gumroad", "prod==");
  EXPECT_FALSE(build_store_sample(r, "", kNow).ok()) << "a seller id is required";
  r.seller_id = "seller==";
  auto d = build_store_sample(r, "", kNow);
  ASSERT_TRUE(d.ok());
  const StoreEvent e = read_sample(d.value(), s);
  EXPECT_EQ(e.reference, d->order_id);
  EXPECT_FALSE(e.live);
  EXPECT_TRUE(e.lookup.has_value());
  r.seller_id = "someone-else";
  auto other = build_store_sample(r, "", kNow);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(kGumroadStoreProvider.authentic(inbound(other.value()), s));
}

TEST(StoreSample, TheProviderIsReadFromTheInboundUrl) {
  EXPECT_EQ(sample_provider_of("/api/v1/stores/stripe/1/abc").value(), "stripe");
  EXPECT_EQ(
      sample_provider_of("https://l.example.com/api/v1/stores/fastspring-generator/12/t").value(),
      "fastspring-generator");
  EXPECT_FALSE(sample_provider_of("/api/v1/stores/stripe/1/").ok());
  EXPECT_FALSE(sample_provider_of("/api/v1/stores/stripe").ok());
  EXPECT_FALSE(sample_provider_of("https://l.example.com/").ok());
}

TEST(StoreSample, UnknownProvidersMissingItemsAndMissingSecretsAreRefused) {
  EXPECT_FALSE(build_store_sample(sale("shopify", "x"), "s", kNow).ok());
  EXPECT_FALSE(build_store_sample(sale("stripe", ""), "s", kNow).ok());
  EXPECT_FALSE(build_store_sample(sale("stripe", "price_1"), "", kNow).ok());
}

}  // namespace
}  // namespace licensed
