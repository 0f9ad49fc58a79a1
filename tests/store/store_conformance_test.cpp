// One contract, every Store: each test runs on SQLite and on PostgreSQL and must see the
// same behaviour from every StoreTx method, from rollback, from the queue limit, and
// from the cap under concurrent write jobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <latch>
#include <thread>
#include <type_traits>

#include "admin/admin_operations.h"
#include "core/operations.h"
#include "http/license_api_error.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Activation;
using licensed::Actor;
using licensed::AuditEntry;
using licensed::License;
using licensed::LicenseStatus;
using licensed::NewLicense;
using licensed::Result;
using licensed::Status;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;

class StoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!StoreKindAvailable(GetParam())) GTEST_SKIP() << "no test PostgreSQL server";
    harness_ = std::make_unique<StoreHarness>(GetParam());
  }
  licensed::Store& store() { return harness_->store(); }

  template <class Fn>
  auto Write(Fn&& fn) {
    return licensed::run_blocking(store(), TxKind::kWrite, std::forward<Fn>(fn));
  }
  template <class Fn>
  auto Read(Fn&& fn) {
    return licensed::run_blocking(store(), TxKind::kRead, std::forward<Fn>(fn));
  }

  // A product "reverb" and one license on it.
  License MakeLicense(int64_t max, std::optional<int64_t> ttl = std::nullopt,
                      const std::string& key = "0b9f6ad2-3c1e-4b8a-9d2f-5e6a7b8c9d01") {
    auto made = Write([&](StoreTx& tx) -> Result<License> {
      auto product = tx.find_product("reverb");
      if (!product.ok()) return product.error();
      int64_t product_id = 0;
      if (product.value()) {
        product_id = product.value()->id;
      } else {
        auto inserted = tx.insert_product("reverb", "Reverb Pro", kT0);
        if (!inserted.ok()) return inserted.error();
        product_id = inserted->id;
      }
      NewLicense n;
      n.key = key;
      n.product_id = product_id;
      n.max = max;
      n.machine_ttl_seconds = ttl;
      n.created_at = kT0;
      return tx.insert_license(n);
    });
    EXPECT_TRUE(made.ok()) << made.error().message;
    return made.ok() ? made.value() : License{};
  }

  std::unique_ptr<StoreHarness> harness_;
};

