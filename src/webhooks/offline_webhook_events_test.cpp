// Offline activation's webhook events (docs/protocol.md §25.2, §25.4) on a real SQLite
// store: an offline activation, its renewal and its deactivation each write their event in
// the change's transaction, a refusal over the deactivation quota writes
// license.limit_reached with 1711, and the sweep reports an offline file nearing its end
// once per file.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <cstdio>

#include "admin/admin_operations.h"
#include "core/operations.h"
#include "store/store.h"
#include "support/temp_dir.h"
#include "webhooks/webhook_sweeps.h"

namespace licensed {
namespace {

constexpr UnixMillis kT0 = 1'795'000'000'000;
constexpr int64_t kDay = 86'400'000;

std::string next_file_id() {
  static int n = 0;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%032x", ++n);
  return buf;
}

class OfflineWebhookEvents : public ::testing::Test {
 protected:
  template <class Fn>
  auto Write(Fn&& fn) {
    return run_blocking(*store_, TxKind::kWrite, std::forward<Fn>(fn));
  }

  void SetUp() override {
    auto opened = open_store("sqlite:" + (dir_.path() / "t.db").string());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(opened.value());
    ASSERT_TRUE(Write([](StoreTx& tx) {
                  return create_product(tx, "reverb", "Reverb", AdminContext{kT0});
                }).ok());
    WebhookEndpoint w;
    w.url = "https://hooks.example.com/in";
    w.created_at = kT0;
    w.secrets = {{"whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", kT0, std::nullopt}};
    auto made = Write([&](StoreTx& tx) { return tx.insert_webhook_endpoint(w); });
    ASSERT_TRUE(made.ok());
    endpoint_ = made->id;
  }

  // A license whose offline files last 30 days; `frees` makes deactivations free the slot
  // (and count against a quota of `quota` when set).
  std::string NewLicense(bool frees = false, std::optional<int64_t> quota = std::nullopt) {
    LicenseSpec spec;
    spec.product_slug = "reverb";
    spec.max = 3;
    auto l = Write([&](StoreTx& tx) { return create_license(tx, spec, AdminContext{kT0}); });
    EXPECT_TRUE(l.ok());
    License changed = l.value();
    changed.offline_lease_seconds = 30 * 86'400;
    if (frees) changed.offline_release = OfflineRelease::kDeactivation;
    changed.max_deactivations = quota;
    EXPECT_TRUE(Write([&](StoreTx& tx) { return tx.update_license(changed); }).ok());
    return changed.key;
  }

  OperationContext Context() const {
    OperationContext ctx;
    ctx.now = now_;
    ctx.ip = "127.0.0.1";
    ctx.key_id = "k";
    ctx.request_id = "req_test";
    ctx.new_activation_id = &next_file_id;
    return ctx;
  }

  LicenseRequest Request(const std::string& key, const std::string& machine,
                         const std::string& nonce,
                         std::optional<std::string> activation_id = std::nullopt) const {
    LicenseRequest req;
    req.license_key = key;
    req.machine_id = machine;
    req.offline = OfflineOrigin{"k", now_ / 1000, nonce, std::move(activation_id)};
    return req;
  }

  // The file's id; "" when refused.
  std::string Activate(const std::string& key, const std::string& machine,
                       const std::string& nonce) {
    const auto req = Request(key, machine, nonce);
    auto r = Write([&](StoreTx& tx) { return offline_activate(tx, req, Context()); });
    if (!r.ok()) return "";
    const auto file = boost::json::parse(r->at("activationFile").as_string());
    return std::string(file.at("id").as_string());
  }

  // 200, or the refusal's code; a refusal is committed, as the License API commits it.
  int Deactivate(const std::string& key, const std::string& machine, const std::string& file) {
    const auto req = Request(key, machine, "d-" + file, file);
    auto r = Write([&](StoreTx& tx) -> Result<int> {
      auto answer = offline_deactivate(tx, req, Context());
      if (answer.ok()) return 200;
      if (must_roll_back(answer)) return Error::internal(answer.error().message());
      return static_cast<int>(answer.error().answer()->code.value_or(ErrorCode::kInternal));
    });
    EXPECT_TRUE(r.ok());
    return r.ok() ? r.value() : 0;
  }

  // The events written so far, oldest first: {type, data}.
  std::vector<std::pair<std::string, boost::json::object>> Events() {
    auto listed = Write([&](StoreTx& tx) { return tx.list_webhook_deliveries(endpoint_, 0, 100); });
    EXPECT_TRUE(listed.ok());
    std::vector<std::pair<std::string, boost::json::object>> out;
    for (auto it = listed->rbegin(); it != listed->rend(); ++it) {
      auto event = Write([&](StoreTx& tx) { return tx.find_webhook_event(it->event_id); });
      EXPECT_TRUE(event.ok() && event->has_value());
      const auto body = boost::json::parse((*event.value()).body).as_object();
      out.emplace_back(std::string(body.at("type").as_string()), body.at("data").as_object());
    }
    return out;
  }

