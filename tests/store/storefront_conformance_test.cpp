// The Store contract for store fulfilment (docs/protocol.md §22), on SQLite and on PostgreSQL
// alike: stores keep their secrets (in order, at most 3) and SKU mappings, an event key
// and a unit are recorded once, licenses keep customer and source and their audit the
// source; fulfil_order makes one license per unit or one for the line, and of 64
// concurrent deliveries of one event (or 64 events of one order) exactly one creates.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <future>
#include <latch>
#include <set>

#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "admin/store_fulfilment.h"
#include "admin/storefront_operations.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Fulfilment;
using licensed::License;
using licensed::Result;
using licensed::SkuMapping;
using licensed::Storefront;
using licensed::StoreTx;
using licensed::TxKind;
using licensed::VerifiedOrder;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;

class StorefrontConformance : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    auto made = Write([](StoreTx& tx) -> Result<int64_t> {
      auto p = licensed::create_product(tx, "reverb", "Reverb Pro", licensed::AdminContext{kT0});
      if (!p.ok()) return p.error();
      const boost::json::object plan{
          {"code", "pro"}, {"name", "Pro"}, {"max", 2}, {"validFor", "365d"}};
      if (auto c = licensed::create_plan(tx, "reverb", plan, licensed::AdminContext{kT0});
          !c.ok()) {
        return c.error();
      }
      return p->id;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
    product_id_ = made.value();
  }

  // A Stripe store mapping price_single (one license per unit) and price_site (one
  // license for the whole quantity) to reverb's plan "pro".
  Storefront MakeStore(const std::string& token_hash = std::string(64, 'a')) {
    Storefront f;
    f.provider = "stripe";
    f.name = "Main shop";
    f.token_sha256_hex = token_hash;
    f.secrets = {"whsec_new", "whsec_old"};
    f.options_json = R"({"testMode":false})";
    f.created_at = kT0;
    auto made = Write([&](StoreTx& tx) -> Result<Storefront> {
      auto s = tx.insert_storefront(f);
      if (!s.ok()) return s.error();
      for (const auto& m : {SkuMapping{"price_single", product_id_, "pro", true},
                            SkuMapping{"price_site", product_id_, "pro", false}}) {
        if (auto put = tx.put_sku_mapping(s->id, m); !put.ok()) return put.error();
      }
      return s;
    });
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made.value();
  }

  static VerifiedOrder Order(const std::string& event, const std::string& order_id,
                             std::vector<licensed::OrderLine> lines) {
    VerifiedOrder o;
    o.event_key = event;
    o.event_type = "checkout.session.completed";
    o.order_id = order_id;
    o.customer = {std::string("ada@example.com"), std::string("Ada Lovelace")};
    o.lines = std::move(lines);
    return o;
  }

  Result<Fulfilment> Fulfil(const Storefront& s, const VerifiedOrder& o) {
    return Write([&](StoreTx& tx) { return licensed::fulfil_order(tx, s, o, kT0); });
  }

  License Find(const std::string& key) {
    auto l = Read([&](StoreTx& tx) { return licensed::find_any_license(tx, key); });
    EXPECT_TRUE(l.ok()) << l.error().message;
    return l.value();
  }

  int64_t product_id_ = 0;
};