TEST_P(StoreConformance, ProductsAreInsertedFoundAndListedBySlug) {
  auto made = Write([](StoreTx& tx) -> Result<std::vector<licensed::Product>> {
    for (const char* slug : {"zeta", "alpha", "Mid"}) {
      auto p = tx.insert_product(slug, std::string("Name of ") + slug, kT0);
      if (!p.ok()) return p.error();
    }
    return tx.list_products();
  });
  ASSERT_TRUE(made.ok()) << made.error().message;
  ASSERT_EQ(made->size(), 3u);
  // Byte order, as SQLite sorts: upper case before lower case.
  EXPECT_EQ(made.value()[0].slug, "Mid");
  EXPECT_EQ(made.value()[1].slug, "alpha");
  EXPECT_EQ(made.value()[2].slug, "zeta");
  auto found = Read([](StoreTx& tx) { return tx.find_product("alpha"); });
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(found.value()->name, "Name of alpha");
  EXPECT_EQ(found.value()->id, made.value()[1].id);
  auto missing = Read([](StoreTx& tx) { return tx.find_product("nope"); });
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(StoreConformance, LicensesRoundTripEveryField) {
  const License made = MakeLicense(3, 3600);
  EXPECT_GT(made.id, 0);
  EXPECT_EQ(made.status, LicenseStatus::kActive);
  EXPECT_EQ(made.max, 3);
  EXPECT_EQ(made.machine_ttl_seconds, 3600);
  EXPECT_EQ(made.created_at, kT0);
  EXPECT_FALSE(made.expires_at.has_value());
  EXPECT_FALSE(made.deleted_at.has_value());
  EXPECT_EQ(made.product.slug, "reverb");
  EXPECT_EQ(made.product.name, "Reverb Pro");

  License changed = made;
  changed.status = LicenseStatus::kSuspended;
  changed.max = 7;
  changed.expires_at = kT0 + 1000;
  changed.machine_ttl_seconds.reset();
  changed.deleted_at = kT0 + 2000;
  auto updated = Write([&](StoreTx& tx) { return tx.update_license(changed); });
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  for (TxKind kind : {TxKind::kRead, TxKind::kWrite}) {
    auto found = licensed::run_blocking(store(), kind,
                                        [&](StoreTx& tx) { return tx.find_license(made.key); });
    ASSERT_TRUE(found.ok()) << found.error().message;
    ASSERT_TRUE(found->has_value());
    const License& l = *found.value();
    EXPECT_EQ(l.id, made.id);
    EXPECT_EQ(l.status, LicenseStatus::kSuspended);
    EXPECT_EQ(l.max, 7);
    EXPECT_EQ(l.expires_at, kT0 + 1000);
    EXPECT_FALSE(l.machine_ttl_seconds.has_value());
    EXPECT_EQ(l.deleted_at, kT0 + 2000);
    EXPECT_EQ(l.product.id, made.product.id);
  }
  auto missing = Read([](StoreTx& tx) { return tx.find_license("no-such-key"); });
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(StoreConformance, ActivationsAreCountedListedUpdatedAndDeleted) {
  const License l = MakeLicense(10);
  auto written = Write([&](StoreTx& tx) -> Status {
    ASSIGN_OR_RETURN(auto locked, tx.lock_license(l.key));
    for (int i = 0; i < 4; ++i) {
      Activation a{"machine-" + std::to_string(i),
                   i == 0 ? std::nullopt
                          : std::optional<std::string>("Studio \xc3\xa9 " + std::to_string(i)),
                   kT0 + i, kT0 + 100 * i};
      if (auto s = tx.insert_activation(*locked, a); !s.ok()) return s;
    }
    return licensed::Ok{};
  });
  ASSERT_TRUE(written.ok()) << written.error().message;

  auto all = Read([&](StoreTx& tx) {
    return tx.count_activations(l.id, licensed::Freshness{std::nullopt, kT0});
  });
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.value(), 4);
  auto recent = Read([&](StoreTx& tx) {
    return tx.count_activations(l.id, licensed::Freshness{kT0 + 200, kT0});
  });
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent.value(), 2);

  auto listed = Read([&](StoreTx& tx) { return tx.list_activations(l.id); });
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 4u);
  EXPECT_EQ(listed.value()[0].machine_id, "machine-0");
  EXPECT_FALSE(listed.value()[0].machine_name.has_value());
  EXPECT_EQ(listed.value()[2].machine_name, "Studio \xc3\xa9 2");
  EXPECT_EQ(listed.value()[3].activated_at, kT0 + 3);
  EXPECT_EQ(listed.value()[3].last_seen_at, kT0 + 300);

  auto updated = Write([&](StoreTx& tx) {
    return tx.update_activation(l.id, Activation{"machine-1", std::nullopt, 0, kT0 + 999});
  });
  ASSERT_TRUE(updated.ok());
  auto found = Read([&](StoreTx& tx) { return tx.find_activation(l.id, "machine-1"); });
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_FALSE(found.value()->machine_name.has_value());
  EXPECT_EQ(found.value()->last_seen_at, kT0 + 999);
  EXPECT_EQ(found.value()->activated_at, kT0 + 1);  // not written by update_activation

  // machine-0 (seen at kT0) and machine-2 (kT0+200) are stale before kT0+250; machine-1
  // (kT0+999) and machine-3 are not.
  auto reclaimed = Write([&](StoreTx& tx) -> Result<std::vector<std::string>> {
    ASSIGN_OR_RETURN(auto locked, tx.lock_license(l.key));
    return tx.delete_stale_activations(*locked, licensed::Freshness{kT0 + 250, kT0});
  });
  ASSERT_TRUE(reclaimed.ok());
  std::vector<std::string> ids = reclaimed.value();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"machine-0", "machine-2"}));

  const auto remove_machine_3 = [&](StoreTx& tx) -> Result<bool> {
    ASSIGN_OR_RETURN(auto locked, tx.lock_license(l.key));
    return tx.delete_activation(*locked, "machine-3", kT0 + 300, licensed::Actor::kClient);
  };
  auto deleted = Write(remove_machine_3);
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(deleted.value());
  auto again = Write(remove_machine_3);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again.value());
  auto none = Read([&](StoreTx& tx) { return tx.find_activation(l.id, "machine-3"); });
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto left = Read([&](StoreTx& tx) {
    return tx.count_activations(l.id, licensed::Freshness{std::nullopt, kT0});
  });
  EXPECT_EQ(left.value(), 1);  // machine-1
}

