// The store lifecycle (docs/protocol.md §22.7) on SQLite and on PostgreSQL
// alike, through apply_store_event as the inbound handler calls it: refunds, disputes,
// renewals, cancellations and failed payments change the licenses of the order an event
// cites (by its id or any reference the sale listed), each change audited with `changes`,
// actor `store` and `source`; duplicates change nothing; the payment-grace sweep runs on
// an injected clock. Also delete_plan's refusal of a mapped plan.
#include <gtest/gtest.h>

#include <boost/json/object.hpp>
#include <future>
#include <latch>

#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "admin/store_lifecycle.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Actor;
using licensed::AdminContext;
using licensed::AuditEntry;
using licensed::License;
using licensed::LicenseStatus;
using licensed::Result;
using licensed::SkuMapping;
using licensed::StoreAction;
using licensed::StoreEvent;
using licensed::Storefront;
using licensed::StoreOutcome;
using licensed::StoreTx;
using licensed::TxKind;
using licensed::UnixMillis;

constexpr UnixMillis kT0 = 1'780'000'000'000;
constexpr UnixMillis kHour = 3600'000;
constexpr UnixMillis kDay = 24 * kHour;

class StoreLifecycle : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    auto made = Write([](StoreTx& tx) -> Result<int64_t> {
      auto p = licensed::create_product(tx, "reverb", "Reverb Pro", AdminContext{kT0});
      if (!p.ok()) return p.error();
      const boost::json::object plan{
          {"code", "pro"}, {"name", "Pro"}, {"max", 2}, {"validFor", "365d"}};
      if (auto c = licensed::create_plan(tx, "reverb", plan, AdminContext{kT0}); !c.ok()) {
        return c.error();
      }
      return p->id;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
    product_id_ = made.value();
  }

  // A Stripe store mapping price_single to one license per unit of reverb's plan "pro",
  // with a paymentGrace of one hour.
  Storefront MakeStore(const std::string& options = R"({"testMode":false})", char token = 'a') {
    Storefront f;
    f.provider = "stripe";
    f.name = "Main shop";
    f.token_sha256_hex = std::string(64, token);
    f.secrets = {"whsec_new"};
    f.options_json = options;
    f.payment_grace_seconds = 3600;
    f.created_at = kT0;
    auto made = Write([&](StoreTx& tx) -> Result<Storefront> {
      auto s = tx.insert_storefront(f);
      if (!s.ok()) return s.error();
      if (auto put =
              tx.put_sku_mapping(s->id, SkuMapping{"price_single", product_id_, "pro", true});
          !put.ok()) {
        return put.error();
      }
      return s;
    });
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made.value();
  }

  Result<StoreOutcome> Apply(const Storefront& s, const StoreEvent& e, UnixMillis now) {
    return Write([&](StoreTx& tx) { return licensed::apply_store_event(tx, s, e, now); });
  }

  // Applies `e` and expects it to succeed.
  StoreOutcome Must(const Storefront& s, const StoreEvent& e, UnixMillis now = kT0 + kHour) {
    auto out = Apply(s, e, now);
    EXPECT_TRUE(out.ok()) << out.error().message;
    return out.ok() ? out.value() : StoreOutcome{};
  }

  // A sale of two units of price_single in order cs_1, whose payment intent is pi_1 and
  // subscription sub_1: the two license keys.
  std::vector<std::string> Sell(const Storefront& s, const std::string& order_id = "cs_1") {
    StoreEvent e;
    e.event_key = "evt_sale_" + order_id;
    e.event_type = "checkout.session.completed";
    e.action = StoreAction::kFulfil;
    e.order.order_id = order_id;
    e.order.customer = {std::string("ada@example.com"), std::string("Ada Lovelace")};
    e.order.lines = {{"price_single", 2}};
    e.order.references = {"pi_" + order_id.substr(3), "sub_" + order_id.substr(3)};
    const StoreOutcome out = Must(s, e, kT0);
    EXPECT_EQ(out.license_keys.size(), 2u);
    return out.license_keys;
  }

  static StoreEvent Event(const std::string& key, StoreAction action,
                          const std::string& reference = "cs_1") {
    StoreEvent e;
    e.event_key = key;
    e.event_type = "lifecycle";
    e.action = action;
    e.reference = reference;
    return e;
  }
  static StoreEvent Dispute(const std::string& key, StoreAction action,
                            const std::string& dispute) {
    StoreEvent e = Event(key, action, "pi_1");
    e.dispute_id = dispute;
    return e;
  }
  static StoreEvent Period(const std::string& key, StoreAction action, UnixMillis start,
                           UnixMillis end) {
    StoreEvent e = Event(key, action, "sub_1");
    e.period_start = start;
    e.period_end = end;
    return e;
  }

  License Find(const std::string& key) {
    auto l = Read([&](StoreTx& tx) { return licensed::find_any_license(tx, key); });
    EXPECT_TRUE(l.ok()) << l.error().message;
    return l.ok() ? l.value() : License{};
  }
  LicenseStatus StatusOf(const std::string& key) { return Find(key).status; }

  std::vector<AuditEntry> Audit(const std::string& key) {
    auto a = Read([&](StoreTx& tx) {
      return tx.list_audit(key, licensed::AuditOrder::kOldestFirst, 0, 100);
    });
    EXPECT_TRUE(a.ok()) << a.error().message;
    return a.ok() ? a.value() : std::vector<AuditEntry>{};
  }

  void AdminSets(const std::string& key, LicenseStatus status) {
    auto done = Write([&](StoreTx& tx) {
      return licensed::set_license_status(tx, key, status, AdminContext{kT0 + kHour});
    });
    ASSERT_TRUE(done.ok()) << done.error().message;
  }

  Result<int64_t> Sweep(UnixMillis now) { return licensed::run_payment_grace_sweep(store(), now); }

  static std::string SourceOf(const Storefront& s, const std::string& order_id) {
    return R"({"provider":"stripe","storeId":)" + std::to_string(s.id) + R"(,"orderId":")" +
           order_id + R"("})";
  }

  int64_t product_id_ = 0;
};

