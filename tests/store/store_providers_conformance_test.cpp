// Store providers against a real store (SQLite and PostgreSQL): deliveries read by a
// provider (admin/store_provider.h) and applied by apply_store_event, as the inbound
// handler does, make each unit's license once whatever the event keys.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "admin/store_lifecycle.h"
#include "admin/store_provider.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Result;
using licensed::SkuMapping;
using licensed::StoreEvent;
using licensed::Storefront;
using licensed::StoreOutcome;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;

std::string fixture(const std::string& name) {
  const auto path = std::filesystem::path(LICENSED_SOURCE_DIR) / "tests/fixtures" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class StoreProviderConformance : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    auto made = Write([](StoreTx& tx) -> Result<int64_t> {
      auto p = licensed::create_product(tx, "studio", "Studio Plugin", licensed::AdminContext{kT0});
      if (!p.ok()) return p.error();
      const boost::json::object plan{{"code", "seat"}, {"name", "Seat"}, {"max", 1}};
      if (auto c = licensed::create_plan(tx, "studio", plan, licensed::AdminContext{kT0});
          !c.ok()) {
        return c.error();
      }
      return p->id;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
    product_id_ = made.value();
  }

  // A FastSpring store mapping the product path studio-plugin, one license per unit.
  Storefront MakeFastSpringStore() {
    Storefront f;
    f.provider = "fastspring";
    f.name = "FastSpring shop";
    f.token_sha256_hex = std::string(64, 'f');
    f.secrets = {"fs_secret"};
    f.created_at = kT0;
    auto made = Write([&](StoreTx& tx) -> Result<Storefront> {
      auto s = tx.insert_storefront(f);
      if (!s.ok()) return s.error();
      if (auto put =
              tx.put_sku_mapping(s->id, SkuMapping{"studio-plugin", product_id_, "seat", true});
          !put.ok()) {
        return put.error();
      }
      return s;
    });
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made.value();
  }

  // Reads a delivery with the provider and applies every event in one write
  // transaction, as the handler does; the outcomes in order.
  std::vector<StoreOutcome> Deliver(const Storefront& s, std::string body) {
    licensed::InboundDelivery d;
    d.body = std::move(body);
    d.now = kT0;
    const licensed::StoreProvider* p = licensed::find_store_provider(s.provider);
    EXPECT_NE(p, nullptr);
    auto events = licensed::read_store_events(*p, d, s);
    EXPECT_TRUE(events.ok()) << events.error().message;
    auto applied = Write([&](StoreTx& tx) -> Result<std::vector<StoreOutcome>> {
      std::vector<StoreOutcome> out;
      for (const StoreEvent& e : events.value()) {
        auto o = licensed::apply_store_event(tx, s, e, kT0);
        if (!o.ok()) return o.error();
        out.push_back(std::move(o.value()));
      }
      return out;
    });
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return applied.ok() ? applied.value() : std::vector<StoreOutcome>{};
  }

  int64_t product_id_ = 0;
};

TEST_P(StoreProviderConformance, AFastSpringManualRetryWithANewEventIdMakesNoSecondSetOfLicenses) {
  const Storefront s = MakeFastSpringStore();
  const std::string first_body = fixture("fastspring/order_completed.json");
  // FastSpring's manual retry: the same order under new event ids.
  std::string retry_body = first_body;
  for (const std::string& id :
       std::vector<std::string>{"FsFixtureEvent0001AbCd", "FsFixtureEvent0002AbCd"}) {
    retry_body.replace(retry_body.find(id), id.size(), id.substr(0, id.size() - 4) + "ReTr");
  }
  ASSERT_NE(retry_body, first_body);

  const auto first = Deliver(s, first_body);
  ASSERT_EQ(first.size(), 2u) << "the order and the account event";
  EXPECT_FALSE(first[0].duplicate);
  EXPECT_FALSE(first[0].ignored);
  ASSERT_EQ(first[0].license_keys.size(), 2u) << "studio-plugin x 2, one license per unit";
  EXPECT_FALSE(first[1].duplicate);

  const auto retried = Deliver(s, retry_body);
  ASSERT_EQ(retried.size(), 2u);
  EXPECT_FALSE(retried[0].duplicate) << "a new event id is a new event";
  EXPECT_EQ(std::set<std::string>(retried[0].license_keys.begin(), retried[0].license_keys.end()),
            std::set<std::string>(first[0].license_keys.begin(), first[0].license_keys.end()))
      << "the unit key made nothing more: the same two licenses answer";

  const auto again = Deliver(s, first_body);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_TRUE(again[0].duplicate) << "an automatic retry keeps its event id";
  EXPECT_TRUE(again[1].duplicate);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreProviderConformance,
                         ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