TEST_P(StoreConformance, AuditRecordsKeepEveryFieldInOrderPerLicense) {
  auto appended = Write([](StoreTx& tx) -> Status {
    for (int i = 0; i < 5; ++i) {
      AuditEntry e;
      e.at = kT0 + i;
      e.action = "license.activate";
      e.license_key = i % 2 == 0 ? "key-a" : "key-b";
      if (i != 0) e.machine_id = "m" + std::to_string(i);
      e.refresh = i == 2;
      e.actor = i == 4 ? Actor::kAdmin : Actor::kClient;
      if (i == 4) e.actor_name = "ops";
      if (i != 4) e.ip = "203.0.113.7";
      e.key_id = i == 4 ? std::nullopt : std::optional<std::string>("plugin-2026");
      e.request_id = "req-" + std::to_string(i);
      if (auto s = tx.append_audit(e); !s.ok()) return s;
    }
    return licensed::Ok{};
  });
  ASSERT_TRUE(appended.ok()) << appended.error().message;
  auto a = Read([](StoreTx& tx) {
    return tx.list_audit("key-a", licensed::AuditOrder::kOldestFirst, 0, 100);
  });
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 3u);
  EXPECT_LT(a.value()[0].id, a.value()[1].id);
  EXPECT_EQ(a.value()[0].at, kT0);
  EXPECT_FALSE(a.value()[0].machine_id.has_value());
  EXPECT_FALSE(a.value()[0].refresh);
  EXPECT_TRUE(a.value()[1].refresh);
  EXPECT_EQ(a.value()[1].machine_id, "m2");
  EXPECT_EQ(a.value()[1].ip, "203.0.113.7");
  EXPECT_EQ(a.value()[1].key_id, "plugin-2026");
  EXPECT_EQ(a.value()[1].request_id, "req-2");
  EXPECT_EQ(a.value()[1].actor, Actor::kClient);
  EXPECT_EQ(a.value()[2].actor, Actor::kAdmin);
  EXPECT_EQ(a.value()[2].actor_name, "ops");
  EXPECT_FALSE(a.value()[2].ip.has_value());
  EXPECT_FALSE(a.value()[2].key_id.has_value());
  auto page = Read([&](StoreTx& tx) {
    return tx.list_audit("key-a", licensed::AuditOrder::kOldestFirst, a.value()[0].id, 1);
  });
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 1u);
  EXPECT_EQ(page.value()[0].id, a.value()[1].id);
  auto b = Read([](StoreTx& tx) {
    return tx.list_audit("key-b", licensed::AuditOrder::kOldestFirst, 0, 100);
  });
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->size(), 2u);
}

TEST_P(StoreConformance, AuditPagesRunNewestFirstFromTheCursorWithinOneLicense) {
  std::vector<std::string> keys;  // 8 of key-a between 4 of key-b
  for (int i = 0; i < 12; ++i) keys.push_back(i % 3 == 0 ? "key-b" : "key-a");
  auto appended = Write([&](StoreTx& tx) -> Status {
    for (const std::string& key : keys) {
      AuditEntry e;
      e.at = kT0;
      e.action = "license.activate";
      e.license_key = key;
      e.actor = Actor::kClient;
      if (auto s = tx.append_audit(e); !s.ok()) return s;
    }
    return licensed::Ok{};
  });
  ASSERT_TRUE(appended.ok()) << appended.error().message;
  constexpr auto kNewest = licensed::AuditOrder::kNewestFirst;
  std::vector<int64_t> seen;
  int64_t past = 0;  // from the newest
  for (int pages = 0; pages < 10; ++pages) {
    auto page = Read([&](StoreTx& tx) { return tx.list_audit("key-a", kNewest, past, 3); });
    ASSERT_TRUE(page.ok());
    for (const AuditEntry& e : page.value()) {
      EXPECT_EQ(e.license_key, "key-a");
      seen.push_back(e.id);
    }
    if (page->size() < 3) break;
    past = page->back().id;
  }
  ASSERT_EQ(seen.size(), 8u);
  EXPECT_TRUE(std::is_sorted(seen.rbegin(), seen.rend()));
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  // The same records oldest first, in the opposite order.
  auto oldest = Read([](StoreTx& tx) {
    return tx.list_audit("key-a", licensed::AuditOrder::kOldestFirst, 0, 100);
  });
  ASSERT_TRUE(oldest.ok());
  ASSERT_EQ(oldest->size(), 8u);
  EXPECT_EQ(oldest->front().id, seen.back());
  EXPECT_EQ(oldest->back().id, seen.front());
}