TEST_P(StoreLifecycle, AFullRefundMakesTheOrdersLicensesRefundedWithAStoreAuditRecord) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  const StoreOutcome out = Must(s, Event("evt_refund", StoreAction::kRefund));
  EXPECT_FALSE(out.duplicate);
  EXPECT_FALSE(out.ignored);
  EXPECT_EQ(out.changed_keys, keys);
  for (const auto& key : keys) {
    EXPECT_EQ(StatusOf(key), LicenseStatus::kRefunded);
    const auto audit = Audit(key);
    ASSERT_EQ(audit.size(), 2u) << "license.create, then the refund";
    const AuditEntry& e = audit[1];
    EXPECT_EQ(e.action, "license.status");
    EXPECT_EQ(e.changes, R"({"status":{"from":"ACTIVE","to":"REFUNDED"}})");
    EXPECT_EQ(e.actor, Actor::kStore);
    EXPECT_EQ(e.actor_name, "Main shop");
    EXPECT_EQ(e.source, SourceOf(s, "cs_1"));
    EXPECT_EQ(e.at, kT0 + kHour);
  }
}

TEST_P(StoreLifecycle, ARefundLeavesARevokedOrDeletedLicenseAsItIs) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  AdminSets(keys[0], LicenseStatus::kRevoked);
  auto deleted = Write([&](StoreTx& tx) {
    return licensed::delete_license(tx, keys[1], AdminContext{kT0 + kHour});
  });
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  const StoreOutcome out = Must(s, Event("evt_refund", StoreAction::kRefund));
  EXPECT_TRUE(out.changed_keys.empty());
  EXPECT_EQ(StatusOf(keys[0]), LicenseStatus::kRevoked);
  EXPECT_EQ(StatusOf(keys[1]), LicenseStatus::kActive) << "deleted: not changed";
}

TEST_P(StoreLifecycle, APartialRefundIsAuditedAndChangesNothing) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  const License before = Find(keys[0]);
  const StoreOutcome out = Must(s, Event("evt_partial", StoreAction::kPartialRefund, "pi_1"));
  EXPECT_TRUE(out.changed_keys.empty());
  const License after = Find(keys[0]);
  EXPECT_EQ(after.status, LicenseStatus::kActive);
  EXPECT_EQ(after.expires_at, before.expires_at);
  EXPECT_EQ(after.max, before.max);
  for (const auto& key : keys) {
    const auto audit = Audit(key);
    ASSERT_EQ(audit.size(), 2u);
    EXPECT_EQ(audit[1].action, "license.update");
    EXPECT_EQ(audit[1].changes, "{}");
    EXPECT_EQ(audit[1].reason, "partial refund");
    EXPECT_EQ(audit[1].actor, Actor::kStore);
    EXPECT_EQ(audit[1].source, SourceOf(s, "cs_1"));
  }
}

