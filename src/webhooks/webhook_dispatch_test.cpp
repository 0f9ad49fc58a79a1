// The dispatcher's pieces on an injected clock, against a real SQLite store and a real HTTP
// receiver: the retry schedule with its jitter and Retry-After, a 410 disabling the
// endpoint at once, five days of failures disabling it, a success clearing the failing
// time; a 2xx with a long body delivering; the sweeps writing each expiry's event once; and
// offline activation's events, offline_expiring's sweep included.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <cstdio>

#include "admin/admin_operations.h"
#include "core/operations.h"
#include "store/store.h"
#include "support/http_receiver.h"
#include "support/provider_stand_in.h"
#include "support/temp_dir.h"
#include "webhooks/retry_schedule.h"
#include "webhooks/webhook_dispatcher.h"
#include "webhooks/webhook_sweeps.h"

namespace licensed {
namespace {

constexpr UnixMillis kT0 = 1'780'000'000'000;
constexpr int64_t kDay = 86'400'000;

TEST(WebhookRetrySchedule, FollowsTheContractsDelaysWithAtMostTenPercentJitter) {
  const int64_t delays[] = {5, 300, 1800, 7200, 18000, 36000, 36000};
  for (int64_t n = 1; n <= 7; ++n) {
    const int64_t base = delays[n - 1] * 1000;
    EXPECT_EQ(next_webhook_attempt(n, kT0, 0.0, std::nullopt), kT0 + base);
    const auto late = next_webhook_attempt(n, kT0, 0.999, std::nullopt);
    ASSERT_TRUE(late.has_value());
    EXPECT_LE(*late, kT0 + base + base / 10);
    EXPECT_GT(*late, kT0 + base);
  }
  EXPECT_FALSE(next_webhook_attempt(8, kT0, 0.0, std::nullopt).has_value()) << "then failed";
}

TEST(WebhookRetrySchedule, ARetryAfterIsHonouredWhenLater) {
  EXPECT_EQ(next_webhook_attempt(1, kT0, 0.0, 120), kT0 + 120'000);
  EXPECT_EQ(next_webhook_attempt(3, kT0, 0.0, 120), kT0 + 1'800'000);
  EXPECT_EQ(parse_retry_after(" 30 "), 30);
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT").has_value());
}

class WebhookDispatch : public ::testing::Test {
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
  }
  int64_t Endpoint(uint16_t port) {
    WebhookEndpoint w;
    w.url = "http://127.0.0.1:" + std::to_string(port) + "/hook";
    w.created_at = kT0;
    w.secrets = {{"whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", kT0, std::nullopt}};
    auto made = Write([&](StoreTx& tx) { return tx.insert_webhook_endpoint(w); });
    EXPECT_TRUE(made.ok());
    return made.ok() ? made->id : 0;
  }
  void Change(UnixMillis at) {
    LicenseSpec spec;
    spec.product_slug = "reverb";
    spec.max = 1;
    ASSERT_TRUE(
        Write([&](StoreTx& tx) { return create_license(tx, spec, AdminContext{at}); }).ok());
  }
  // One round at the clock's time: every due attempt made.
  size_t Round() {
    auto claimed = claim_webhook_attempts(*store_, clock_.now_ms(), 100);
    EXPECT_TRUE(claimed.ok());
    for (const auto& a : claimed.value()) {
      attempt_webhook(*store_, clock_, client_, limits_, a, counters_);
    }
    return claimed->size();
  }
  WebhookEndpoint Shown(int64_t id) {
    auto found = Write([&](StoreTx& tx) { return tx.find_webhook_endpoint(id, clock_.now_ms()); });
    return found.ok() && found->has_value() ? *found.value() : WebhookEndpoint{};
  }
  std::vector<WebhookDelivery> Deliveries(int64_t id) {
    auto r = Write([&](StoreTx& tx) { return tx.list_webhook_deliveries(id, 0, 100); });
    return r.ok() ? r.value() : std::vector<WebhookDelivery>{};
  }

  bb::TempDir dir_;
  std::unique_ptr<Store> store_;
  ManualClock clock_{kT0};
  OutgoingClient client_{OutgoingPolicy{true, true, ""}};
  OutgoingLimits limits_{std::chrono::milliseconds(2000), std::chrono::milliseconds(3000), 65536};
  WebhookCounters counters_;
};

TEST_F(WebhookDispatch, AFailedAttemptIsMadeAgainOnTheScheduleAndThenFails) {
  bb::HttpReceiver receiver(503);
  const int64_t id = Endpoint(receiver.port());
  Change(kT0);
  EXPECT_EQ(Round(), 1u);
  auto d = Deliveries(id);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].attempts, 1);
  EXPECT_EQ(d[0].last_status, 503);
  ASSERT_TRUE(d[0].next_attempt_at.has_value());
  EXPECT_GE(*d[0].next_attempt_at, kT0 + 5000);
  EXPECT_LE(*d[0].next_attempt_at, kT0 + 5500);
  EXPECT_EQ(Round(), 0u) << "not due yet";
  for (int i = 0; i < 7; ++i) {
    clock_.advance_ms(11 * 3'600'000);
    EXPECT_EQ(Round(), 1u);
  }
  d = Deliveries(id);
  EXPECT_EQ(d[0].attempts, 8);
  EXPECT_TRUE(d[0].failed);
  EXPECT_FALSE(d[0].next_attempt_at.has_value());
  EXPECT_EQ(counters_.failed.load(), 1);
  EXPECT_EQ(receiver.Received().size(), 8u);
}

