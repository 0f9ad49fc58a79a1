// What only the PostgreSQL store has to show: the license row lock with its timeout,
// reconnection after a server restart, migrations raced by two instances, and the cap
// held by two instances on one database.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <latch>
#include <memory>
#include <thread>

#include "core/operations.h"
#include "http/license_api_error.h"
#include "store/postgres/pg_migrations.h"
#include "store/store_harness.h"
#include "support/pg_server.h"

namespace bb {
namespace {

using licensed::Result;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;
constexpr const char* kKey = "0b9f6ad2-3c1e-4b8a-9d2f-5e6a7b8c9d01";

void MakeLicense(licensed::Store& store, int64_t max) {
  auto made = licensed::run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) -> licensed::Status {
    auto p = tx.insert_product("reverb", "Reverb Pro", kT0);
    if (!p.ok()) return p.error();
    licensed::NewLicense n;
    n.key = kKey;
    n.product_id = p->id;
    n.max = max;
    n.created_at = kT0;
    auto l = tx.insert_license(n);
    if (!l.ok()) return l.error();
    return licensed::Ok{};
  });
  ASSERT_TRUE(made.ok()) << made.error().message;
}

// Activates `machine` and returns the error code the client would see (0 for 200).
int Activate(licensed::Store& store, const std::string& machine) {
  licensed::LicenseRequest req;
  req.license_key = kKey;
  req.machine_id = machine;
  auto outcome = licensed::run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) {
    licensed::OperationContext ctx;
    ctx.now = kT0 + 1000;
    return licensed::activate(tx, req, ctx);
  });
  if (outcome.ok()) return 0;
  const licensed::ApiError e = outcome.error().answer_or(licensed::to_api_error);
  return e.code ? static_cast<int>(*e.code) : -1;
}

// Holds a store's only connection with a write job that waits for release(), so that
// the jobs submitted meanwhile are taken together, as one batch. The constructor returns
// once the job runs: before, a busy machine's worker could wake late and take the hold
// and only the first job submitted after it into one batch (CI saw it once).
class ConnectionHold {
 public:
  explicit ConnectionHold(licensed::Store& store) {
    auto running = std::make_shared<std::promise<void>>();
    auto running_future = running->get_future();
    store.submit(TxKind::kWrite, licensed::StoreJob{[released = released_, running](StoreTx&) {
                                                      running->set_value();
                                                      released.wait();
                                                      return true;
                                                    },
                                                    [this](const std::optional<licensed::Error>&) {
                                                      done_.set_value();
                                                    }});
    running_future.wait();
  }
  ~ConnectionHold() {
    release();
    done_future_.wait();
  }
  ConnectionHold(const ConnectionHold&) = delete;
  ConnectionHold& operator=(const ConnectionHold&) = delete;
  void release() {
    if (!released_once_) release_.set_value();
    released_once_ = true;
  }

 private:
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
  std::promise<void> done_;
  std::future<void> done_future_ = done_.get_future();
  bool released_once_ = false;
};

class PgStore : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!StoreKindAvailable("postgresql")) GTEST_SKIP() << "no test PostgreSQL server";
  }
};

TEST_F(PgStore, ALicenseRowLockedPastLockTimeoutAnswers1708AndThenResumes) {
  StoreHarness h("postgresql", {}, "?lock_timeout_ms=200");
  MakeLicense(h.store(), 5);
  PgSession other(h.pg()->url());
  other.Exec("BEGIN");
  other.Exec(std::string("SELECT id FROM licenses WHERE license_key = '") + kKey + "' FOR UPDATE");
  EXPECT_EQ(Activate(h.store(), "machine-1"), 1708);
  // Reads do not wait for the row lock.
  auto read = licensed::run_blocking(h.store(), TxKind::kRead,
                                     [](StoreTx& tx) { return tx.find_license(kKey); });
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->has_value());
  other.Exec("ROLLBACK");
  EXPECT_EQ(Activate(h.store(), "machine-1"), 0);
}

