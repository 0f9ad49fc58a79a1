// The minute sweep of ended leases (docs/protocol.md §27) on every Store: each ended lease is
// deleted with one lease.released (reason "expired") in the same transaction, whether the
// sweep or a checkout finds it first, never twice; live leases stay; an expiry writes no audit
// record; a checked-in borrowed lease is reported once, when its row goes. On PostgreSQL, two
// stores (two instances) sweeping at once, beside checkouts, report each ended lease once.
#include <gtest/gtest.h>

#include <latch>
#include <map>
#include <thread>

#include "admin/admin_leases.h"
#include "core/timestamp.h"
#include "store/lease_sweep.h"
#include "store/seat_helpers.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Result;
using licensed::StoreTx;
using licensed::UnixMillis;

constexpr UnixMillis kTtl = 600'000;  // MakeSeatLicense's leaseTtl

class LeaseSweepConformance : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    license_ = MakeSeatLicense(store(), 10, 3, 3);
    AddReleasedEndpoint(store());
  }
  int64_t Live(UnixMillis now) {
    auto n = Read([&](StoreTx& tx) { return tx.count_leases(license_.id, now); });
    EXPECT_TRUE(n.ok());
    return n.ok() ? n.value() : -1;
  }
  // How many rows the leases table holds, ended or not.
  int64_t Rows() {
    auto n = Read([&](StoreTx& tx) { return tx.count_leases(license_.id, INT64_MIN); });
    EXPECT_TRUE(n.ok());
    return n.ok() ? n.value() : -1;
  }
  std::map<std::string, size_t> AuditActions() {
    auto audit = Read([&](StoreTx& tx) {
      return tx.list_audit(kKey, licensed::AuditOrder::kOldestFirst, 0, 1000);
    });
    EXPECT_TRUE(audit.ok());
    std::map<std::string, size_t> out;
    if (audit.ok()) {
      for (const auto& e : audit.value()) ++out[e.action];
    }
    return out;
  }
  licensed::License license_;
};

