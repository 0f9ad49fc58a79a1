// The support console's store work (docs/protocol.md §26) on SQLite and on PostgreSQL alike:
// refusals kept newest first, 30 days and 1,000 per license; the license list's key part,
// machine and total; and the vendor overview's figures.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "admin/admin_api.h"
#include "admin/admin_operations.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::AdminAnswer;
using licensed::AdminCall;
using licensed::AdminRoute;
using licensed::Refusal;
using licensed::Result;
using licensed::StoreTx;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;
constexpr licensed::UnixMillis kDay = 86'400'000;

class SupportConsole : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    auto made = Write([](StoreTx& tx) -> Result<bool> {
      auto p = licensed::create_product(tx, "reverb", "Reverb Pro", licensed::AdminContext{kT0});
      if (!p.ok()) return p.error();
      return true;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
  }

  std::string NewLicense(int64_t max) {
    licensed::LicenseSpec spec;
    spec.product_slug = "reverb";
    spec.max = max;
    auto l = Write([&](StoreTx& tx) { return licensed::create_license(tx, spec, {kT0}); });
    EXPECT_TRUE(l.ok()) << l.error().message;
    return l.ok() ? l->key : "";
  }

  void Activate(const std::string& key, const std::string& machine, const std::string& name,
                licensed::UnixMillis at = kT0) {
    auto done = Write([&](StoreTx& tx) -> Result<bool> {
      auto locked = tx.lock_license(key);
      if (!locked.ok()) return locked.error();
      auto s = tx.insert_activation(*locked.value(), licensed::Activation(machine, name, at, at));
      if (!s.ok()) return s.error();
      return true;
    });
    ASSERT_TRUE(done.ok()) << done.error().message;
  }

  void Refuse(const std::string& key, int code, licensed::UnixMillis at,
              const std::string& machine = "m-1") {
    Refusal r;
    r.at = at;
    r.code = code;
    r.license_key = key;
    r.machine_id = machine;
    r.machine_name = "Studio";
    r.ip = "192.0.2.1";
    r.key_id = "plugin";
    r.request_id = "req-" + std::to_string(at);
    auto s = Write([&](StoreTx& tx) -> Result<bool> {
      auto ok = tx.insert_refusal(r);
      if (!ok.ok()) return ok.error();
      return true;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
  }

  std::vector<Refusal> Refusals(const std::string& key, licensed::UnixMillis now,
                                int64_t before = 0, int64_t limit = 2000) {
    auto r = Read([&](StoreTx& tx) {
      return tx.list_refusals(key, now - licensed::kRefusalsKeptMillis, before, limit);
    });
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r.value() : std::vector<Refusal>{};
  }

  Result<AdminAnswer> Call(AdminRoute route, std::vector<std::pair<std::string, std::string>> query,
                           licensed::UnixMillis now = kT0) {
    AdminCall call;
    call.route = route;
    call.query = std::move(query);
    return Read([&](StoreTx& tx) -> Result<AdminAnswer> {
      auto r = licensed::run_admin_call(tx, call, {now, "support"});
      if (!r.ok()) return licensed::Error::invalid_argument("query", r.error().message());
      return r.value();
    });
  }

  std::set<std::string> Listed(std::vector<std::pair<std::string, std::string>> query,
                               int64_t* total = nullptr) {
    auto answer = Call(AdminRoute::kListLicenses, std::move(query));
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    std::set<std::string> keys;
    if (!answer.ok()) return keys;
    for (const auto& item : answer->body.at("items").as_array()) {
      keys.insert(std::string(item.at("licenseKey").as_string()));
    }
    if (total != nullptr) *total = answer->body.at("total").as_int64();
    return keys;
  }
};

TEST_P(SupportConsole, RefusalsAreListedNewestFirstAndPagedByTheirOrder) {
  const std::string key = NewLicense(1);
  const std::string other = NewLicense(1);
  for (int i = 0; i < 5; ++i) Refuse(key, 1705, kT0 + i * 1000, "m-" + std::to_string(i));
  Refuse(other, 1711, kT0);
  const auto all = Refusals(key, kT0 + 10'000);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(*all.front().machine_id, "m-4");
  EXPECT_EQ(all.front().code, 1705);
  EXPECT_EQ(*all.front().machine_name, "Studio");
  EXPECT_EQ(*all.front().ip, "192.0.2.1");
  EXPECT_EQ(*all.front().key_id, "plugin");
  EXPECT_EQ(*all.front().request_id, "req-" + std::to_string(kT0 + 4000));
  const auto older = Refusals(key, kT0 + 10'000, all[1].id, 10);
  ASSERT_EQ(older.size(), 3u);
  EXPECT_EQ(*older.front().machine_id, "m-2");
  EXPECT_EQ(Refusals(other, kT0 + 10'000).size(), 1u);
}

TEST_P(SupportConsole, RefusalsOlderThanThirtyDaysAreForgotten) {
  const std::string key = NewLicense(1);
  const std::string quiet = NewLicense(1);
  Refuse(quiet, 1705, kT0);
  Refuse(key, 1705, kT0 + kDay);
  EXPECT_EQ(Refusals(quiet, kT0 + 30 * kDay).size(), 1u);
  EXPECT_EQ(Refusals(quiet, kT0 + 31 * kDay).size(), 0u) << "past 30 days, not listed";
  // A later refusal of any license deletes them.
  Refuse(key, 1705, kT0 + 31 * kDay);
  auto rows = Read([&](StoreTx& tx) { return tx.list_refusals(quiet, 0, 0, 10); });
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 0u);
  EXPECT_EQ(Refusals(key, kT0 + 31 * kDay).size(), 2u);
}

TEST_P(SupportConsole, ALicenseKeepsOnlyItsNewestThousandRefusals) {
  const std::string key = NewLicense(1);
  for (int i = 0; i < 1003; ++i) Refuse(key, 1705, kT0 + i, "m-" + std::to_string(i));
  const auto kept = Refusals(key, kT0 + 2000);
  ASSERT_EQ(kept.size(), 1000u);
  EXPECT_EQ(*kept.front().machine_id, "m-1002");
  EXPECT_EQ(*kept.back().machine_id, "m-3") << "the three oldest went first";
}

TEST_P(SupportConsole, TheListFindsAPartOfAKeyAMachineIdOrNameAndCountsTheTrueTotal) {
  const std::string a = NewLicense(3);
  const std::string b = NewLicense(3);
  const std::string c = NewLicense(3);
  Activate(a, "render-node-0001", "Render Node");
  Activate(b, "laptop-7f3a", "Ada's MacBook");
  EXPECT_EQ(Listed({{"key", a.substr(9, 9)}}), std::set<std::string>{a});
  std::string upper = a.substr(0, 8);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  EXPECT_EQ(Listed({{"key", " " + upper + " "}}), std::set<std::string>{a})
      << "case and spaces around it are ignored";
  EXPECT_EQ(Listed({{"machine", "render-node"}}), std::set<std::string>{a});
  EXPECT_EQ(Listed({{"machine", "macbook"}}), std::set<std::string>{b}) << "a name, any case";
  EXPECT_EQ(Listed({{"machine", "nowhere"}}), std::set<std::string>{});
  int64_t total = 0;
  EXPECT_EQ(Listed({{"limit", "1"}}, &total).size(), 1u);
  EXPECT_EQ(total, 3) << "the total counts every page";
  EXPECT_EQ(Listed({{"limit", "1"}, {"machine", "-"}}, &total).size(), 1u);
  EXPECT_EQ(total, 2);
  (void)c;
}

TEST_P(SupportConsole, AnUnknownFilterOrABadKeyPartIsRefusedNotIgnored) {
  NewLicense(1);
  EXPECT_FALSE(Call(AdminRoute::kListLicenses, {{"customer", "ada@example.com"}}).ok());
  EXPECT_FALSE(Call(AdminRoute::kListLicenses, {{"key", "xyz!"}}).ok());
  EXPECT_TRUE(Call(AdminRoute::kListLicenses, {{"key", ""}}).ok()) << "empty filters nothing";
  EXPECT_FALSE(Call(AdminRoute::kStatsActivations, {{"days", "0"}}).ok());
  EXPECT_FALSE(Call(AdminRoute::kStatsRefusals, {{"days", "31"}}).ok());
}

TEST_P(SupportConsole, TheOverviewCountsStatusesRefusalsAndTheNearestCaps) {
  const std::string full = NewLicense(2);
  const std::string half = NewLicense(2);
  const std::string suspended = NewLicense(1);
  auto s = Write([&](StoreTx& tx) -> Result<bool> {
    auto r =
        licensed::set_license_status(tx, suspended, licensed::LicenseStatus::kSuspended, {kT0});
    if (!r.ok()) return r.error();
    return true;
  });
  ASSERT_TRUE(s.ok());
  Activate(full, "m-a", "A");
  Activate(full, "m-b", "B");
  Activate(half, "m-c", "C");
  Refuse(full, 1705, kT0 + 1000);
  Refuse(full, 1705, kT0 + kDay);

  auto statuses = Call(AdminRoute::kStatsLicenses, {}, kT0 + kDay);
  ASSERT_TRUE(statuses.ok()) << statuses.error().message;
  EXPECT_EQ(statuses->body.at("statuses").at("ACTIVE").as_int64(), 2);
  EXPECT_EQ(statuses->body.at("statuses").at("SUSPENDED").as_int64(), 1);
  EXPECT_EQ(statuses->body.at("statuses").at("REVOKED").as_int64(), 0);
  EXPECT_EQ(statuses->body.at("total").as_int64(), 3);

  auto refusals = Call(AdminRoute::kStatsRefusals, {{"days", "2"}}, kT0 + kDay);
  ASSERT_TRUE(refusals.ok()) << refusals.error().message;
  const auto& days = refusals->body.at("days").as_array();
  ASSERT_EQ(days.size(), 2u);
  EXPECT_EQ(days[0].at("1705").as_int64() + days[1].at("1705").as_int64(), 2);
  EXPECT_EQ(days[1].at("1710").as_int64(), 0);

  auto cap = Call(AdminRoute::kStatsNearestCap, {{"limit", "5"}}, kT0 + kDay);
  ASSERT_TRUE(cap.ok()) << cap.error().message;
  const auto& items = cap->body.at("items").as_array();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].at("licenseKey").as_string(), full);
  EXPECT_EQ(items[0].at("used").as_int64(), 2);
  EXPECT_EQ(items[1].at("licenseKey").as_string(), half);
}

INSTANTIATE_TEST_SUITE_P(Stores, SupportConsole, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
