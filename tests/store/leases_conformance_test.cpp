// Concurrent seats (docs/protocol.md §27) on every Store: the leases table's contract, and
// checkout / checkin as the License API runs them, on SQLite and on PostgreSQL alike. The
// seat cap is checked under 64 concurrent checkouts on one store, and on PostgreSQL across
// two stores (two licensed instances) sharing one database.
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <thread>

#include "admin/admin_leases.h"
#include "core/operations.h"
#include "core/timestamp.h"
#include "http/license_api_error.h"
#include "store/seat_helpers.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Lease;
using licensed::License;
using licensed::Result;
using licensed::StoreTx;
using licensed::TxKind;

class LeasesConformance : public StoreParamTest {
 protected:
  int64_t Live(licensed::UnixMillis now) {
    auto n = Read([&](StoreTx& tx) { return tx.count_leases(license_.id, now); });
    EXPECT_TRUE(n.ok());
    return n.ok() ? n.value() : -1;
  }
  size_t AuditCount(std::string_view action) {
    auto audit = Read([&](StoreTx& tx) {
      return tx.list_audit(kKey, licensed::AuditOrder::kOldestFirst, 0, 1000);
    });
    EXPECT_TRUE(audit.ok());
    size_t n = 0;
    for (const auto& e : audit.value()) n += e.action == action ? 1 : 0;
    return n;
  }
  License license_;
};

