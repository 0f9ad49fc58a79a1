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
  auto for_operator = [&store](ApiError e) {
    e.message = "cannot use PostgreSQL " + store->options_.display_url + ": " +
                (e.detail.empty() ? e.message : e.detail);
    return e;
  };
  if (!first.ok()) return for_operator(std::move(first.error()));
  if (auto migrated = migrate_postgres(*first.value()); !migrated.ok()) {
    return for_operator(std::move(migrated.error()));
  }
  // The other connections open on their first job, so a CLI run costs one connection.
  store->conns_.resize(store->options_.pool_size);
  store->conns_[0] = std::move(first.value());
  for (size_t i = 0; i < store->options_.pool_size; ++i) {
    store->threads_.emplace_back([s = store.get(), i] { s->worker_loop(i); });
  }
  return store;
}

PgStore::~PgStore() {
  stopping_.store(true);
  {
    std::lock_guard lock(mu_);
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
    std::lock_guard lock(mu_);
    jobs_.emplace_back(kind, std::move(job));
  }
  cv_.notify_one();
}

void PgStore::worker_loop(size_t index) {
  std::unique_ptr<PgConnection>& conn = conns_[index];
  for (;;) {
    std::pair<TxKind, StoreJob> next;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !jobs_.empty() || stopping_.load(); });
      // Drain what is queued even when stopping, so no submitted job is left unanswered.
      if (jobs_.empty()) return;
      next = std::move(jobs_.front());
      jobs_.pop_front();
    }
    run_in_transaction(conn, next.first, next.second);
    --depth_;
  }
}

bool PgStore::ensure_connection(std::unique_ptr<PgConnection>& conn,
                                std::optional<ApiError>& failure) {
  if (conn && conn->usable()) return true;
  const bool lost = conn != nullptr;
  conn.reset();
  auto fresh = PgConnection::open(options_.conninfo, options_.session);
  if (!fresh.ok()) {
    failure = std::move(fresh.error());
    return false;
  }
  conn = std::move(fresh.value());
  if (lost) spdlog::info("store reconnected to PostgreSQL");
  return true;
}

void PgStore::run_in_transaction(std::unique_ptr<PgConnection>& conn, TxKind kind, StoreJob& job) {
  std::optional<ApiError> failure;
  if (!ensure_connection(conn, failure)) {
    finish_store_job(job, failure);
    return;
  }
  // BEGIN goes with the job's first statement; a connection the server closed since its
  // last job is opened again there (see PgConnection::begin).
  conn->begin(begin_sql(kind));
  PgTx tx(*conn, kind == TxKind::kWrite);
  const bool keep = run_store_job(job, tx);
  if (keep) {
    // A COMMIT whose answer was lost may or may not have happened; 1708 tells the client
    // to retry, which every endpoint allows (activation of a known machine is a refresh).
    if (auto committed = conn->commit(); !committed.ok()) {
      conn->rollback();
      finish_store_job(job, committed.error());
      return;
    }
  } else {
    conn->rollback();
  }
  finish_store_job(job, std::nullopt);
}

}  // namespace licensed