TEST_P(StorefrontConformance, AStoreRoundTripsWithItsSecretsInOrderAndItsMappings) {
  const Storefront made = MakeStore();
  EXPECT_GT(made.id, 0);
  auto found = Read([&](StoreTx& tx) { return tx.find_storefront(made.id); });
  ASSERT_TRUE(found.ok() && found->has_value());
  const Storefront& f = *found.value();
  EXPECT_EQ(f.provider, "stripe");
  EXPECT_EQ(f.name, "Main shop");
  EXPECT_EQ(f.token_sha256_hex, std::string(64, 'a'));
  EXPECT_EQ(f.secrets, (std::vector<std::string>{"whsec_new", "whsec_old"}));
  EXPECT_EQ(f.options_json, R"({"testMode":false})");
  EXPECT_EQ(f.payment_grace_seconds, licensed::kDefaultPaymentGraceSeconds);
  EXPECT_EQ(f.created_at, kT0);

  auto maps = Read([&](StoreTx& tx) { return tx.list_sku_mappings(made.id); });
  ASSERT_TRUE(maps.ok());
  ASSERT_EQ(maps->size(), 2u);
  EXPECT_EQ(maps.value()[0].item_id, "price_single");
  EXPECT_TRUE(maps.value()[0].per_unit);
  EXPECT_EQ(maps.value()[1].item_id, "price_site");
  EXPECT_FALSE(maps.value()[1].per_unit);
  EXPECT_EQ(maps.value()[1].product_id, product_id_);
  EXPECT_EQ(maps.value()[1].plan, "pro");

  // A mapping put again replaces; secrets are replaced whole, and at most 3.
  auto changed = Write([&](StoreTx& tx) -> licensed::Status {
    if (auto s = tx.put_sku_mapping(made.id, SkuMapping{"price_site", product_id_, "pro", true});
        !s.ok()) {
      return s;
    }
    return tx.replace_storefront_secrets(made.id, {"whsec_only"});
  });
  ASSERT_TRUE(changed.ok()) << changed.error().message;
  auto too_many = Write([&](StoreTx& tx) {
    return tx.replace_storefront_secrets(made.id, {"a", "b", "c", "d"});
  });
  EXPECT_FALSE(too_many.ok());
  found = Read([&](StoreTx& tx) { return tx.find_storefront(made.id); });
  EXPECT_EQ(found.value()->secrets, std::vector<std::string>{"whsec_only"});
  maps = Read([&](StoreTx& tx) { return tx.list_sku_mappings(made.id); });
  EXPECT_TRUE(maps.value()[1].per_unit);

  const Storefront second = MakeStore(std::string(64, 'b'));
  auto list = Read([](StoreTx& tx) { return tx.list_storefronts(); });
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(list.value()[0].id, made.id);
  EXPECT_EQ(list.value()[1].id, second.id);
}

TEST_P(StorefrontConformance, TwoStoresCannotShareATokenHash) {
  MakeStore();
  Storefront dup;
  dup.provider = "gumroad";
  dup.name = "Other";
  dup.token_sha256_hex = std::string(64, 'a');
  dup.created_at = kT0;
  auto made = Write([&](StoreTx& tx) { return tx.insert_storefront(dup); });
  EXPECT_FALSE(made.ok());
}

TEST_P(StorefrontConformance, AnEventKeyAndAUnitAreRecordedOncePerStore) {
  const Storefront a = MakeStore();
  const Storefront b = MakeStore(std::string(64, 'b'));
  auto run = Write([&](StoreTx& tx) -> Result<std::vector<bool>> {
    std::vector<bool> out;
    for (auto r : {tx.record_storefront_event(a.id, "evt_1", "x", kT0),
                   tx.record_storefront_event(a.id, "evt_1", "x", kT0),
                   tx.record_storefront_event(b.id, "evt_1", "x", kT0),
                   tx.claim_storefront_unit(a.id, "cs_1", 0, 0, "k1", kT0),
                   tx.claim_storefront_unit(a.id, "cs_1", 0, 0, "k2", kT0),
                   tx.claim_storefront_unit(a.id, "cs_1", 0, 1, "k1", kT0),
                   tx.claim_storefront_unit(a.id, "cs_1", 1, 0, "k3", kT0),
                   tx.claim_storefront_unit(b.id, "cs_1", 0, 0, "k4", kT0)}) {
      if (!r.ok()) return r.error();
      out.push_back(r.value());
    }
    return out;
  });
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run.value(), (std::vector<bool>{true, false, true, true, false, true, true, true}));
  auto keys = Read([&](StoreTx& tx) { return tx.order_license_keys(a.id, "cs_1"); });
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys.value(), (std::vector<std::string>{"k1", "k3"}));
}

TEST_P(StorefrontConformance, DeletingAStoreForgetsItsRecordsAndKeepsItsLicenses) {
  const Storefront s = MakeStore();
  auto f = Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 1}}));
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto deleted = Write([&](StoreTx& tx) { return tx.delete_storefront(s.id); });
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(deleted.value());
  auto again = Write([&](StoreTx& tx) { return tx.delete_storefront(s.id); });
  EXPECT_FALSE(again.value());
  auto found = Read([&](StoreTx& tx) { return tx.find_storefront(s.id); });
  EXPECT_FALSE(found->has_value());
  EXPECT_EQ(Find(f->created.at(0)).source->order_id, "cs_1");
}