// Writes nobody reads go to the server with the transaction's next round trip (its
// COMMIT here): one that fails there still fails the job, and nothing of it is kept.
TEST_F(PgStore, AWriteThatFailsWithTheCommitFailsTheJobAndKeepsNothing) {
  StoreHarness h("postgresql");
  MakeLicense(h.store(), 5);
  auto outcome =
      licensed::run_blocking(h.store(), TxKind::kWrite, [](StoreTx& tx) -> licensed::Status {
        auto license = tx.lock_license(kKey);
        if (!license.ok()) return license.error();
        const licensed::Activation a{"machine-1", std::nullopt, kT0, kT0};
        licensed::AuditEntry e;
        e.at = kT0;
        e.action = "activate";
        e.license_key = kKey;
        // Accepted here; the second insert breaks the primary key once the server sees it.
        RETURN_IF_ERROR(tx.insert_activation(*license.value(), a));
        RETURN_IF_ERROR(tx.append_audit(e));
        return tx.insert_activation(*license.value(), a);
      });
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, licensed::StatusCode::kInternal);
  auto left = licensed::run_blocking(h.store(), TxKind::kRead, [](StoreTx& tx) {
    return tx.list_audit(kKey, licensed::AuditOrder::kOldestFirst, 0, 10);
  });
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
  EXPECT_EQ(Activate(h.store(), "machine-1"), 0);
}

// Write jobs queued together share a transaction (group commit), so two such
// transactions may want the same two license rows in opposite orders. Two instances on
// one database, each handed activations alternating between two licenses all at once:
// every activation is kept, and none waits out a deadlock (which would answer 1708).
TEST_F(PgStore, BatchedActivationsOfTwoLicensesOnTwoInstancesNeverDeadlock) {
  StoreHarness h("postgresql");
  auto second = h.OpenAnother();
  MakeLicense(h.store(), 1000);
  constexpr const char* kOtherKey = "5d0c2a4e-7f3b-4c1d-8e9a-0b1c2d3e4f50";
  auto made =
      licensed::run_blocking(h.store(), TxKind::kWrite, [&](StoreTx& tx) -> licensed::Status {
        auto product = tx.find_product("reverb");
        if (!product.ok()) return product.error();
        licensed::NewLicense n;
        n.key = kOtherKey;
        n.product_id = product.value()->id;
        n.max = 1000;
        n.created_at = kT0;
        auto l = tx.insert_license(n);
        if (!l.ok()) return l.error();
        return licensed::Ok{};
      });
  ASSERT_TRUE(made.ok()) << made.error().message;

  constexpr int kPerStore = 200;
  std::atomic<int> ok{0}, failed{0};
  std::latch answered(2 * kPerStore);
  for (int s = 0; s < 2; ++s) {
    licensed::Store& store = s == 0 ? h.store() : *second;
    for (int i = 0; i < kPerStore; ++i) {
      auto req = std::make_shared<licensed::LicenseRequest>();
      req->license_key = (i + s) % 2 == 0 ? kKey : kOtherKey;
      req->machine_id = "machine-" + std::to_string(s) + "-" + std::to_string(i);
      auto outcome =
          std::make_shared<std::optional<licensed::RequestResult<boost::json::object>>>();
      store.submit(
          TxKind::kWrite,
          licensed::StoreJob{
              [req, outcome](StoreTx& tx) {
                licensed::OperationContext ctx;
                ctx.now = kT0 + 1000;
                outcome->emplace(licensed::activate(tx, *req, ctx));
                return outcome->value().ok();
              },
              [outcome, &ok, &failed, &answered](const std::optional<licensed::Error>& failure) {
                const bool kept = !failure && outcome->has_value() && outcome->value().ok();
                (kept ? ok : failed)++;
                answered.count_down();
              }});
    }
  }
  answered.wait();
  EXPECT_EQ(ok.load(), 2 * kPerStore);
  EXPECT_EQ(failed.load(), 0);
  PgSession s(h.pg()->url());
  EXPECT_EQ(s.Exec("SELECT count(*) FROM activations"), std::to_string(2 * kPerStore));
  EXPECT_EQ(s.Exec("SELECT count(*) FROM audit_log WHERE action = 'license.activate'"),
            std::to_string(2 * kPerStore));
}

