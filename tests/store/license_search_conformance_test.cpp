// Support finds a sale (docs/protocol.md §22.10):
// the admin API's license list filters by `?email=` (ASCII case ignored) and `?orderId=`
// (exact), alone or beside the other filters, on SQLite and on PostgreSQL alike.
#include <gtest/gtest.h>

#include <boost/json/value.hpp>
#include <set>
#include <string>

#include "admin/admin_api.h"
#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "admin/store_fulfilment.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::AdminAnswer;
using licensed::AdminCall;
using licensed::AdminRoute;
using licensed::Result;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;

class LicenseSearch : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    auto made = Write([this](StoreTx& tx) -> Result<bool> {
      auto p = licensed::create_product(tx, "reverb", "Reverb Pro", licensed::AdminContext{kT0});
      if (!p.ok()) return p.error();
      const boost::json::object plan{{"code", "pro"}, {"name", "Pro"}, {"max", 2}};
      if (auto c = licensed::create_plan(tx, "reverb", plan, licensed::AdminContext{kT0});
          !c.ok()) {
        return c.error();
      }
      licensed::Storefront f;
      f.provider = "lemonsqueezy";
      f.name = "Shop";
      f.token_sha256_hex = std::string(64, 'b');
      f.secrets = {"s"};
      f.created_at = kT0;
      auto s = tx.insert_storefront(f);
      if (!s.ok()) return s.error();
      store_ = s.value();
      auto m = tx.put_sku_mapping(s->id, licensed::SkuMapping{"v1", p->id, "pro", true});
      if (!m.ok()) return m.error();
      // A key made by hand: no customer, no source; search must never return it.
      licensed::LicenseSpec spec;
      spec.product_slug = "reverb";
      spec.max = 1;
      auto by_hand = licensed::create_license(tx, spec, licensed::AdminContext{kT0});
      if (!by_hand.ok()) return by_hand.error();
      return true;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
  }

  // One sale of `units` per-unit licenses to `email`.
  std::vector<std::string> Sell(const std::string& order_id, const std::string& email,
                                int64_t units) {
    licensed::VerifiedOrder o;
    o.event_key = "evt-" + order_id;
    o.event_type = "order_created";
    o.order_id = order_id;
    o.customer = {email, std::string("Buyer")};
    o.lines = {{"v1", units}};
    auto f = Write([&](StoreTx& tx) { return licensed::fulfil_order(tx, store_, o, kT0); });
    EXPECT_TRUE(f.ok()) << f.error().message;
    return f.ok() ? f->created : std::vector<std::string>{};
  }

  // The keys of the first page of GET /api/v1/admin/licenses with `query`.
  std::set<std::string> Listed(std::vector<std::pair<std::string, std::string>> query) {
    AdminCall call;
    call.route = AdminRoute::kListLicenses;
    call.query = std::move(query);
    auto answer = Write([&](StoreTx& tx) -> Result<AdminAnswer> {
      auto r = licensed::run_admin_call(tx, call, {kT0, "support"});
      if (!r.ok()) return licensed::Error::internal("the list was refused");
      return r.value();
    });
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    std::set<std::string> keys;
    if (!answer.ok()) return keys;
    for (const auto& item : answer->body.at("items").as_array()) {
      keys.insert(std::string(item.at("licenseKey").as_string()));
    }
    return keys;
  }

  static std::set<std::string> Set(const std::vector<std::string>& keys) {
    return {keys.begin(), keys.end()};
  }

  licensed::Storefront store_;
};

TEST_P(LicenseSearch, AnEmailFindsEverySaleToItWhateverItsCase) {
  const auto first = Sell("order-1", "ada@example.com", 2);
  const auto second = Sell("order-2", "Ada@Example.COM", 1);
  Sell("order-3", "grace@example.com", 1);
  auto both = Set(first);
  both.insert(second.begin(), second.end());
  EXPECT_EQ(Listed({{"email", "ADA@example.com"}}), both);
  EXPECT_EQ(Listed({{"email", "nobody@example.com"}}), std::set<std::string>{});
}

TEST_P(LicenseSearch, AnOrderIdFindsThatOrdersLicensesExactly) {
  const auto order = Sell("ord_ABC", "ada@example.com", 3);
  Sell("ord_ABCD", "ada@example.com", 1);
  EXPECT_EQ(Listed({{"orderId", "ord_ABC"}}), Set(order));
  EXPECT_EQ(Listed({{"orderId", "ord_abc"}}), std::set<std::string>{}) << "ids are exact";
  EXPECT_EQ(Listed({{"orderId", "ord_AB"}}), std::set<std::string>{}) << "no prefix match";
}

TEST_P(LicenseSearch, EmailAndOrderCombineWithEachOtherAndWithTheOtherFilters) {
  const auto order = Sell("order-9", "ada@example.com", 1);
  Sell("order-10", "ada@example.com", 1);
  EXPECT_EQ(Listed({{"email", "ada@example.com"}, {"orderId", "order-9"}}), Set(order));
  EXPECT_EQ(Listed({{"email", "grace@example.com"}, {"orderId", "order-9"}}),
            std::set<std::string>{});
  EXPECT_EQ(Listed({{"orderId", "order-9"}, {"product", "reverb"}, {"status", "ACTIVE"}}),
            Set(order));
  EXPECT_EQ(Listed({{"orderId", "order-9"}, {"status", "REVOKED"}}), std::set<std::string>{});
  EXPECT_EQ(Listed({{"email", ""}, {"orderId", ""}}).size(), 3u)
      << "empty filters filter nothing: both sales and the key made by hand";
}

INSTANTIATE_TEST_SUITE_P(Stores, LicenseSearch, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