TEST_P(StoreConformance, NoncesAreRememberedReplacedLoadedAndPurged) {
  auto kept = Write([](StoreTx& tx) -> Status {
    if (auto s = tx.remember_nonce("k", "n1", kT0 + 10); !s.ok()) return s;
    if (auto s = tx.remember_nonce("k", "n2", kT0 + 20); !s.ok()) return s;
    if (auto s = tx.remember_nonce("other", "n1", kT0 + 5); !s.ok()) return s;
    return tx.remember_nonce("k", "n1", kT0 + 30);  // the same nonce again: replaced
  });
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  auto loaded = Read([](StoreTx& tx) { return tx.load_nonces(kT0 + 5); });
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 2u);
  for (const auto& n : loaded.value()) {
    EXPECT_EQ(n.key_id, "k");
    EXPECT_EQ(n.expires_at, n.nonce == "n1" ? kT0 + 30 : kT0 + 20);
  }
  ASSERT_TRUE(Write([](StoreTx& tx) { return tx.purge_nonces(kT0 + 20); }).ok());
  auto after = Read([](StoreTx& tx) { return tx.load_nonces(0); });
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ(after.value()[0].nonce, "n1");
}

TEST_P(StoreConformance, ResponseKeysAreFoundOldestFirst) {
  auto none = Read([](StoreTx& tx) { return tx.find_response_keys(); });
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(Write([](StoreTx& tx) { return tx.insert_response_key("first pem", kT0); }).ok());
  ASSERT_TRUE(Write([](StoreTx& tx) { return tx.insert_response_key("second pem", kT0); }).ok());
  for (TxKind kind : {TxKind::kRead, TxKind::kWrite}) {
    auto found =
        licensed::run_blocking(store(), kind, [](StoreTx& tx) { return tx.find_response_keys(); });
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_EQ(found.value(), (std::vector<std::string>{"first pem", "second pem"}));
  }
}

// Only a store makes a LockedLicense (lock_license), and it cannot be copied out of the
// transaction that holds the lock.
static_assert(!std::is_constructible_v<licensed::LockedLicense, License>);
static_assert(!std::is_copy_constructible_v<licensed::LockedLicense>);

TEST_P(StoreConformance, LockingALicenseInAWriteTransactionReadsItsRow) {
  const License l = MakeLicense(3);
  auto locked = Write([&](StoreTx& tx) -> Result<License> {
    ASSIGN_OR_RETURN(auto found, tx.lock_license(l.key));
    if (!found) return licensed::Error::not_found(licensed::subjects::kLicenseKey, "no row");
    return found->license();
  });
  ASSERT_TRUE(locked.ok()) << locked.error().message;
  EXPECT_EQ(locked->id, l.id);
  EXPECT_EQ(locked->max, 3);
  EXPECT_EQ(locked->product.slug, "reverb");
}

TEST_P(StoreConformance, LockingAnUnknownLicenseFindsNothing) {
  auto locked = Write([](StoreTx& tx) -> Result<bool> {
    ASSIGN_OR_RETURN(auto found, tx.lock_license("no-such-key"));
    return found.has_value();
  });
  ASSERT_TRUE(locked.ok());
  EXPECT_FALSE(locked.value());
}

// The cap's count and insert need the lock; a read transaction cannot hand one out.
TEST_P(StoreConformance, ALicenseCannotBeLockedInAReadTransaction) {
  const License l = MakeLicense(3);
  auto locked = Read([&](StoreTx& tx) -> Result<bool> {
    ASSIGN_OR_RETURN(auto found, tx.lock_license(l.key));
    return found.has_value();
  });
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().code, licensed::StatusCode::kInternal);
}