TEST_P(StoreLifecycle, ADisputeSuspendsAndItsWinRestoresActive) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  EXPECT_EQ(Must(s, Dispute("evt_d", StoreAction::kDispute, "dp_1")).changed_keys, keys);
  for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kSuspended);
  EXPECT_EQ(Must(s, Dispute("evt_w", StoreAction::kDisputeWon, "dp_1")).changed_keys, keys);
  for (const auto& key : keys) {
    EXPECT_EQ(StatusOf(key), LicenseStatus::kActive);
    const auto audit = Audit(key);
    ASSERT_EQ(audit.size(), 3u);
    EXPECT_EQ(audit[1].changes, R"({"status":{"from":"ACTIVE","to":"SUSPENDED"}})");
    EXPECT_EQ(audit[2].changes, R"({"status":{"from":"SUSPENDED","to":"ACTIVE"}})");
    EXPECT_EQ(audit[2].actor, Actor::kStore);
  }
}

TEST_P(StoreLifecycle, AWonDisputeRestoresOnlyALicenseWhoseStatusThatDisputeSet) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  // keys[0]: an admin suspended it before the dispute; the dispute leaves it be.
  AdminSets(keys[0], LicenseStatus::kSuspended);
  Must(s, Dispute("evt_d1", StoreAction::kDispute, "dp_1"));
  // keys[1]: the dispute suspended it, then an admin lifted and suspended it again.
  AdminSets(keys[1], LicenseStatus::kActive);
  AdminSets(keys[1], LicenseStatus::kSuspended);
  const StoreOutcome won = Must(s, Dispute("evt_w1", StoreAction::kDisputeWon, "dp_1"));
  EXPECT_TRUE(won.changed_keys.empty());
  EXPECT_EQ(StatusOf(keys[0]), LicenseStatus::kSuspended);
  EXPECT_EQ(StatusOf(keys[1]), LicenseStatus::kSuspended);

  // Another dispute's win does not lift this dispute's suspension.
  AdminSets(keys[0], LicenseStatus::kActive);
  AdminSets(keys[1], LicenseStatus::kActive);
  Must(s, Dispute("evt_d2", StoreAction::kDispute, "dp_2"));
  EXPECT_TRUE(Must(s, Dispute("evt_w3", StoreAction::kDisputeWon, "dp_3")).changed_keys.empty());
  for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kSuspended);
  EXPECT_EQ(Must(s, Dispute("evt_w2", StoreAction::kDisputeWon, "dp_2")).changed_keys, keys);
  for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kActive);
}

TEST_P(StoreLifecycle, ARenewalExtendsAndAnOlderRenewalAfterANewerChangesNothing) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  const UnixMillis p2_end = kT0 + 60 * kDay;
  const StoreOutcome newer =
      Must(s, Period("evt_p2", StoreAction::kRenewal, kT0 + 30 * kDay, p2_end));
  EXPECT_EQ(newer.changed_keys, keys);
  for (const auto& key : keys) {
    EXPECT_EQ(Find(key).expires_at, p2_end);
    const auto audit = Audit(key);
    ASSERT_EQ(audit.size(), 2u);
    EXPECT_EQ(audit[1].action, "license.update");
    EXPECT_NE(audit[1].changes->find(R"("expiresAt":{"from":)"), std::string::npos)
        << *audit[1].changes;
    EXPECT_EQ(audit[1].actor, Actor::kStore);
    EXPECT_EQ(audit[1].source, SourceOf(s, "cs_1"));
  }
  // Delivered late: the first period's renewal, and a repeat of the newer period.
  EXPECT_TRUE(
      Must(s, Period("evt_p1", StoreAction::kRenewal, kT0, kT0 + 30 * kDay)).changed_keys.empty());
  EXPECT_TRUE(Must(s, Period("evt_p2b", StoreAction::kRenewal, kT0 + 30 * kDay, p2_end))
                  .changed_keys.empty());
  for (const auto& key : keys) {
    EXPECT_EQ(Find(key).expires_at, p2_end);
    EXPECT_EQ(Audit(key).size(), 2u);
  }
  // The next period moves it on.
  Must(s, Period("evt_p3", StoreAction::kRenewal, kT0 + 60 * kDay, kT0 + 90 * kDay));
  EXPECT_EQ(Find(keys[0]).expires_at, kT0 + 90 * kDay);
}

