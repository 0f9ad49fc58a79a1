// A machine going away releases its leases (docs/protocol.md §27, "Machines going away") on
// every Store: a client's deactivate, an admin's or a customer's free, a stale machine's
// reclaim and an offline deactivation (either offlineRelease) each delete the machine's leases
// with one lease.released per lease, reason "deactivated", the path's actor, in the same
// transaction; another machine's leases stay and are not reported; a lease that had already
// ended is reported once, as "expired", by whichever of these paths and the sweep deletes it.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "admin/admin_operations.h"
#include "core/operations.h"
#include "core/timestamp.h"
#include "store/seat_helpers.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Actor;
using licensed::LicenseRequest;
using licensed::OperationContext;
using licensed::Result;
using licensed::StoreTx;
using licensed::UnixMillis;

constexpr UnixMillis kTtl = 600'000;  // MakeSeatLicense's leaseTtl
constexpr UnixMillis kHour = 3'600'000;

class LeaseReleaseConformance : public StoreParamTest {
 protected:
  void SetUp() override {
    StoreParamTest::SetUp();
    if (IsSkipped()) return;
    license_ = MakeSeatLicense(store(), 10, 5, 3);
    AddReleasedEndpoint(store());
  }

  OperationContext Context(UnixMillis now, Actor actor = Actor::kClient) {
    OperationContext ctx;
    ctx.now = now;
    ctx.actor = actor;
    ctx.new_activation_id = [] { return std::string(32, 'a'); };
    return ctx;
  }

  // The License API's operation `e` for `machine` at `now`: true when it answered 200.
  bool Run(licensed::Endpoint e, const std::string& machine, UnixMillis now) {
    LicenseRequest req;
    req.license_key = kKey;
    req.machine_id = machine;
    auto done =
        Write([&](StoreTx& tx) { return licensed::run_operation(e, tx, req, Context(now)); });
    return done.ok();
  }

  // A free through the admin API (actor admin) or the dashboard (actor customer).
  void Free(const std::string& machine, UnixMillis now, Actor actor) {
    auto freed = Write([&](StoreTx& tx) {
      return licensed::remove_activation(tx, kKey, machine,
                                         licensed::AdminContext{now, std::nullopt, actor});
    });
    ASSERT_TRUE(freed.ok()) << freed.error().message;
  }

  // An offline activation of `machine` whose latest file is `file_id`, ending in 90 days.
  void ActivateOffline(const std::string& machine, const std::string& file_id) {
    auto made = Write([&](StoreTx& tx) -> Result<licensed::Ok> {
      ASSIGN_OR_RETURN(auto locked, tx.lock_license(kKey));
      licensed::Activation a(machine, std::string("Studio Mac"), kT0, kT0);
      a.offline_until = kT0 + 90 * 24 * kHour;
      a.offline_file_id = file_id;
      a.offline_nonce = "nonce-" + file_id;
      a.offline_payload = "{}";
      RETURN_IF_ERROR(tx.insert_activation(*locked, a));
      return licensed::Ok{};
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
  }

  // The machine's deactivation file, submitted by the client: true when it answered 200.
  bool DeactivateOffline(const std::string& machine, const std::string& file_id, UnixMillis now) {
    LicenseRequest req;
    req.license_key = kKey;
    req.machine_id = machine;
    req.offline = licensed::OfflineOrigin{"k", now / 1000, "deact-" + file_id, file_id};
    auto done =
        Write([&](StoreTx& tx) { return licensed::offline_deactivate(tx, req, Context(now)); });
    return done.ok();
  }

  void SetLicense(const std::function<void(licensed::License&)>& edit) {
    auto changed = Write([&](StoreTx& tx) -> Result<licensed::Ok> {
      ASSIGN_OR_RETURN(auto l, tx.find_license(kKey));
      edit(*l);
      RETURN_IF_ERROR(tx.update_license(*l));
      return licensed::Ok{};
    });
    ASSERT_TRUE(changed.ok()) << changed.error().message;
  }

  // How many rows the leases table holds for `machine`, ended or not.
  int64_t Rows(const std::string& machine) {
    auto leases = Read([&](StoreTx& tx) { return tx.list_leases(license_.id, INT64_MIN); });
    EXPECT_TRUE(leases.ok());
    int64_t n = 0;
    if (leases.ok()) {
      for (const auto& l : leases.value()) n += l.machine_id == machine ? 1 : 0;
    }
    return n;
  }

  licensed::License license_;
};

TEST_P(LeaseReleaseConformance, ADeactivateReportsEachLeaseOfTheMachineOnceAndNoneOfAnothers) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0, nullptr, {}, "plugin-a"), 0);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0, nullptr, {}, "plugin-b"), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0), 0);
  ASSERT_TRUE(Run(licensed::Endpoint::kDeactivate, "machine-0", kT0 + 1000));
  EXPECT_EQ(Rows("machine-0"), 0);
  EXPECT_EQ(Rows("machine-1"), 1);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 2u);
  std::set<std::string> sessions;
  for (const auto& data : released) {
    EXPECT_EQ(MachineOf(data), "machine-0");
    EXPECT_EQ(ReasonOf(data), "deactivated");
    EXPECT_EQ(ActorOf(data), "client");
    EXPECT_EQ(data.at("license").at("licenseKey").as_string(), kKey);
    EXPECT_EQ(data.at("lease").at("expiresAt").as_string(), licensed::format_timestamp(kT0 + kTtl));
    EXPECT_FALSE(data.at("lease").at("borrowed").as_bool());
    // The machine as it was, read before its row went.
    EXPECT_TRUE(data.at("machine").as_object().contains("activatedAt"));
    sessions.insert(SessionOf(data));
  }
  EXPECT_EQ(sessions, (std::set<std::string>{"plugin-a", "plugin-b"}));

  // The sweep reports machine-1's lease when it ends, and nothing of machine-0's again.
  EXPECT_EQ(Sweep(store(), kT0 + kTtl), 1);
  ASSERT_EQ(Released(store()).size(), 3u);
  EXPECT_EQ(MachineOf(Released(store())[2]), "machine-1");
  EXPECT_EQ(ReasonOf(Released(store())[2]), "expired");
}

