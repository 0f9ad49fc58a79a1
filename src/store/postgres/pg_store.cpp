#include "store/postgres/pg_store.h"

#include <spdlog/spdlog.h>

#include "store/postgres/pg_migrations.h"
#include "store/postgres/pg_tx.h"
#include "store/store_job.h"

namespace licensed {
namespace {

// Reads see one snapshot, as SQLite's read transactions do; writes run READ COMMITTED
// and lock the license row (see pg_store.h).
const char* begin_sql(TxKind kind) {
  return kind == TxKind::kWrite ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
}

}  // namespace

Result<std::unique_ptr<PgStore>> PgStore::open(PgStoreOptions options) {
  if (options.pool_size == 0) options.pool_size = 1;
  std::unique_ptr<PgStore> store(new PgStore(std::move(options)));
  auto first = PgConnection::open(store->options_.conninfo, store->options_.session);
  auto for_operator = [&store](Error e) {
    e.message = "cannot use PostgreSQL " + store->options_.display_url + ": " + e.message;
    return e;
  };
  if (!first.ok()) return for_operator(std::move(first.error()));
  if (auto migrated =
          migrate_postgres(*first.value(), store->options_.opening, store->options_.display_url);
      !migrated.ok()) {
    return for_operator(std::move(migrated.error()));
  }
  // The other connections open on their first job, so a CLI run costs one connection.
  store->conns_.resize(store->options_.pool_size);
  store->conns_[0] = std::move(first.value());
  store->open_connections_ = 1;
  for (size_t i = 0; i < store->options_.pool_size; ++i) {
    store->threads_.emplace_back([s = store.get(), i] { s->worker_loop(i); });
  }
  return store;
}

PgStore::~PgStore() {
  stopping_.store(true);
  {
    MutexLock lock(mu_);
    cv_.notify_all();
  }
  for (auto& t : threads_) t.join();
}

void PgStore::submit(TxKind kind, StoreJob job) {
  if (refuse_when_full(job, depth_.load(), options_.max_queued_jobs, stopping_.load(),
                       overload_log_)) {
    return;
  }
  ++depth_;
  {
    MutexLock lock(mu_);
    jobs_.emplace_back(kind, std::move(job));
  }
  cv_.notify_one();
}

std::optional<StorePoolFigures> PgStore::pool_figures() const {
  return StorePoolFigures{options_.pool_size, open_connections_.load(), busy_workers_.load()};
}

void PgStore::worker_loop(size_t index) {
  std::unique_ptr<PgConnection>& conn = conns_[index];
  std::vector<StoreJob> batch;
  for (;;) {
    TxKind kind;
    {
      MutexLock lock(mu_);
      while (jobs_.empty() && !stopping_.load()) lock.wait(cv_);
      // Drain what is queued even when stopping, so no submitted job is left unanswered.
      if (jobs_.empty()) return;
      kind = jobs_.front().first;
      const size_t max = kind == TxKind::kWrite ? options_.max_batch : 1;
      while (!jobs_.empty() && jobs_.front().first == kind && batch.size() < max) {
        batch.push_back(std::move(jobs_.front().second));
        jobs_.pop_front();
      }
    }
    const size_t taken = batch.size();
    ++busy_workers_;
    std::optional<Error> failure;
    std::vector<StoreJob> again;
    if (!ensure_connection(conn, failure)) {
      for (auto& job : batch) finish_store_job(job, failure);
    } else if (kind == TxKind::kRead) {
      run_read(*conn, batch.front());
    } else {
      again = run_writes(*conn, batch);
    }
    batch.clear();
    --busy_workers_;
    depth_ -= taken - again.size();
    if (!again.empty()) {
      MutexLock lock(mu_);
      for (auto it = again.rbegin(); it != again.rend(); ++it) {
        jobs_.emplace_front(TxKind::kWrite, std::move(*it));
      }
      cv_.notify_all();
    }
  }
}

bool PgStore::ensure_connection(std::unique_ptr<PgConnection>& conn,
                                std::optional<Error>& failure) const {
  if (conn && conn->usable()) return true;
  const bool lost = conn != nullptr;
  if (lost) --open_connections_;
  conn.reset();
  auto fresh = PgConnection::open(options_.conninfo, options_.session);
  if (!fresh.ok()) {
    failure = std::move(fresh.error());
    return false;
  }
  conn = std::move(fresh.value());
  ++open_connections_;
  if (lost) spdlog::info("store reconnected to PostgreSQL");
  return true;
}

void PgStore::run_read(PgConnection& conn, StoreJob& job) {
  // BEGIN goes with the job's first statement; a connection the server closed since its
  // last job is opened again there (see PgConnection::begin).
  auto guard = PgTxGuard::begin(conn, begin_sql(TxKind::kRead));
  PgTx tx(conn, false);
  if (run_store_job(job, tx)) {
    if (auto committed = guard->commit(); !committed.ok()) {
      finish_store_job(job, committed.error());
      return;
    }
  } else {
    guard->rollback();
  }
  finish_store_job(job, std::nullopt);
}

std::vector<StoreJob> PgStore::run_writes(PgConnection& conn, std::vector<StoreJob>& batch) {
  // Every way out of here before the COMMIT below rolls the transaction back.
  auto guard = PgTxGuard::begin(conn, begin_sql(TxKind::kWrite));
  std::vector<StoreJob> again;
  // Answered once COMMIT succeeded. The last one's final writes and RELEASE may not have
  // reached the server yet: they go with the next job's first statement (handed over).
  std::vector<StoreJob*> kept;
  // Jobs that asked to be rolled back (a refusal such as 409): answered with the kept ones,
  // since a refusal may rest on an earlier job's writes (the machines it counted), which
  // are real only once COMMIT succeeded. As on SQLite, a failed COMMIT fails them too.
  std::vector<StoreJob*> refused;
  // The transaction cannot go on: undo it all; jobs from `next` on did not run.
  auto abandon = [&](const Error& e, size_t next) {
    guard->rollback();
    for (StoreJob* job : kept) finish_store_job(*job, e);
    for (StoreJob* job : refused) finish_store_job(*job, e);
    for (size_t k = next; k < batch.size(); ++k) again.push_back(std::move(batch[k]));
    return std::move(again);
  };
  // Undoes the job whose savepoint is the open one.
  auto undo = [&conn]() -> Status {
    conn.queue("ROLLBACK TO SAVEPOINT job", "undo job");
    conn.queue("RELEASE SAVEPOINT job", "end job");
    return conn.flush();
  };
  // When the last kept job's handed-over writes failed (the pipeline stopped there, so
  // nothing after them ran), undoes that job and answers it, or queues it again when it
  // would have waited for a lock. True when it did; `broken` set when the undo failed.
  auto settle_handed_over = [&](std::optional<Error>& broken) {
    bool busy = false;
    auto failed = conn.take_handed_over_failure(busy);
    if (!failed) return false;
    StoreJob* last = kept.back();
    kept.pop_back();
    if (auto undone = undo(); !undone.ok()) broken = undone.error();
    if (busy) {
      again.push_back(std::move(*last));
    } else {
      finish_store_job(*last, failed);
    }
    return true;
  };

  std::optional<Error> broken;
  for (size_t i = 0; i < batch.size(); ++i) {
    StoreJob& job = batch[i];
    conn.queue("SAVEPOINT job", "begin job");
    PgTx tx(conn, true);
    const bool keep = run_store_job(job, tx);
    // A job that sent nothing leaves the previous one's writes waiting: send them now, so
    // that their failure is told apart from this job's.
    if (conn.has_handed_over()) (void)conn.flush();
    if (settle_handed_over(broken)) {
      // This job's statements were skipped behind the failure: it runs again.
      again.push_back(std::move(job));
      if (broken) return abandon(*broken, i + 1);
      continue;
    }
    if (keep) {
      conn.queue("RELEASE SAVEPOINT job", "end job");
      if (kept.empty()) conn.stop_waiting_for_locks();
      conn.hand_over();
      kept.push_back(&job);
      continue;
    }
    const bool busy = conn.take_lock_busy();
    if (auto undone = undo(); !undone.ok()) {
      // The job's half-done work cannot be undone alone (an activation without its
      // audit record must never commit): undo the whole transaction instead.
      if (busy) {
        again.push_back(std::move(job));
      } else {
        refused.push_back(&job);
      }
      return abandon(undone.error(), i + 1);
    }
    if (busy) {
      again.push_back(std::move(job));
    } else {
      refused.push_back(&job);  // rolled back, as it asked
    }
  }
  // The last job's writes go before COMMIT, so that their failure is that job's alone.
  if (conn.has_handed_over()) (void)conn.flush();
  if (settle_handed_over(broken) && broken) return abandon(*broken, batch.size());
  if (kept.empty()) {
    guard->rollback();
    for (StoreJob* job : refused) finish_store_job(*job, std::nullopt);
    return again;
  }
  // A COMMIT whose answer was lost may or may not have happened; 1708 tells the client
  // to retry, which every endpoint allows (activation of a known machine is a refresh).
  if (auto committed = guard->commit(); !committed.ok())
    return abandon(committed.error(), batch.size());
  for (StoreJob* job : kept) finish_store_job(*job, std::nullopt);
  for (StoreJob* job : refused) finish_store_job(*job, std::nullopt);
  return again;
}

}  // namespace licensed