TEST_F(WebhookDispatch, A410DisablesTheEndpointAtOnce) {
  bb::HttpReceiver receiver(410);
  const int64_t id = Endpoint(receiver.port());
  Change(kT0);
  Round();
  const WebhookEndpoint w = Shown(id);
  EXPECT_FALSE(w.enabled);
  EXPECT_EQ(w.disabled_reason, "410");
  clock_.advance_ms(kDay);
  EXPECT_EQ(Round(), 0u) << "a disabled endpoint gets nothing";
}

TEST_F(WebhookDispatch, FiveDaysOfFailuresDisableTheEndpoint) {
  bb::HttpReceiver down(500);
  const int64_t id = Endpoint(down.port());
  Change(kT0);
  Round();
  EXPECT_EQ(Shown(id).failing_since, kT0);
  clock_.advance_ms(4 * kDay);
  Change(clock_.now_ms());
  Round();
  EXPECT_TRUE(Shown(id).enabled) << "four days";
  clock_.advance_ms(kDay);
  Change(clock_.now_ms());
  Round();
  const WebhookEndpoint w = Shown(id);
  EXPECT_FALSE(w.enabled);
  EXPECT_EQ(w.disabled_reason, "failing");
}

TEST_F(WebhookDispatch, ASuccessClearsTheFailingTime) {
  bb::HttpReceiver down(500);
  bb::HttpReceiver up(202);
  const int64_t id = Endpoint(down.port());
  Change(kT0);
  Round();
  ASSERT_TRUE(Shown(id).failing_since.has_value());
  WebhookEndpoint w = Shown(id);
  w.url = "http://127.0.0.1:" + std::to_string(up.port()) + "/hook";
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.update_webhook_endpoint(w); }).ok());
  clock_.advance_ms(6000);
  EXPECT_EQ(Round(), 1u);
  EXPECT_FALSE(Shown(id).failing_since.has_value());
  EXPECT_TRUE(Deliveries(id)[0].delivered_at.has_value());
  EXPECT_EQ(up.Received().size(), 1u);
}

// docs/protocol.md §25.3: answers beyond 64 KiB are not read; the status alone decides.
TEST_F(WebhookDispatch, A2xxWithABodyOver64KiBDelivers) {
  bb::ProviderStandIn receiver;
  receiver.Answer("/hook", {.status = 200,
                            .body = std::string(200 * 1024, 'x'),
                            .headers = {},
                            .delay = {},
                            .chunked = false});
  receiver.Answer("/chunked", {.status = 204,
                               .body = std::string(200 * 1024, 'y'),
                               .headers = {},
                               .delay = {},
                               .chunked = true});
  const int64_t id = Endpoint(receiver.port());
  WebhookEndpoint chunked = Shown(id);
  chunked.url = "http://127.0.0.1:" + std::to_string(receiver.port()) + "/chunked";
  const int64_t other = Endpoint(receiver.port());
  chunked.id = other;
  ASSERT_TRUE(Write([&](StoreTx& tx) { return tx.update_webhook_endpoint(chunked); }).ok());
  Change(kT0);
  EXPECT_EQ(Round(), 2u);
  for (const int64_t endpoint : {id, other}) {
    const auto d = Deliveries(endpoint);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_TRUE(d[0].delivered_at.has_value()) << d[0].last_error.value_or("");
    EXPECT_FALSE(d[0].next_attempt_at.has_value());
  }
  EXPECT_EQ(receiver.Received().size(), 2u);
}

TEST_F(WebhookDispatch, EachExpiryIsReportedOnceAcrossSweeps) {
  bb::HttpReceiver receiver(200);
  const int64_t id = Endpoint(receiver.port());
  LicenseSpec spec;
  spec.product_slug = "reverb";
  spec.max = 1;
  spec.expires_at = kT0 + 3 * kDay;
  ASSERT_TRUE(Write([&](StoreTx& tx) { return create_license(tx, spec, AdminContext{kT0}); }).ok());
  const size_t created = Deliveries(id).size();
  auto swept = run_webhook_sweeps(*store_, kT0);
  ASSERT_TRUE(swept.ok()) << swept.error().message;
  EXPECT_EQ(swept.value(), 1) << "expiring soon";
  EXPECT_EQ(run_webhook_sweeps(*store_, kT0 + 60'000).value(), 0) << "once";
  EXPECT_EQ(run_webhook_sweeps(*store_, kT0 + 3 * kDay + 60'000).value(), 1) << "expired";
  EXPECT_EQ(run_webhook_sweeps(*store_, kT0 + 3 * kDay + 120'000).value(), 0) << "once";
  const auto d = Deliveries(id);
  ASSERT_EQ(d.size(), created + 2);
  EXPECT_EQ(d[0].type, "license.expired");
  EXPECT_EQ(d[1].type, "license.expiring_soon");
}

// Offline activation's events (docs/protocol.md §25.2, §25.4): an activation, its renewal and
// its deactivation each write theirs, a refusal over the deactivation quota writes
// license.limit_reached with 1711, and the sweep reports a file nearing its end once.
std::string next_file_id() {
  static int n = 0;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%032x", ++n);
  return buf;
}

// WebhookDispatch's store and endpoint, with offline requests and the events they write.
class OfflineWebhookEvents : public WebhookDispatch {
 protected:
  void SetUp() override {
    WebhookDispatch::SetUp();
    endpoint_ = Endpoint(9);
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