TEST_P(StorefrontConformance, ASaleMakesLicensesWithCustomerSourceAndAStoreAuditRecord) {
  const Storefront s = MakeStore();
  auto f = Fulfil(
      s, Order("evt_1", "cs_1", {{"price_single", 2}, {"price_unknown", 5}, {"price_site", 3}}));
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_FALSE(f->duplicate);
  ASSERT_EQ(f->created.size(), 3u) << "two per-unit licenses and one for the site line";
  EXPECT_EQ(f->license_keys, f->created);
  EXPECT_EQ(f->unmapped_items, std::vector<std::string>{"price_unknown"});

  const License single = Find(f->created[0]);
  EXPECT_EQ(single.max, 2);
  EXPECT_EQ(single.plan, "pro");
  EXPECT_EQ(single.expires_at, kT0 + 365LL * 86400 * 1000);
  ASSERT_TRUE(single.customer.has_value());
  EXPECT_EQ(single.customer->email, "ada@example.com");
  EXPECT_EQ(single.customer->name, "Ada Lovelace");
  ASSERT_TRUE(single.source.has_value());
  EXPECT_EQ(single.source->provider, "stripe");
  EXPECT_EQ(single.source->store_id, s.id);
  EXPECT_EQ(single.source->order_id, "cs_1");
  EXPECT_EQ(Find(f->created[2]).max, 6) << "plan max 2 x quantity 3";

  auto audit = Read([&](StoreTx& tx) {
    return tx.list_audit(f->created[0], licensed::AuditOrder::kOldestFirst, 0, 10);
  });
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ(audit.value()[0].action, "license.create");
  EXPECT_EQ(audit.value()[0].actor, licensed::Actor::kStore);
  EXPECT_EQ(audit.value()[0].actor_name, "Main shop");
  EXPECT_EQ(audit.value()[0].source,
            R"({"provider":"stripe","storeId":)" + std::to_string(s.id) + R"(,"orderId":"cs_1"})");
}

TEST_P(StorefrontConformance, ADuplicateDeliveryOrAnotherEventOfTheOrderMakesNothingMore) {
  const Storefront s = MakeStore();
  auto first = Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 2}}));
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto dup = Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 2}}));
  ASSERT_TRUE(dup.ok());
  EXPECT_TRUE(dup->duplicate);
  EXPECT_TRUE(dup->created.empty());
  EXPECT_EQ(dup->license_keys, first->created);
  auto other = Fulfil(s, Order("evt_2", "cs_1", {{"price_single", 2}}));
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->duplicate);
  EXPECT_TRUE(other->created.empty()) << "the units were fulfilled by evt_1";
  EXPECT_EQ(other->license_keys, first->created);
  auto count =
      Read([&](StoreTx& tx) { return tx.list_licenses(licensed::LicenseFilter{}, 0, 100); });
  EXPECT_EQ(count->size(), 2u);
}

TEST_P(StorefrontConformance, AnOrderWithAnAbsurdQuantityOrNoIdsIsRefusedAndRecordsNothing) {
  const Storefront s = MakeStore();
  EXPECT_FALSE(Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 0}})).ok());
  EXPECT_FALSE(
      Fulfil(s, Order("evt_1", "cs_1", {{"price_single", licensed::kMaxUnitsPerLine + 1}})).ok());
  EXPECT_FALSE(Fulfil(s, Order("", "cs_1", {{"price_single", 1}})).ok());
  EXPECT_FALSE(Fulfil(s, Order("evt_1", "", {{"price_single", 1}})).ok());
  auto ok = Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 1}}));
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(ok->duplicate) << "the refused deliveries recorded no event";
  EXPECT_EQ(ok->created.size(), 1u);
}

// `same_event`: 64 deliveries of one event; otherwise 64 events of one order.
void RaceDeliveries(StorefrontConformance* t, const Storefront& s, bool same_event,
                    const std::function<Result<Fulfilment>(const VerifiedOrder&)>& fulfil) {
  (void)t;
  constexpr int kCalls = 64;
  std::latch go(kCalls);
  std::vector<std::future<Result<Fulfilment>>> answers;
  for (int i = 0; i < kCalls; ++i) {
    answers.push_back(std::async(std::launch::async, [&, i] {
      VerifiedOrder o;
      o.event_key = same_event ? "evt_race" : "evt_race_" + std::to_string(i);
      o.event_type = "checkout.session.completed";
      o.order_id = "cs_race";
      o.customer = {std::string("race@example.com"), std::nullopt};
      o.lines = {{"price_single", 3}, {"price_site", 4}};
      go.arrive_and_wait();
      return fulfil(o);
    }));
  }
  std::set<std::vector<std::string>> key_sets;
  int creators = 0;
  for (auto& a : answers) {
    auto r = a.get();
    ASSERT_TRUE(r.ok()) << r.error().message;
    if (!r->created.empty()) ++creators;
    key_sets.insert(r->license_keys);
  }
  EXPECT_EQ(creators, 1);
  ASSERT_EQ(key_sets.size(), 1u) << "every answer names the same keys";
  EXPECT_EQ(key_sets.begin()->size(), 4u);
}