// A job's last writes go to the server with the next job's first statement. When they
// fail there, that job alone fails; the next one, whose statements were skipped, runs
// again and is kept, as is the one after it.
TEST_F(PgStore, AJobWhoseWritesFailInABatchFailsAloneAndTheNextOnesAreKept) {
  StoreHarness h("postgresql", {}, "?pool_size=1");
  MakeLicense(h.store(), 5);
  // The only connection waits until release() while the three jobs queue up behind it,
  // so that they share one batch.
  ConnectionHold hold(h.store());
  std::latch answered(3);
  std::vector<std::optional<licensed::Error>> failures(3);
  auto insert_twice = [](StoreTx& tx, const std::string& machine, int times) {
    auto license = tx.lock_license(kKey);
    if (!license.ok() || !license.value()) return false;
    const licensed::Activation a{machine, std::nullopt, kT0, kT0};
    for (int i = 0; i < times; ++i) (void)tx.insert_activation(*license.value(), a);
    return true;
  };
  const int times[] = {2, 1, 1};  // the first breaks the primary key
  for (int j = 0; j < 3; ++j) {
    const std::string machine = "machine-" + std::to_string(j);
    const int n = times[j];
    h.store().submit(
        TxKind::kWrite,
        licensed::StoreJob{
            [insert_twice, machine, n](StoreTx& tx) { return insert_twice(tx, machine, n); },
            [&failures, &answered, j](const std::optional<licensed::Error>& failure) {
              failures[j] = failure;
              answered.count_down();
            }});
  }
  hold.release();
  answered.wait();
  ASSERT_TRUE(failures[0].has_value());
  EXPECT_EQ(failures[0]->code, licensed::StatusCode::kInternal);
  EXPECT_FALSE(failures[1].has_value());
  EXPECT_FALSE(failures[2].has_value());
  PgSession s(h.pg()->url());
  EXPECT_EQ(s.Exec("SELECT string_agg(machine_id, ',' ORDER BY machine_id) FROM activations"),
            "machine-1,machine-2");
}

// A refusal in a batch may rest on an earlier job's writes: the second activation of a
// one-machine license is refused (409) because it counts the first, uncommitted one. When
// the shared COMMIT then fails, that first machine never existed, so the refusal must not
// be answered either: both jobs fail (the client retries), and the slot is free.
TEST_F(PgStore, ARefusalInABatchWhoseCommitFailsIsAnsweredWithTheFailure) {
  StoreHarness h("postgresql", {}, "?pool_size=1");
  MakeLicense(h.store(), 1);
  PgSession admin(h.pg()->url());
  // Accepted by each statement, refused by COMMIT: a deferred check on one machine id.
  admin.Exec(
      "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "IF NEW.machine_id = 'poison' THEN RAISE EXCEPTION 'refused at commit'; END IF; "
      "RETURN NEW; END $$");
  admin.Exec(
      "CREATE CONSTRAINT TRIGGER poison_at_commit AFTER INSERT ON activations DEFERRABLE "
      "INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_poison()");
  // The only connection waits until release() while the two activations queue up behind it,
  // so that they share one batch.
  ConnectionHold hold(h.store());
  std::latch answered(2);
  struct Answer {
    std::optional<licensed::Error> failure;
    std::optional<int> refusal_code;  // the operation's own error code, if it refused
  };
  std::vector<Answer> answers(2);
  const std::string machines[] = {"poison", "machine-b"};
  for (int j = 0; j < 2; ++j) {
    auto refusal = std::make_shared<std::optional<int>>();
    const std::string machine = machines[j];
    h.store().submit(
        TxKind::kWrite,
        licensed::StoreJob{
            [machine, refusal](StoreTx& tx) {
              licensed::LicenseRequest req;
              req.license_key = kKey;
              req.machine_id = machine;
              licensed::OperationContext ctx;
              ctx.now = kT0 + 1000;
              auto r = licensed::activate(tx, req, ctx);
              if (r.ok()) return true;
              if (const auto code = r.error().answer_or(licensed::to_api_error).code) {
                *refusal = static_cast<int>(*code);
              }
              return r.ok();
            },
            [&answers, &answered, refusal, j](const std::optional<licensed::Error>& failure) {
              answers[j].failure = failure;
              answers[j].refusal_code = *refusal;
              answered.count_down();
            }});
  }
  hold.release();
  answered.wait();
  // The two ran in one transaction: the second counted the first and refused.
  ASSERT_EQ(answers[1].refusal_code, std::optional<int>(1705))
      << "the jobs did not share a batch; the test shows nothing";
  EXPECT_TRUE(answers[0].failure.has_value()) << "the poisoned COMMIT was acknowledged";
  EXPECT_TRUE(answers[1].failure.has_value())
      << "a 409 was answered that counted a machine the failed COMMIT never kept";
  EXPECT_EQ(admin.Exec("SELECT count(*) FROM activations"), "0");
  EXPECT_EQ(Activate(h.store(), "machine-b"), 0) << "the slot was free all along";
}