TEST_P(LeaseReleaseConformance, AnAdminAndACustomerFreeReportTheLeasesWithTheirActors) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0, nullptr, "2d"), 0);  // a borrowed one too
  ASSERT_EQ(Checkout(store(), "machine-2", kT0), 0);
  Free("machine-0", kT0 + 1000, Actor::kAdmin);
  Free("machine-1", kT0 + 2000, Actor::kCustomer);
  EXPECT_EQ(Rows("machine-0") + Rows("machine-1"), 0);
  EXPECT_EQ(Rows("machine-2"), 1);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(MachineOf(released[0]), "machine-0");
  EXPECT_EQ(ReasonOf(released[0]), "deactivated");
  EXPECT_EQ(ActorOf(released[0]), "admin");
  EXPECT_EQ(MachineOf(released[1]), "machine-1");
  EXPECT_EQ(ReasonOf(released[1]), "deactivated");
  EXPECT_EQ(ActorOf(released[1]), "customer");
  EXPECT_TRUE(released[1].at("lease").at("borrowed").as_bool());
}

// An activate reclaims the stale machines under the license's lock (docs/protocol.md §10):
// their leases go with them, reported by the system, with the machine as its row was.
TEST_P(LeaseReleaseConformance, AReclaimedStaleMachineReportsItsLeasesAsTheSystem) {
  SetLicense([](licensed::License& l) { l.machine_ttl_seconds = 3600; });
  ASSERT_EQ(Checkout(store(), "machine-0", kT0, nullptr, "2d"), 0);  // live for two days
  ASSERT_EQ(Checkout(store(), "machine-1", kT0 + 2 * kHour), 0);     // seen: not stale
  ASSERT_TRUE(Run(licensed::Endpoint::kActivate, "machine-9", kT0 + 2 * kHour));
  EXPECT_EQ(Rows("machine-0"), 0);
  EXPECT_EQ(Rows("machine-1"), 1);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(MachineOf(released[0]), "machine-0");
  EXPECT_EQ(ReasonOf(released[0]), "deactivated");
  EXPECT_EQ(ActorOf(released[0]), "system");
  EXPECT_TRUE(released[0].at("lease").at("borrowed").as_bool());
  EXPECT_EQ(released[0].at("machine").at("lastSeenAt").as_string(),
            licensed::format_timestamp(kT0));
}

// Under "expiry" the machine's row stays (deactivated, its slot counted to the file's end) but
// it holds no seat; under "deactivation" the row goes. Either way each lease is reported once.
TEST_P(LeaseReleaseConformance, AnOfflineDeactivationReportsTheLeasesUnderEitherRelease) {
  ActivateOffline("studio-0", "file-0");
  ActivateOffline("studio-1", "file-1");
  ASSERT_EQ(Checkout(store(), "studio-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "studio-1", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);

  ASSERT_TRUE(DeactivateOffline("studio-0", "file-0", kT0 + 1000));  // "expiry"
  SetLicense(
      [](licensed::License& l) { l.offline_release = licensed::OfflineRelease::kDeactivation; });
  ASSERT_TRUE(DeactivateOffline("studio-1", "file-1", kT0 + 2000));
  EXPECT_EQ(Rows("studio-0") + Rows("studio-1"), 0);
  EXPECT_EQ(Rows("machine-0"), 1);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(MachineOf(released[0]), "studio-0");
  EXPECT_EQ(MachineOf(released[1]), "studio-1");
  for (const auto& data : released) {
    EXPECT_EQ(ReasonOf(data), "deactivated");
    EXPECT_EQ(ActorOf(data), "client");
    EXPECT_TRUE(data.at("machine").at("offline").as_bool());
  }
  // The row kept under "expiry" shows the deactivation.
  EXPECT_EQ(released[0].at("machine").at("deactivatedAt").as_string(),
            licensed::format_timestamp(kT0 + 1000));
}

// A lease that ended before its machine went is what the sweep would have reported: the path
// that deletes its row reports it, once, as "expired", and the sweep then finds nothing.
TEST_P(LeaseReleaseConformance, AnEndedLeaseAMachinesRemovalTakesIsReportedOnceAsExpired) {
  ASSERT_EQ(Checkout(store(), "machine-0", kT0), 0);
  ASSERT_EQ(Checkout(store(), "machine-1", kT0 + 200'000), 0);
  ASSERT_TRUE(Run(licensed::Endpoint::kDeactivate, "machine-0", kT0 + kTtl + 1000));
  EXPECT_EQ(Sweep(store(), kT0 + kTtl + 1000), 0);
  Free("machine-1", kT0 + 200'000 + kTtl, Actor::kAdmin);  // ended exactly now
  EXPECT_EQ(Sweep(store(), kT0 + kTtl + 200'000), 0);

  const auto released = Released(store());
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(MachineOf(released[0]), "machine-0");
  EXPECT_EQ(MachineOf(released[1]), "machine-1");
  for (const auto& data : released) {
    EXPECT_EQ(ReasonOf(data), "expired");
    EXPECT_EQ(ActorOf(data), "system");
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, LeaseReleaseConformance, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