TEST_P(StorefrontConformance, SixtyFourConcurrentDeliveriesOfOneEventCreateOnce) {
  const Storefront s = MakeStore();
  RaceDeliveries(this, s, true, [&](const VerifiedOrder& o) { return Fulfil(s, o); });
  auto all = Read([&](StoreTx& tx) { return tx.list_licenses(licensed::LicenseFilter{}, 0, 100); });
  EXPECT_EQ(all->size(), 4u);
}

TEST_P(StorefrontConformance, SixtyFourConcurrentEventsOfOneOrderCreateOnce) {
  const Storefront s = MakeStore();
  RaceDeliveries(this, s, false, [&](const VerifiedOrder& o) { return Fulfil(s, o); });
  auto all = Read([&](StoreTx& tx) { return tx.list_licenses(licensed::LicenseFilter{}, 0, 100); });
  EXPECT_EQ(all->size(), 4u);
}

TEST_P(StorefrontConformance, CreatingAStoreChecksItsBodyAndGivesItsTokenOnce) {
  const boost::json::object body{
      {"provider", "stripe"},
      {"name", "Main shop"},
      {"secret", boost::json::array{"whsec_a", "whsec_b"}},
      {"mapping",
       {{"price_1", {{"product", "reverb"}, {"plan", "pro"}, {"perUnit", true}}},
        {"price_2", {{"product", "reverb"}, {"plan", "pro"}}}}},
      {"options", {{"testMode", true}}},
      {"paymentGrace", "3d"}};
  auto made = Write([&](StoreTx& tx) {
    return licensed::create_storefront(tx, body, "https://lic.example/",
                                       licensed::AdminContext{kT0});
  });
  ASSERT_TRUE(made.ok()) << made.error().message;
  const auto& c = made.value();
  EXPECT_EQ(c.token.size(), 32u) << "128 bits in hex";
  EXPECT_EQ(c.inbound_url, "https://lic.example/api/v1/stores/stripe/" +
                               std::to_string(c.storefront.id) + "/" + c.token);
  EXPECT_NE(c.storefront.token_sha256_hex, c.token) << "only the hash is kept";
  EXPECT_EQ(c.storefront.payment_grace_seconds, 3 * 86400);

  auto view = Read([&](StoreTx& tx) -> Result<boost::json::object> {
    auto f = tx.find_storefront(c.storefront.id);
    if (!f.ok()) return f.error();
    return licensed::storefront_json(tx, *f.value());
  });
  ASSERT_TRUE(view.ok()) << view.error().message;
  const std::string text = boost::json::serialize(view.value());
  EXPECT_EQ(text.find("whsec_"), std::string::npos) << text;
  EXPECT_EQ(text.find(c.token), std::string::npos) << text;
  EXPECT_EQ(view.value().at("secrets").as_uint64(), 2u);
  EXPECT_EQ(view.value().at("mapping").at("price_1").at("product").as_string(), "reverb");
  EXPECT_EQ(view.value().at("mapping").at("price_2").at("perUnit").as_bool(), false);
  EXPECT_EQ(view.value().at("options").at("testMode").as_bool(), true);

  auto good = Read(
      [&](StoreTx& tx) { return licensed::authenticate_storefront(tx, c.storefront.id, c.token); });
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(good.value().has_value());
  for (const auto& wrong :
       std::vector<std::pair<int64_t, std::string>>{{c.storefront.id, std::string(32, '0')},
                                                    {c.storefront.id, ""},
                                                    {c.storefront.id + 1, c.token}}) {
    // Named apart: a lambda may not capture a structured binding (clang 14).
    const int64_t id = wrong.first;
    const std::string& token = wrong.second;
    auto bad = Read([&](StoreTx& tx) { return licensed::authenticate_storefront(tx, id, token); });
    ASSERT_TRUE(bad.ok());
    EXPECT_FALSE(bad.value().has_value()) << id << " " << token;
  }
}