TEST_P(StoreLifecycle, ACancellationSetsThePeriodsEndButNeverFromAnOlderPeriod) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  Must(s, Period("evt_p2", StoreAction::kRenewal, kT0 + 30 * kDay, kT0 + 60 * kDay));
  // A cancellation citing the period before: changes nothing.
  EXPECT_TRUE(Must(s, Period("evt_c1", StoreAction::kCancellation, kT0, kT0 + 30 * kDay))
                  .changed_keys.empty());
  EXPECT_EQ(Find(keys[0]).expires_at, kT0 + 60 * kDay);
  // Cancelled in the current period, ending early (at once): expiresAt is its end.
  const StoreOutcome out =
      Must(s, Period("evt_c2", StoreAction::kCancellation, kT0 + 30 * kDay, kT0 + 45 * kDay));
  EXPECT_EQ(out.changed_keys, keys);
  for (const auto& key : keys) EXPECT_EQ(Find(key).expires_at, kT0 + 45 * kDay);
}

TEST_P(StoreLifecycle,
       AFailedPaymentKeepsAccessForTheGraceThenTheSweepSuspendsAndAPaymentRestores) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  licensed::ManualClock clock(kT0 + kDay);
  EXPECT_TRUE(Must(s, Event("evt_f", StoreAction::kPaymentFailed, "sub_1"), clock.now_ms())
                  .changed_keys.empty());
  clock.advance_ms(kHour - 1);
  auto inside = Sweep(clock.now_ms());
  ASSERT_TRUE(inside.ok()) << inside.error().message;
  EXPECT_EQ(inside.value(), 0);
  for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kActive);

  clock.advance_ms(1);  // the store's paymentGrace (1 h) has passed
  auto after = Sweep(clock.now_ms());
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after.value(), 2);
  for (const auto& key : keys) {
    EXPECT_EQ(StatusOf(key), LicenseStatus::kSuspended);
    const auto audit = Audit(key);
    ASSERT_EQ(audit.size(), 2u);
    EXPECT_EQ(audit[1].changes, R"({"status":{"from":"ACTIVE","to":"SUSPENDED"}})");
    EXPECT_EQ(audit[1].actor, Actor::kSystem) << "the sweep, docs/protocol.md §17";
    EXPECT_EQ(audit[1].source, SourceOf(s, "cs_1"));
    EXPECT_EQ(audit[1].at, clock.now_ms());
  }
  EXPECT_EQ(Sweep(clock.now_ms() + kDay).value(), 0) << "swept once";

  // A successful payment after the suspension restores ACTIVE.
  clock.advance_ms(kDay);
  const StoreOutcome paid =
      Must(s, Period("evt_paid", StoreAction::kRenewal, kT0 + 30 * kDay, kT0 + 60 * kDay),
           clock.now_ms());
  EXPECT_EQ(paid.changed_keys, keys) << "status and expiresAt of each, each key once";
  for (const auto& key : keys) {
    EXPECT_EQ(StatusOf(key), LicenseStatus::kActive);
    EXPECT_EQ(Find(key).expires_at, kT0 + 60 * kDay);
  }
}

TEST_P(StoreLifecycle, APaymentWithinTheGraceLeavesNothingForTheSweep) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  Must(s, Event("evt_f", StoreAction::kPaymentFailed, "sub_1"), kT0 + kDay);
  Must(s, Event("evt_paid", StoreAction::kRenewal, "sub_1"), kT0 + kDay + 10 * 60'000);
  auto swept = Sweep(kT0 + 2 * kDay);
  ASSERT_TRUE(swept.ok()) << swept.error().message;
  EXPECT_EQ(swept.value(), 0);
  for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kActive);
}