TEST_F(PgStore, ReconnectsAfterPostgresRestartsWithoutARestartOfItsOwn) {
  PgServer server;
  auto store = licensed::open_store(server.url() + "?pool_size=3");
  ASSERT_TRUE(store.ok()) << store.error().message;
  MakeLicense(*store.value(), 10);
  // Every pooled connection has served a job before the restart.
  for (int i = 0; i < 6; ++i) EXPECT_EQ(Activate(*store.value(), "before-" + std::to_string(i)), 0);
  server.Restart();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Activate(*store.value(), "after-" + std::to_string(i)), 0);
  auto count = licensed::run_blocking(*store.value(), TxKind::kRead,
                                      [](StoreTx& tx) { return tx.find_license(kKey); });
  ASSERT_TRUE(count.ok()) << count.error().message;
}

TEST_F(PgStore, TwoInstancesStartingTogetherMigrateOnce) {
  const PgTestDatabase db(*TestPostgresUrl());
  std::vector<std::future<bool>> opened;
  for (int i = 0; i < 2; ++i) {
    opened.push_back(
        std::async(std::launch::async, [&] { return licensed::open_store(db.url()).ok(); }));
  }
  for (auto& f : opened) EXPECT_TRUE(f.get());
  PgSession s(db.url());
  // Each migration recorded once: as many rows as the list has migrations (their numbers
  // may have gaps while branches that took them are merged).
  EXPECT_EQ(s.Exec("SELECT count(*) FROM schema_migrations"),
            std::to_string(licensed::postgres_migration_count()));
  EXPECT_EQ(s.Exec("SELECT count(DISTINCT version) FROM schema_migrations"),
            s.Exec("SELECT count(*) FROM schema_migrations"));
}

// The row lock, not a single writer, keeps the cap: two stores (two licensed instances)
// on one database, 64 activations of distinct machines split across both, max 5.
TEST_F(PgStore, TheCapHoldsAcrossTwoInstancesOnOneDatabase) {
  StoreHarness h("postgresql");
  auto second = h.OpenAnother();
  MakeLicense(h.store(), 5);
  constexpr int kJobs = 64;
  std::atomic<int> ok{0}, limit{0}, other{0};
  std::latch start(1);
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      start.wait();
      licensed::Store& store = t % 2 == 0 ? h.store() : *second;
      for (int i = t; i < kJobs; i += 8) {
        const int code = Activate(store, "machine-" + std::to_string(i));
        (code == 0 ? ok : code == 1705 ? limit : other)++;
      }
    });
  }
  start.count_down();
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 5);
  EXPECT_EQ(limit.load(), kJobs - 5);
  EXPECT_EQ(other.load(), 0);
  PgSession s(h.pg()->url());
  EXPECT_EQ(s.Exec("SELECT count(*) FROM activations"), "5");
}

}  // namespace
}  // namespace bb