TEST_P(StorefrontConformance, ABadStoreBodyIsRefusedNamingTheMemberAndWritesNothing) {
  const boost::json::object mapping{{"price_1", {{"product", "reverb"}, {"plan", "pro"}}}};
  const std::pair<boost::json::object, std::string> cases[] = {
      {{{"provider", "shopify"}, {"name", "x"}, {"secret", "s"}, {"mapping", mapping}}, "provider"},
      {{{"provider", "stripe"}, {"secret", "s"}, {"mapping", mapping}}, "name"},
      {{{"provider", "stripe"}, {"name", "x"}, {"mapping", mapping}}, "secret"},
      {{{"provider", "stripe"},
        {"name", "x"},
        {"secret", boost::json::array{"a", "b", "c", "d"}},
        {"mapping", mapping}},
       "secret"},
      {{{"provider", "stripe"}, {"name", "x"}, {"secret", ""}, {"mapping", mapping}}, "secret"},
      {{{"provider", "stripe"}, {"name", "x"}, {"secret", "s"}}, "mapping"},
      {{{"provider", "stripe"},
        {"name", "x"},
        {"secret", "s"},
        {"mapping", {{"p", {{"product", "nope"}, {"plan", "pro"}}}}}},
       "mapping"},
      {{{"provider", "stripe"},
        {"name", "x"},
        {"secret", "s"},
        {"mapping", {{"p", {{"product", "reverb"}, {"plan", "nope"}}}}}},
       "mapping"},
      {{{"provider", "stripe"},
        {"name", "x"},
        {"secret", "s"},
        {"mapping", mapping},
        {"options", "x"}},
       "options"},
  };
  for (const auto& c : cases) {
    const boost::json::object& body = c.first;
    const std::string& member = c.second;
    auto made = Write([&](StoreTx& tx) {
      return licensed::create_storefront(tx, body, "http://h", licensed::AdminContext{kT0});
    });
    ASSERT_FALSE(made.ok()) << boost::json::serialize(body);
    EXPECT_EQ(made.error().subject, member) << boost::json::serialize(body);
  }
  // Gumroad does not sign: no secret is needed.
  auto gumroad = Write([&](StoreTx& tx) {
    return licensed::create_storefront(
        tx, {{"provider", "gumroad"}, {"name", "g"}, {"mapping", mapping}}, "http://h",
        licensed::AdminContext{kT0});
  });
  ASSERT_TRUE(gumroad.ok()) << gumroad.error().message;
  auto list = Read([](StoreTx& tx) { return tx.list_storefronts(); });
  EXPECT_EQ(list.value().size(), 1u) << "the refused bodies wrote nothing";
}

TEST_P(StorefrontConformance, APatchReplacesSecretsMappingAndOptionsAndRefusesTheRest) {
  const Storefront s = MakeStore();
  const boost::json::object patch{
      {"name", "Renamed"},
      {"secret", "whsec_rolled"},
      {"mapping", {{"price_new", {{"product", "reverb"}, {"plan", "pro"}, {"perUnit", true}}}}},
      {"options", {{"apiKey", "rk_live_x"}}},
      {"paymentGrace", "14d"}};
  auto patched = Write([&](StoreTx& tx) { return licensed::patch_storefront(tx, s.id, patch); });
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  auto found = Read([&](StoreTx& tx) { return tx.find_storefront(s.id); });
  ASSERT_TRUE(found.ok() && found.value().has_value());
  EXPECT_EQ(found.value()->name, "Renamed");
  EXPECT_EQ(found.value()->secrets, std::vector<std::string>{"whsec_rolled"});
  EXPECT_EQ(found.value()->options_json, R"({"apiKey":"rk_live_x"})");
  EXPECT_EQ(found.value()->payment_grace_seconds, 14 * 86400);
  EXPECT_EQ(found.value()->token_sha256_hex, s.token_sha256_hex) << "the token stays";
  auto maps = Read([&](StoreTx& tx) { return tx.list_sku_mappings(s.id); });
  ASSERT_EQ(maps.value().size(), 1u) << "the mapping is replaced whole";
  EXPECT_EQ(maps.value()[0].item_id, "price_new");

  for (const auto& c : std::vector<std::pair<boost::json::object, std::string>>{
           {{{"provider", "paddle"}}, "provider"},
           {{{"name", ""}}, "name"},
           {{{"secret", boost::json::array{}}}, "secret"},
           {{{"mapping", {{"p", {{"product", "reverb"}, {"plan", "gone"}}}}}}, "mapping"},
           {{{"name", "Changed"}, {"options", 1}}, "options"},
       }) {
    const boost::json::object& body = c.first;
    const std::string& member = c.second;
    auto refused = Write([&](StoreTx& tx) { return licensed::patch_storefront(tx, s.id, body); });
    ASSERT_FALSE(refused.ok()) << boost::json::serialize(body);
    EXPECT_EQ(refused.error().subject, member);
  }
  found = Read([&](StoreTx& tx) { return tx.find_storefront(s.id); });
  EXPECT_EQ(found.value()->name, "Renamed") << "a refused patch writes nothing";
  auto missing = Write([&](StoreTx& tx) { return licensed::patch_storefront(tx, s.id + 99, {}); });
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, licensed::StatusCode::kNotFound);
}