  std::vector<std::string> Types() {
    std::vector<std::string> types;
    for (const auto& [type, data] : Events()) types.push_back(type);
    return types;
  }

  bb::TempDir dir_;
  std::unique_ptr<Store> store_;
  int64_t endpoint_ = 0;
  UnixMillis now_ = kT0 + 1000;
};

TEST_F(OfflineWebhookEvents, AnActivationItsRenewalAndItsDeactivationEachWriteTheirEvent) {
  const std::string key = NewLicense();
  const std::string first = Activate(key, "studio-mac-01", "n1");
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(Activate(key, "studio-mac-01", "n1"), first) << "the same request answers again";
  now_ += kDay;
  const std::string renewed = Activate(key, "studio-mac-01", "n2");
  ASSERT_FALSE(renewed.empty());
  ASSERT_NE(renewed, first);
  EXPECT_EQ(Deactivate(key, "studio-mac-01", renewed), 200);

  const auto events = Events();
  std::vector<std::string> types;
  for (const auto& [type, data] : events) types.push_back(type);
  EXPECT_EQ(types, (std::vector<std::string>{"license.created", "activation.created",
                                             "activation.renewed", "activation.deleted"}));
  ASSERT_EQ(events.size(), 4u);
  for (size_t i = 1; i < events.size(); ++i) {
    const auto& machine = events[i].second.at("machine").as_object();
    EXPECT_EQ(machine.at("id").as_string(), "studio-mac-01") << events[i].first;
    EXPECT_TRUE(machine.at("offline").as_bool()) << events[i].first;
    EXPECT_EQ(events[i].second.at("actor").as_string(), "client");
  }
  EXPECT_TRUE(events[2].second.at("machine").as_object().contains("offlineUntil"));
}

TEST_F(OfflineWebhookEvents, ADeactivationRefusedOverTheQuotaWritesLimitReachedWith1711) {
  const std::string key = NewLicense(/*frees=*/true, /*quota=*/1);
  const std::string a = Activate(key, "machine-a", "na");
  const std::string b = Activate(key, "machine-b", "nb");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(Deactivate(key, "machine-a", a), 200);
  EXPECT_EQ(Deactivate(key, "machine-b", b), 1711);
  EXPECT_EQ(Deactivate(key, "machine-b", b), 1711) << "again within the hour: no second event";
  const auto events = Events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().first, "license.limit_reached");
  EXPECT_EQ(events.back().second.at("code").as_int64(), 1711);
  EXPECT_EQ(events.back().second.at("machine").at("id").as_string(), "machine-b");
  int limits = 0;
  for (const auto& [type, data] : events) limits += type == "license.limit_reached" ? 1 : 0;
  EXPECT_EQ(limits, 1);
}

TEST_F(OfflineWebhookEvents, AFileNearingItsEndIsReportedOnceAndARenewedFileAgain) {
  const std::string key = NewLicense();
  ASSERT_FALSE(Activate(key, "studio-mac-01", "n1").empty());
  const std::string other = Activate(key, "studio-mac-02", "m1");
  ASSERT_FALSE(other.empty());
  ASSERT_EQ(Deactivate(key, "studio-mac-02", other), 200) << "deactivated: not reported";
  const UnixMillis end = now_ + 30 * kDay;

  auto swept = sweep_offline_expiring(*store_, end - 15 * kDay);
  ASSERT_TRUE(swept.ok()) << swept.error().message;
  EXPECT_EQ(swept.value(), 0) << "more than 14 days before its end";
  EXPECT_EQ(sweep_offline_expiring(*store_, end - 14 * kDay + 60'000).value(), 1);
  EXPECT_EQ(sweep_offline_expiring(*store_, end - 13 * kDay).value(), 0) << "once per file";
  EXPECT_EQ(run_webhook_sweeps(*store_, end - 12 * kDay).value(), 0) << "through the minute sweep";

  now_ = end - 12 * kDay;
  ASSERT_FALSE(Activate(key, "studio-mac-01", "n2").empty()) << "a renewal: a new file";
  EXPECT_EQ(sweep_offline_expiring(*store_, now_ + 60'000).value(), 0);
  EXPECT_EQ(sweep_offline_expiring(*store_, now_ + 17 * kDay).value(), 1) << "the new file";
  EXPECT_EQ(sweep_offline_expiring(*store_, now_ + 31 * kDay).value(), 0) << "ended";

  const auto events = Events();
  int expiring = 0;
  for (const auto& [type, data] : events) {
    if (type != "activation.offline_expiring") continue;
    ++expiring;
    EXPECT_EQ(data.at("machine").at("id").as_string(), "studio-mac-01");
    EXPECT_EQ(data.at("actor").as_string(), "system");
  }
  EXPECT_EQ(expiring, 2);
}

}  // namespace
}  // namespace licensed