TEST_P(StoreLifecycle, APaymentDoesNotLiftASuspensionItDidNotCause) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  AdminSets(keys[0], LicenseStatus::kSuspended);
  Must(s, Dispute("evt_d", StoreAction::kDispute, "dp_1"));
  Must(s, Event("evt_paid", StoreAction::kRenewal, "sub_1"));
  EXPECT_EQ(StatusOf(keys[0]), LicenseStatus::kSuspended) << "the admin's";
  EXPECT_EQ(StatusOf(keys[1]), LicenseStatus::kSuspended) << "the dispute's";
}

TEST_P(StoreLifecycle, AnEventCitingAnyReferenceOfTheSaleFindsTheOrder) {
  const Storefront s = MakeStore();
  const auto first = Sell(s, "cs_1");
  const auto second = Sell(s, "cs_2");
  EXPECT_EQ(Must(s, Event("evt_r2", StoreAction::kRefund, "pi_2")).changed_keys, second);
  EXPECT_EQ(StatusOf(second[0]), LicenseStatus::kRefunded);
  EXPECT_EQ(StatusOf(first[0]), LicenseStatus::kActive) << "another order's license";
  EXPECT_EQ(Must(s, Event("evt_r1", StoreAction::kRefund, "sub_1")).changed_keys, first);
  EXPECT_EQ(StatusOf(first[1]), LicenseStatus::kRefunded);
}

TEST_P(StoreLifecycle, AnEventCitingAnUnknownReferenceIsAcknowledgedAndChangesNothing) {
  const Storefront s = MakeStore();
  const Storefront other = MakeStore(R"({"testMode":false})", 'b');
  const auto keys = Sell(s);
  for (const auto& [key, reference] :
       std::vector<std::pair<std::string, std::string>>{{"evt_u1", "pi_unknown"}, {"evt_u2", ""}}) {
    const StoreOutcome out = Must(s, Event(key, StoreAction::kRefund, reference));
    EXPECT_TRUE(out.ignored);
    EXPECT_FALSE(out.duplicate);
  }
  // Another store's events never reach this store's orders.
  EXPECT_TRUE(Must(other, Event("evt_o", StoreAction::kRefund, "cs_1")).ignored);
  EXPECT_TRUE(Must(s, Event("evt_u1", StoreAction::kRefund, "pi_unknown")).duplicate) << "recorded";
  for (const auto& key : keys) {
    EXPECT_EQ(StatusOf(key), LicenseStatus::kActive);
    EXPECT_EQ(Audit(key).size(), 1u);
  }
}

TEST_P(StoreLifecycle, ADuplicateOfEachLifecycleEventChangesNothing) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  const std::string& k = keys[0];
  auto expect_duplicate = [&](const StoreEvent& e, UnixMillis now) {
    const StoreOutcome out = Must(s, e, now);
    EXPECT_TRUE(out.duplicate) << e.event_key;
    EXPECT_TRUE(out.changed_keys.empty()) << e.event_key;
    EXPECT_TRUE(out.first_seen_at.has_value()) << e.event_key;
  };

  Must(s, Event("evt_refund", StoreAction::kRefund));
  AdminSets(k, LicenseStatus::kActive);
  expect_duplicate(Event("evt_refund", StoreAction::kRefund), kT0 + kHour);
  EXPECT_EQ(StatusOf(k), LicenseStatus::kActive);
  AdminSets(keys[1], LicenseStatus::kActive);

  Must(s, Dispute("evt_d", StoreAction::kDispute, "dp_1"));
  Must(s, Dispute("evt_w", StoreAction::kDisputeWon, "dp_1"));
  expect_duplicate(Dispute("evt_d", StoreAction::kDispute, "dp_1"), kT0 + kHour);
  EXPECT_EQ(StatusOf(k), LicenseStatus::kActive);
  Must(s, Dispute("evt_d_again", StoreAction::kDispute, "dp_1"));
  expect_duplicate(Dispute("evt_w", StoreAction::kDisputeWon, "dp_1"), kT0 + kHour);
  EXPECT_EQ(StatusOf(k), LicenseStatus::kSuspended);
  AdminSets(k, LicenseStatus::kActive);

  const StoreEvent renewal =
      Period("evt_n", StoreAction::kRenewal, kT0 + 30 * kDay, kT0 + 60 * kDay);
  Must(s, renewal);
  auto set_expiry = [&](UnixMillis at) {
    auto done = Write([&](StoreTx& tx) {
      return licensed::set_license_expiry(tx, k, at, AdminContext{kT0 + kHour});
    });
    ASSERT_TRUE(done.ok()) << done.error().message;
  };
  set_expiry(kT0 + 5 * kDay);
  expect_duplicate(renewal, kT0 + kHour);
  const StoreEvent cancel =
      Period("evt_c", StoreAction::kCancellation, kT0 + 30 * kDay, kT0 + 60 * kDay);
  Must(s, cancel);
  set_expiry(kT0 + 5 * kDay);
  expect_duplicate(cancel, kT0 + kHour);
  EXPECT_EQ(Find(k).expires_at, kT0 + 5 * kDay);

  const size_t audited = Audit(k).size();
  Must(s, Event("evt_partial", StoreAction::kPartialRefund));
  expect_duplicate(Event("evt_partial", StoreAction::kPartialRefund), kT0 + kHour);
  EXPECT_EQ(Audit(k).size(), audited + 1);

  // A failed payment delivered again after the payment that settled it is not a new
  // failure: the sweep finds nothing.
  Must(s, Event("evt_f", StoreAction::kPaymentFailed, "sub_1"), kT0 + kDay);
  Must(s, Event("evt_paid", StoreAction::kRenewal, "sub_1"), kT0 + kDay + 1);
  expect_duplicate(Event("evt_f", StoreAction::kPaymentFailed, "sub_1"), kT0 + kDay + 2);
  EXPECT_EQ(Sweep(kT0 + 10 * kDay).value(), 0);
  EXPECT_EQ(StatusOf(k), LicenseStatus::kActive);
}

