// The PostgreSQL store (`--store postgresql://...`): a pool of connections, each with its
// own thread, serving one bounded queue of jobs; every job runs in its own transaction.
//
// Why the cap stays exact with many writers (here and across licensed instances):
// every write job that reads or changes a license's activations first runs lock_license
// (activate, whose count and insert require its LockedLicense) or find_license, each of
// which in a write transaction is SELECT ... FOR UPDATE on the license row. Concurrent
// jobs for one license therefore queue on that row lock; the next one gets the lock only
// after the previous one committed or rolled back. Under READ COMMITTED each statement
// sees everything committed before it started, so the count of activations a job makes
// after getting the lock includes every activation committed by the jobs ahead of it:
// the check-then-insert is serial per license, as the single SQLite writer makes it,
// while jobs for different licenses run in parallel. SERIALIZABLE would add retries
// without adding safety.
//
// Group commit: write jobs queued together run in one transaction, a savepoint each (as
// the SQLite writer runs them), so that many activations share one COMMIT and one WAL
// flush. Row locks are then held by a transaction running several jobs, which could
// deadlock with another such transaction (here or in another instance) locking the same
// licenses in the other order. So only a transaction's first job waits for a lock; once
// it holds some, its later jobs do not wait (PgConnection::stop_waiting_for_locks), and
// a job that would have waited is undone to its savepoint and queued again to start a
// transaction of its own. A waiting transaction then never holds a lock: no cycle.
// A job's last writes and RELEASE go with the next job's first statement; when they fail
// there, that job alone is undone and answered, and the next one runs again.
//
// Faults answer 1708 and pass by themselves: a row lock held past lock_timeout, a
// statement past statement_timeout, a lost connection (the job's transaction is gone;
// the connection is opened again for the next job, so a PostgreSQL restart needs no
// restart of licensed).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/log_throttle.h"
#include "core/mutex.h"
#include "store/migration.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace licensed {

struct PgStoreOptions {
  std::string conninfo;     // a libpq URL without licensed's own parameters
  std::string display_url;  // the URL as given, password masked: for the operator
  size_t pool_size = 8;     // connections (and threads) at most
  PgSessionSettings session;
  size_t max_queued_jobs = 10000;  // as StoreLimits
  StoreOpening opening;            // create the schema? migrate it? (store/migration.h)
  // Write jobs in one transaction at most. Each is a subtransaction: PostgreSQL keeps 64
  // of them per transaction cheaply, more spill to pg_subtrans.
  size_t max_batch = 16;
};

class PgStore final : public Store {
 public:
  // Connects, migrates and starts the threads. Refuses a database it cannot reach or
  // migrate, with a message for the operator (the password never appears).
  static Result<std::unique_ptr<PgStore>> open(PgStoreOptions options);
  ~PgStore() override;

  void submit(TxKind kind, StoreJob job) override;
  size_t queue_depth() const override { return depth_.load(); }
  std::optional<StorePoolFigures> pool_figures() const override;

 private:
  explicit PgStore(PgStoreOptions options) : options_(std::move(options)) {}
  void worker_loop(size_t index);
  void run_read(PgConnection& conn, StoreJob& job);
  // Runs write jobs in one transaction and answers them; returns those that would have
  // waited for a lock, to be queued again.
  std::vector<StoreJob> run_writes(PgConnection& conn, std::vector<StoreJob>& batch);
  // A usable connection in `conn`, opened again when it was lost; false (and `failure`
  // set) when the server cannot be reached.
  bool ensure_connection(std::unique_ptr<PgConnection>& conn, std::optional<Error>& failure) const;

  PgStoreOptions options_;
  Mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<TxKind, StoreJob>> jobs_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<PgConnection>> conns_;  // one per worker, that worker's alone
  std::atomic<size_t> depth_{0};
  // The pool's figures for /metrics, kept by the workers as they open connections and
  // take jobs (conns_ itself is each worker's alone).
  mutable std::atomic<size_t> open_connections_{0};
  std::atomic<size_t> busy_workers_{0};
  std::atomic<bool> stopping_{false};
  LogThrottle overload_log_;
  std::vector<std::thread> threads_;
};

}  // namespace licensed