TEST_P(StoreConformance, AJobThatReturnsFalseLeavesNothingBehind) {
  const License l = MakeLicense(5);
  std::promise<std::optional<licensed::Error>> done;
  store().submit(TxKind::kWrite,
                 licensed::StoreJob{
                     [&](StoreTx& tx) {
                       auto locked = tx.lock_license(l.key);
                       (void)tx.insert_activation(*locked.value(), Activation{"m", {}, kT0, kT0});
                       return false;
                     },
                     [&](const std::optional<licensed::Error>& f) { done.set_value(f); }});
  EXPECT_FALSE(done.get_future().get().has_value());
  auto count = Read([&](StoreTx& tx) {
    return tx.count_activations(l.id, licensed::Freshness{std::nullopt, kT0});
  });
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count.value(), 0);
}

TEST_P(StoreConformance, AFullQueueAnswers1708AtOnce) {
  harness_.reset();
  harness_ = std::make_unique<StoreHarness>(GetParam(), licensed::StoreLimits{1});
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_done;
  store().submit(TxKind::kWrite, licensed::StoreJob{[released](StoreTx&) {
                                                      released.wait();
                                                      return true;
                                                    },
                                                    [&](const std::optional<licensed::Error>&) {
                                                      first_done.set_value();
                                                    }});
  std::optional<licensed::Error> refusal;
  store().submit(TxKind::kRead,
                 licensed::StoreJob{[](StoreTx&) { return true; },
                                    [&](const std::optional<licensed::Error>& f) { refusal = f; }});
  // The refusal is answered inside submit(), before the first job is released.
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, licensed::StatusCode::kUnavailable);
  release.set_value();
  first_done.get_future().wait();
}

// /metrics' licensed_store_errors_total: a job the queue refused counts as queue_full,
// a job whose work met a fault that passes as unavailable, one that met a bug as
// internal; the work's own refusals (not found, conflict) and successes count nothing.
TEST_P(StoreConformance, JobsThatFailAreCountedByKindAndRefusalsAreNot) {
  using licensed::StoreFailureKind;
  auto counts = [this] {
    return std::array<uint64_t, 3>{store().failures(StoreFailureKind::kUnavailable),
                                   store().failures(StoreFailureKind::kInternal),
                                   store().failures(StoreFailureKind::kQueueFull)};
  };
  EXPECT_EQ(counts(), (std::array<uint64_t, 3>{0, 0, 0}));
  ASSERT_TRUE(Write([](StoreTx&) -> Status { return licensed::Ok{}; }).ok());
  EXPECT_FALSE(Write([](StoreTx&) -> Status {
                 return licensed::Error::not_found("licenseKey", "no such license");
               }).ok());
  EXPECT_EQ(counts(), (std::array<uint64_t, 3>{0, 0, 0})) << "a refusal is no store failure";
  EXPECT_FALSE(
      Write([](StoreTx&) -> Status { return licensed::Error::unavailable("locked"); }).ok());
  EXPECT_FALSE(Read([](StoreTx&) -> Status { return licensed::Error::internal("bad SQL"); }).ok());
  EXPECT_EQ(counts(), (std::array<uint64_t, 3>{1, 1, 0}));

  // With one job running, a second one is refused by the full queue (limit 1). (A store
  // of its own: a job's place in the queue is given back just after it is answered.)
  harness_.reset();
  harness_ = std::make_unique<StoreHarness>(GetParam(), licensed::StoreLimits{1});
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_done;
  licensed::submit_call<licensed::Ok>(
      store(), TxKind::kWrite,
      [released](StoreTx&) -> Status {
        released.wait();
        return licensed::Ok{};
      },
      [&first_done](const Status&) { first_done.set_value(); });
  std::optional<Status> refused;
  licensed::submit_call<licensed::Ok>(
      store(), TxKind::kRead, [](StoreTx&) -> Status { return licensed::Ok{}; },
      [&refused](Status s) { refused = std::move(s); });
  ASSERT_TRUE(refused.has_value());
  EXPECT_FALSE(refused->ok());
  release.set_value();
  first_done.get_future().wait();
  EXPECT_EQ(counts(), (std::array<uint64_t, 3>{0, 0, 1}));
}

