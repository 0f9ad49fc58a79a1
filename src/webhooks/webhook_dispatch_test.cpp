// The dispatcher's pieces on an injected clock, against a real SQLite store and a real HTTP
// receiver: the retry schedule with its jitter and Retry-After, a 410 disabling the
// endpoint at once, five days of failures disabling it, a success clearing the failing
// time; and the sweeps writing each expiry's event once.
#include <gtest/gtest.h>

#include "admin/admin_operations.h"
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

}  // namespace
}  // namespace licensed