TEST_P(StoreLifecycle, TestModeEventsAreIgnoredUnlessTheStoreIsInTestMode) {
  const Storefront live = MakeStore();
  const Storefront testing = MakeStore(R"({"testMode":true})", 'b');
  const auto live_keys = Sell(live);
  const auto test_keys = Sell(testing);
  StoreEvent refund = Event("evt_test_refund", StoreAction::kRefund);
  refund.live = false;
  const StoreOutcome ignored = Must(live, refund);
  EXPECT_TRUE(ignored.ignored);
  EXPECT_TRUE(ignored.changed_keys.empty());
  EXPECT_EQ(StatusOf(live_keys[0]), LicenseStatus::kActive);
  EXPECT_EQ(Must(testing, refund).changed_keys, test_keys);
  EXPECT_EQ(StatusOf(test_keys[0]), LicenseStatus::kRefunded);

  StoreEvent sale;
  sale.event_key = "evt_test_sale";
  sale.action = StoreAction::kFulfil;
  sale.live = false;
  sale.order.order_id = "cs_9";
  sale.order.lines = {{"price_single", 1}};
  const StoreOutcome no_sale = Must(live, sale);
  EXPECT_TRUE(no_sale.ignored);
  EXPECT_TRUE(no_sale.license_keys.empty());
  EXPECT_EQ(Must(testing, sale).license_keys.size(), 1u);
}

TEST_P(StoreLifecycle, ADuplicateSaleAnswersItsKeysOnlyWithin24HoursOfTheFirst) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);  // at kT0
  StoreEvent again;
  again.event_key = "evt_sale_cs_1";
  again.action = StoreAction::kFulfil;
  again.order.order_id = "cs_1";
  again.order.lines = {{"price_single", 2}};
  const StoreOutcome within = Must(s, again, kT0 + licensed::kDuplicateKeysWindowMs);
  EXPECT_TRUE(within.duplicate);
  EXPECT_EQ(within.license_keys, keys);
  EXPECT_FALSE(within.keys_expired);
  EXPECT_EQ(within.first_seen_at, kT0);
  const StoreOutcome late = Must(s, again, kT0 + licensed::kDuplicateKeysWindowMs + 1);
  EXPECT_TRUE(late.duplicate);
  EXPECT_TRUE(late.license_keys.empty());
  EXPECT_TRUE(late.keys_expired);
  EXPECT_EQ(late.first_seen_at, kT0);
}