TEST_P(LeaseSweepConformance, TheSweepReleasesEachEndedLeaseOnceAndLeavesLiveOnes) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0 + 300'000), 0);
  EXPECT_EQ(Sweep(store(), kT0 + kTtl - 1), 0);  // nothing has ended yet
  EXPECT_EQ(Sweep(store(), kT0 + kTtl), 1);      // machine-0's ended exactly now
  EXPECT_EQ(Rows(), 1);
  EXPECT_EQ(Live(kT0 + kTtl), 1);
  EXPECT_EQ(Sweep(store(), kT0 + kTtl), 0);  // a second round finds it gone
  EXPECT_EQ(Sweep(store(), kT0 + kTtl + 60'000), 0);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(MachineOf(released[0]), "machine-0");
  EXPECT_EQ(ReasonOf(released[0]), "expired");
  EXPECT_EQ(released[0].at("actor").as_string(), "system");
  EXPECT_EQ(released[0].at("license").at("licenseKey").as_string(), kKey);
  EXPECT_EQ(released[0].at("lease").at("sessionId").as_string(), "machine-0");
  EXPECT_EQ(released[0].at("lease").at("expiresAt").as_string(),
            licensed::format_timestamp(kT0 + kTtl));
  EXPECT_FALSE(released[0].at("lease").at("borrowed").as_bool());
  // The machine as an activate answer shows it, from its row.
  EXPECT_TRUE(released[0].at("machine").as_object().contains("activatedAt"));

  EXPECT_EQ(Sweep(store(), kT0 + 300'000 + kTtl), 1);
  ASSERT_EQ(Released(store()).size(), 2u);
  EXPECT_EQ(MachineOf(Released(store())[1]), "machine-1");
  EXPECT_EQ(Rows(), 0);
}

TEST_P(LeaseSweepConformance, AnExpiryWritesNoAuditRecord) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0 + 100'000), 0);  // a renewal
  EXPECT_EQ(Sweep(store(), kT0 + 100'000 + kTtl), 1);
  const std::map<std::string, size_t> expected{{"license.checkout", 1}};
  EXPECT_EQ(AuditActions(), expected);
}

TEST_P(LeaseSweepConformance, AnEndedLeaseACheckoutDropsIsReportedOnceAndNotAgainByTheSweep) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0 + 300'000), 0);  // machine-1 renews
  // machine-2's checkout, after machine-0's lease ended, drops it under the license's lock.
  ASSERT_EQ(Checkout(store(), "machine-2", kT0 + kTtl + 1000), 0);
  ASSERT_EQ(Released(store()).size(), 1u);
  EXPECT_EQ(Sweep(store(), kT0 + kTtl + 2000), 0);
  // A checkin of the license drops ended leases as a checkout does: machine-1's, here.
  EXPECT_FALSE(Checkin(store(), "machine-0", kT0 + 300'000 + kTtl));
  EXPECT_EQ(Sweep(store(), kT0 + 300'000 + kTtl), 0);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(MachineOf(released[0]), "machine-0");
  EXPECT_EQ(MachineOf(released[1]), "machine-1");
  for (const auto& data : released) EXPECT_EQ(ReasonOf(data), "expired");
}

TEST_P(LeaseSweepConformance, ACheckinAndAnAdminReleaseNameTheirReasons) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0), 0);
  EXPECT_TRUE(Checkin(store(), "machine-0", kT0 + 1000));
  auto freed = Write([&](StoreTx& tx) -> Result<licensed::Ok> {
    RETURN_IF_ERROR(licensed::release_lease(tx, kKey, "machine-1", "machine-1",
                                            licensed::AdminContext{kT0 + 2000}));
    return licensed::Ok{};
  });
  ASSERT_TRUE(freed.ok()) << freed.error().message;
  EXPECT_EQ(Sweep(store(), kT0 + kTtl), 0);  // nothing left to end

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(MachineOf(released[0]), "machine-0");
  EXPECT_EQ(ReasonOf(released[0]), "checkin");
  EXPECT_EQ(MachineOf(released[1]), "machine-1");
  EXPECT_EQ(ReasonOf(released[1]), "admin");
}

// A client's checkin of a borrowed lease is audited but frees nothing (§27): the seat, and
// the row, stay until the lease file's end, and the one lease.released comes then.
TEST_P(LeaseSweepConformance, ACheckedInBorrowedLeaseIsReportedOnceWhenItEnds) {
  constexpr UnixMillis kTwoDays = 2 * 86'400'000LL;
  ASSERT_EQ(Checkout(store(), "machine-0", kT0, nullptr, "2d"), 0);
  EXPECT_TRUE(Checkin(store(), "machine-0", kT0 + 1000));
  EXPECT_TRUE(Released(store()).empty());
  EXPECT_EQ(AuditActions()["license.checkin"], 1u);
  EXPECT_EQ(Sweep(store(), kT0 + kTwoDays - 1), 0);
  EXPECT_EQ(Sweep(store(), kT0 + kTwoDays), 1);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(ReasonOf(released[0]), "expired");
  EXPECT_TRUE(released[0].at("lease").at("borrowed").as_bool());
}

TEST_P(LeaseSweepConformance, ASweepPagesThroughManyLicenses) {
  // 250 more licenses, one ended lease each, beside the fixture's: more than two pages.
  auto made = Write([&](StoreTx& tx) -> Result<licensed::Ok> {
    ASSIGN_OR_RETURN(const auto product, tx.find_product("reverb"));
    for (int i = 0; i < 250; ++i) {
      licensed::NewLicense n;
      n.key = "page-license-" + std::to_string(i);
      n.product_id = product->id;
      n.max = 1;
      n.max_concurrent = 1;
      n.created_at = kT0;
      ASSIGN_OR_RETURN(const auto l, tx.insert_license(n));
      ASSIGN_OR_RETURN(const auto locked, tx.lock_license(l.key));
      const licensed::Activation a("page-machine", std::nullopt, kT0, kT0);
      RETURN_IF_ERROR(tx.insert_activation(*locked, a));
      licensed::Lease lease;
      lease.machine_id = "page-machine";
      lease.session_id = "page-machine";
      lease.created_at = kT0;
      lease.expires_at = kT0 + 60'000;
      RETURN_IF_ERROR(tx.put_lease(*locked, lease));
    }
    return licensed::Ok{};
  });
  ASSERT_TRUE(made.ok()) << made.error().message;
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  EXPECT_EQ(Sweep(store(), kT0 + kTtl), 251);
  EXPECT_EQ(Sweep(store(), kT0 + kTtl), 0);
  EXPECT_EQ(Released(store()).size(), 251u);
}

INSTANTIATE_TEST_SUITE_P(Stores, LeaseSweepConformance, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// Two stores (two licensed instances) on one PostgreSQL database sweep at the same moment
// while checkouts of the same license, through both, drop ended leases too: each of the 40
// ended leases is reported exactly once.
TEST(PgLeaseSweep, TwoInstancesAndCheckoutsReportEachEndedLeaseOnce) {
  if (!StoreKindAvailable("postgresql")) GTEST_SKIP() << "no test PostgreSQL server";
  StoreHarness h("postgresql");
  auto second = h.OpenAnother();
  MakeSeatLicense(h.store(), 64, 64, 64);
  AddReleasedEndpoint(h.store());
  for (int i = 0; i < 40; ++i)
    ASSERT_EQ(Checkout(h.store(), "machine-" + std::to_string(i), kT0), 0);

  const UnixMillis later = kT0 + kTtl;
  std::atomic<int64_t> swept{0};
  std::latch start(1);
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      licensed::Store& store = t % 2 == 0 ? h.store() : *second;
      start.wait();
      if (t < 2) {
        for (int round = 0; round < 3; ++round) swept += Sweep(store, later);
      } else {
        for (int i = 40 + t; i < 64; i += 2) {
          EXPECT_EQ(Checkout(store, "machine-" + std::to_string(i), later), 0);
        }
      }
    });
  }
  start.count_down();
  for (auto& w : workers) w.join();

  const auto released = Released(h.store());
  EXPECT_EQ(released.size(), 40u);
  std::map<std::string, int> by_machine;
  for (const auto& data : released) ++by_machine[MachineOf(data)];
  EXPECT_EQ(by_machine.size(), 40u);
  for (const auto& [machine, times] : by_machine) EXPECT_EQ(times, 1) << machine;
  EXPECT_LE(swept.load(), 40);  // the rest went with the checkouts
}

}  // namespace
}  // namespace bb