// /metrics' licensed_store_pool_*: PostgreSQL tells its pool's size, connections open
// and in use; SQLite has no pool and tells nothing.
TEST_P(StoreConformance, OnlyAPoolOfConnectionsHasPoolFigures) {
  harness_.reset();
  harness_ = std::make_unique<StoreHarness>(GetParam(), licensed::StoreLimits{100, 3});
  if (GetParam() == "sqlite") {
    EXPECT_FALSE(store().pool_figures().has_value());
    return;
  }
  auto idle = store().pool_figures();
  ASSERT_TRUE(idle.has_value());
  EXPECT_EQ(idle->size, 3u);
  EXPECT_GE(idle->open, 1u);  // the first connection opens with the store
  EXPECT_EQ(idle->in_use, 0u);
  // Three jobs held at once make every connection open and in use.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch running(3);
  std::vector<std::future<Status>> jobs;
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(std::async(std::launch::async, [&] {
      return Read([&](StoreTx&) -> Status {
        running.count_down();
        released.wait();
        return licensed::Ok{};
      });
    }));
  }
  running.wait();
  const auto busy = store().pool_figures();
  release.set_value();
  for (auto& j : jobs) EXPECT_TRUE(j.get().ok());
  ASSERT_TRUE(busy.has_value());
  EXPECT_EQ(busy->open, 3u);
  EXPECT_EQ(busy->in_use, 3u);
  // A worker counts itself free just after answering its job: wait a moment for it.
  auto after = store().pool_figures();
  for (int i = 0; i < 200 && after->in_use != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    after = store().pool_figures();
  }
  EXPECT_EQ(after->open, 3u);
  EXPECT_EQ(after->in_use, 0u);
}

// 64 activations of distinct machines at once on a license of 5: exactly 5 succeed,
// whatever the store's concurrency (one SQLite writer, or a pool of PostgreSQL
// connections each with its own transaction).
TEST_P(StoreConformance, TheCapHoldsUnderConcurrentWriteJobs) {
  const License l = MakeLicense(5);
  constexpr int kJobs = 64;
  std::atomic<int> ok{0}, limit{0}, other{0};
  std::latch finished(kJobs);
  std::vector<std::thread> submitters;
  std::latch start(1);
  for (int t = 0; t < 4; ++t) {
    submitters.emplace_back([&, t] {
      start.wait();
      for (int i = t; i < kJobs; i += 4) {
        auto req = std::make_shared<licensed::LicenseRequest>();
        req->license_key = l.key;
        req->machine_id = "machine-" + std::to_string(i);
        auto outcome =
            std::make_shared<std::optional<licensed::RequestResult<boost::json::object>>>();
        store().submit(
            TxKind::kWrite,
            licensed::StoreJob{
                [req, outcome](StoreTx& tx) {
                  licensed::OperationContext ctx;
                  ctx.now = kT0 + 5000;
                  outcome->emplace(licensed::activate(tx, *req, ctx));
                  return !licensed::must_roll_back(**outcome);
                },
                [&, outcome](const std::optional<licensed::Error>& f) {
                  if (!f && outcome->has_value() && (*outcome)->ok()) {
                    ++ok;
                  } else if (!f && outcome->has_value() &&
                             (*outcome)->error().answer_or(licensed::to_api_error).code ==
                                 licensed::ErrorCode::kLimitReached) {
                    ++limit;
                  } else {
                    ++other;
                  }
                  finished.count_down();
                }});
      }
    });
  }
  start.count_down();
  for (auto& t : submitters) t.join();
  finished.wait();
  EXPECT_EQ(ok.load(), 5);
  EXPECT_EQ(limit.load(), kJobs - 5);
  EXPECT_EQ(other.load(), 0);
  auto count = Read([&](StoreTx& tx) {
    return tx.count_activations(l.id, licensed::Freshness{std::nullopt, kT0});
  });
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count.value(), 5);
  auto audit = Read([&](StoreTx& tx) {
    return tx.list_audit(l.key, licensed::AuditOrder::kOldestFirst, 0, 1000);
  });
  ASSERT_TRUE(audit.ok());
  EXPECT_EQ(audit->size(), 5u);  // one record per acknowledged activation, none for refusals
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreConformance, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bb