// The generator's body is hashed as sent: the same request with its parameters in
// another order is a new event. It must not answer the order's keys past the window a
// duplicate has (a captured request replayed forever would hand them out forever).
TEST_P(StoreLifecycle, ANewEventForAnOrderFulfilledBeforeAnswersItsKeysOnlyWithinTheSameWindow) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);  // at kT0
  StoreEvent reordered;
  reordered.event_key = "body-hash-reordered-1";
  reordered.action = StoreAction::kFulfil;
  reordered.order.order_id = "cs_1";
  reordered.order.lines = {{"price_single", 2}};
  const StoreOutcome within = Must(s, reordered, kT0 + licensed::kDuplicateKeysWindowMs);
  EXPECT_FALSE(within.duplicate);
  EXPECT_EQ(within.license_keys, keys) << "nothing new made, the order's keys answered";
  reordered.event_key = "body-hash-reordered-2";
  const StoreOutcome late = Must(s, reordered, kT0 + licensed::kDuplicateKeysWindowMs + 1);
  EXPECT_FALSE(late.duplicate);
  EXPECT_TRUE(late.license_keys.empty());
  EXPECT_TRUE(late.keys_expired);
}

TEST_P(StoreLifecycle, DeletingAPlanAStoreMapsIsRefused) {
  const Storefront s = MakeStore();
  auto refused = Write([](StoreTx& tx) { return licensed::delete_plan(tx, "reverb", "pro"); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, licensed::StatusCode::kConflict);
  EXPECT_NE(refused.error().message.find("price_single"), std::string::npos)
      << refused.error().message;
  auto unmapped = Write([&](StoreTx& tx) { return tx.replace_sku_mappings(s.id, {}); });
  ASSERT_TRUE(unmapped.ok());
  auto deleted = Write([](StoreTx& tx) { return licensed::delete_plan(tx, "reverb", "pro"); });
  EXPECT_TRUE(deleted.ok()) << deleted.error().message;
}

// Whichever commits first, a payment and the sweep arriving together leave the licenses
// ACTIVE (the sweep suspends and the payment lifts it, or the payment takes the failure
// first and the sweep finds nothing), and neither waits for the other forever.
TEST_P(StoreLifecycle, APaymentAndTheSweepArrivingTogetherLeaveTheLicensesActive) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  for (int round = 0; round < 8; ++round) {
    const std::string n = std::to_string(round);
    const UnixMillis failed_at = kT0 + (round + 1) * kDay;
    Must(s, Event("evt_f" + n, StoreAction::kPaymentFailed, "sub_1"), failed_at);
    std::latch start(2);
    auto sweep = std::async(std::launch::async, [&] {
      start.arrive_and_wait();
      return Sweep(failed_at + kHour);
    });
    auto paid = std::async(std::launch::async, [&] {
      start.arrive_and_wait();
      return Apply(s, Event("evt_p" + n, StoreAction::kRenewal, "sub_1"), failed_at + kHour);
    });
    const auto swept = sweep.get();
    const auto payment = paid.get();
    ASSERT_TRUE(swept.ok()) << swept.error().message;
    ASSERT_TRUE(payment.ok()) << payment.error().message;
    for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kActive) << round;
  }
}

TEST_P(StoreLifecycle, DeletingAStoreForgetsItsLifecycleRecordsAndKeepsItsLicenses) {
  const Storefront s = MakeStore();
  const auto keys = Sell(s);
  Must(s, Dispute("evt_d", StoreAction::kDispute, "dp_1"));
  Must(s, Period("evt_n", StoreAction::kRenewal, kT0, kT0 + 30 * kDay));
  Must(s, Event("evt_f", StoreAction::kPaymentFailed, "sub_1"), kT0 + kDay);
  auto gone = Write([&](StoreTx& tx) -> Result<bool> {
    auto deleted = tx.delete_storefront(s.id);
    if (!deleted.ok() || !deleted.value()) return deleted;
    auto ref = tx.find_order_by_reference(s.id, "pi_1");
    auto cause = tx.find_status_cause(keys[0]);
    auto period = tx.find_order_period(s.id, "cs_1");
    if (!ref.ok() || !cause.ok() || !period.ok()) return licensed::Error::internal("read");
    return !ref.value() && !cause.value() && !period.value();
  });
  ASSERT_TRUE(gone.ok()) << gone.error().message;
  EXPECT_TRUE(gone.value()) << "a reference, cause or period outlived its store";
  EXPECT_EQ(Sweep(kT0 + 10 * kDay).value(), 0);
  for (const auto& key : keys) EXPECT_EQ(StatusOf(key), LicenseStatus::kSuspended);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreLifecycle, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