TEST_P(LeasesConformance, ALeaseIsCountedUntilItEndsAndNeverAfter) {
  license_ = MakeSeatLicense(store(), 10, 2, 3);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  EXPECT_EQ(Live(kT0), 1);
  EXPECT_EQ(Live(kT0 + 600'000 - 1), 1);
  EXPECT_EQ(Live(kT0 + 600'000), 0);  // leaseTtl 10m: expired exactly at its end
}

TEST_P(LeasesConformance, TheSeatCapRefusesWith1710AndRetryAfterUntilTheEarliestLeaseEnds) {
  license_ = MakeSeatLicense(store(), 10, 2, 3);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0 + 60'000), 0);
  boost::json::object refused;
  EXPECT_EQ(Checkout(store(), "machine-2", kT0 + 100'000, &refused), 1710);
  EXPECT_EQ(refused.at("leases").as_int64(), 2);
  EXPECT_EQ(refused.at("maxConcurrent").as_int64(), 2);
  EXPECT_EQ(refused.at("retryAfter").as_int64(), 500);  // machine-0's ends at kT0 + 600 s
  // Once the earliest lease has expired it is not counted: the third machine gets its seat.
  EXPECT_EQ(Checkout(store(), "machine-2", kT0 + 600'000), 0);
}

TEST_P(LeasesConformance, ARenewalMovesTheEndOnlyLaterAndWritesNoAuditRecord) {
  license_ = MakeSeatLicense(store(), 10, 2, 3);
  boost::json::object first, renewed;
  ASSERT_EQ(Checkout(store(), "machine-0", kT0, &first), 0);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0 + 200'000, &renewed), 0);
  EXPECT_EQ(renewed.at("leases").as_int64(), 1);
  EXPECT_EQ(renewed.at("lease").as_object().at("expiresAt").as_string(),
            licensed::format_timestamp(kT0 + 800'000));  // renewed at 200 s, leaseTtl 600 s
  EXPECT_EQ(AuditCount("license.checkout"), 1u);
}

TEST_P(LeasesConformance, ACheckinFreesTheSeatAndIsAudited) {
  license_ = MakeSeatLicense(store(), 10, 1, 2);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  EXPECT_EQ(Checkout(store(), "machine-1", kT0), 1710);
  EXPECT_TRUE(Checkin(store(), "machine-0", kT0 + 1000));
  EXPECT_FALSE(Checkin(store(), "machine-0", kT0 + 2000));  // nothing left to give back
  EXPECT_EQ(Checkout(store(), "machine-1", kT0 + 3000), 0);
  EXPECT_EQ(AuditCount("license.checkin"), 1u);
}

TEST_P(LeasesConformance, DeactivatingAMachineReleasesItsLeases) {
  license_ = MakeSeatLicense(store(), 10, 1, 2);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  auto removed = Write([&](StoreTx& tx) -> Result<bool> {
    ASSIGN_OR_RETURN(auto locked, tx.lock_license(kKey));
    return tx.delete_activation(*locked, "machine-0", kT0, licensed::Actor::kClient);
  });
  ASSERT_TRUE(removed.ok() && removed.value());
  EXPECT_EQ(Live(kT0), 0);
  EXPECT_EQ(Checkout(store(), "machine-1", kT0), 0);
}

TEST_P(LeasesConformance, AClientCheckinOfABorrowedLeaseKeepsTheSeatUntilAnAdminReleasesIt) {
  license_ = MakeSeatLicense(store(), 10, 1, 2);
  boost::json::object borrowed;
  ASSERT_EQ(Checkout(store(), "machine-0", kT0, &borrowed, "2d"), 0);
  EXPECT_TRUE(borrowed.contains(licensed::kLeaseFileMember));
  EXPECT_TRUE(Checkin(store(), "machine-0", kT0 + 1000));       // answered released: true ...
  EXPECT_EQ(Checkout(store(), "machine-1", kT0 + 2000), 1710);  // ... yet still counted
  auto released = Write([&](StoreTx& tx) -> Result<licensed::Ok> {
    RETURN_IF_ERROR(licensed::release_lease(tx, kKey, "machine-0", "machine-0",
                                            licensed::AdminContext{kT0 + 3000}));
    return licensed::Ok{};
  });
  ASSERT_TRUE(released.ok()) << released.error().message;
  EXPECT_EQ(Checkout(store(), "machine-1", kT0 + 4000), 0);
}

TEST_P(LeasesConformance, BorrowingBeyondMaxBorrowIsRefusedAsMalformed) {
  license_ = MakeSeatLicense(store(), 10, 1, 1);
  EXPECT_EQ(Checkout(store(), "machine-0", kT0, nullptr, "8d"), 1702);
  EXPECT_EQ(Checkout(store(), "machine-0", kT0, nullptr, "soon"), 1702);
  EXPECT_EQ(Checkout(store(), "machine-9", kT0, nullptr, "1d"), 1707);  // 1707 comes first
}

TEST_P(LeasesConformance, TheSeatCapHoldsUnder64ConcurrentCheckouts) {
  license_ = MakeSeatLicense(store(), 64, 5, 64);
  std::atomic<int> ok{0}, limit{0}, other{0};
  std::latch start(1);
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      start.wait();
      for (int i = t; i < 64; i += 8) {
        const int code = Checkout(store(), "machine-" + std::to_string(i), kT0 + 1000);
        (code == 0 ? ok : code == 1710 ? limit : other)++;
      }
    });
  }
  start.count_down();
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 5);
  EXPECT_EQ(limit.load(), 59);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(Live(kT0 + 1000), 5);
}

INSTANTIATE_TEST_SUITE_P(Stores, LeasesConformance, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// The row lock, not one writer, keeps the seat cap: two stores (two instances) on one
// PostgreSQL database, 64 checkouts of distinct machines split across both, 5 seats.
TEST(PgLeases, TheSeatCapHoldsAcrossTwoInstancesOnOneDatabase) {
  if (!StoreKindAvailable("postgresql")) GTEST_SKIP() << "no test PostgreSQL server";
  StoreHarness h("postgresql");
  auto second = h.OpenAnother();
  MakeSeatLicense(h.store(), 64, 5, 64);
  std::atomic<int> ok{0}, limit{0}, other{0};
  std::latch start(1);
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      start.wait();
      licensed::Store& store = t % 2 == 0 ? h.store() : *second;
      for (int i = t; i < 64; i += 8) {
        const int code = Checkout(store, "machine-" + std::to_string(i), kT0 + 1000);
        (code == 0 ? ok : code == 1710 ? limit : other)++;
      }
    });
  }
  start.count_down();
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 5);
  EXPECT_EQ(limit.load(), 59);
  EXPECT_EQ(other.load(), 0);
}

}  // namespace
}  // namespace bb