// options.apiKey is a credential at the provider: a read-only admin token must not
// carry it away, and options read back and sent again must not lose it.
TEST_P(StorefrontConformance, AnswersHideTheApiKeyAndAPatchOfTheHiddenValueKeepsIt) {
  const Storefront s = MakeStore();
  const boost::json::object with_key{
      {"options", {{"apiKey", "rk_live_secret"}, {"testMode", false}}}};
  ASSERT_TRUE(
      Write([&](StoreTx& tx) { return licensed::patch_storefront(tx, s.id, with_key); }).ok());
  auto shown = Write([&](StoreTx& tx) -> Result<boost::json::object> {
    auto f = tx.find_storefront(s.id);
    if (!f.ok()) return f.error();
    return licensed::storefront_json(tx, *f.value());
  });
  ASSERT_TRUE(shown.ok()) << shown.error().message;
  EXPECT_EQ(boost::json::serialize(shown->at("options")), R"({"apiKey":"***","testMode":false})");
  EXPECT_EQ(boost::json::serialize(shown.value()).find("rk_live_secret"), std::string::npos);

  // What was shown, edited and sent back keeps the stored key.
  boost::json::object edited{{"options", shown->at("options")}};
  edited["options"].as_object()["testMode"] = true;
  ASSERT_TRUE(
      Write([&](StoreTx& tx) { return licensed::patch_storefront(tx, s.id, edited); }).ok());
  auto found = Read([&](StoreTx& tx) { return tx.find_storefront(s.id); });
  EXPECT_EQ(found.value()->options_json, R"({"apiKey":"rk_live_secret","testMode":true})");
  // A new key replaces it.
  const boost::json::object rolled{{"options", {{"apiKey", "rk_live_rolled"}}}};
  ASSERT_TRUE(
      Write([&](StoreTx& tx) { return licensed::patch_storefront(tx, s.id, rolled); }).ok());
  found = Read([&](StoreTx& tx) { return tx.find_storefront(s.id); });
  EXPECT_EQ(found.value()->options_json, R"({"apiKey":"rk_live_rolled"})");
}

TEST_P(StorefrontConformance, AMappingToADeletedPlanFailsTheDeliveryWhichRecordsNothing) {
  const Storefront s = MakeStore();
  // The first line is made before the second fails: all of it must roll back.
  auto other = Write([&](StoreTx& tx) -> licensed::Status {
    const boost::json::object plan{{"code", "site"}, {"name", "Site"}, {"max", 10}};
    if (auto c = licensed::create_plan(tx, "reverb", plan, licensed::AdminContext{kT0}); !c.ok()) {
      return c.error();
    }
    // delete_plan refuses a mapped plan: this is a mapping made before that rule (or
    // written straight to the port), to a plan deleted since.
    if (auto d = licensed::delete_plan(tx, "reverb", "site"); !d.ok()) return d;
    return tx.put_sku_mapping(s.id, SkuMapping{"price_site", product_id_, "site", false});
  });
  ASSERT_TRUE(other.ok()) << other.error().message;
  auto failed = Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 1}, {"price_site", 1}}));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().subject, "plan");
  auto none =
      Read([&](StoreTx& tx) { return tx.list_licenses(licensed::LicenseFilter{}, 0, 100); });
  EXPECT_TRUE(none.value().empty()) << "the first line's license rolled back";

  // Fixed by the vendor, the provider's retry of the same event fulfils it.
  auto fixed = Write([&](StoreTx& tx) {
    return tx.put_sku_mapping(s.id, SkuMapping{"price_site", product_id_, "pro", false});
  });
  ASSERT_TRUE(fixed.ok());
  auto retried = Fulfil(s, Order("evt_1", "cs_1", {{"price_single", 1}, {"price_site", 1}}));
  ASSERT_TRUE(retried.ok()) << retried.error().message;
  EXPECT_FALSE(retried.value().duplicate);
  EXPECT_EQ(retried.value().created.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Stores, StorefrontConformance, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
