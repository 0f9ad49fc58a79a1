#include "store/sqlite/sqlite_store.h"

#include <spdlog/spdlog.h>

#include "store/sqlite/sqlite_migrations.h"
#include "store/sqlite/sqlite_tx.h"

namespace licensed {
namespace {

// Runs a job's body and turns an escaped exception (bad_alloc, a bug) into a rollback;
// exceptions never cross a store thread.
bool run_job(StoreJob& job, StoreTx& tx) {
  try {
    return job.run(tx);
  } catch (const std::exception& e) {
    spdlog::error("store job failed: {}", e.what());
    return false;
  }
}

void finish(StoreJob& job, const std::optional<ApiError>& failure) {
  try {
    job.done(failure);
  } catch (const std::exception& e) {
    spdlog::error("store completion failed: {}", e.what());
  }
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(SqliteStoreOptions options) {
  const bool in_memory = options.path == ":memory:";
  if (in_memory) options.read_connections = 0;  // one connection sees the memory database
  std::unique_ptr<SqliteStore> store(new SqliteStore(options));
  ASSIGN_OR_RETURN(store->writer_conn_, SqliteConnection::open(options.path, false, true));
  auto& w = *store->writer_conn_;
  if (!in_memory) {
    // WAL lets readers run beside the writer; FULL makes every acknowledged commit
    // survive power loss, and group commit pays for the fsync.
    RETURN_IF_ERROR(w.exec("PRAGMA journal_mode=WAL"));
    RETURN_IF_ERROR(w.exec("PRAGMA synchronous=FULL"));
  }
  RETURN_IF_ERROR(w.exec("PRAGMA foreign_keys=ON"));
  RETURN_IF_ERROR(migrate_sqlite(w));
  for (size_t i = 0; i < options.read_connections; ++i) {
    ASSIGN_OR_RETURN(auto r, SqliteConnection::open(options.path, false, false));
    RETURN_IF_ERROR(r->exec("PRAGMA query_only=ON"));
    store->reader_conns_.push_back(std::move(r));
  }
  store->threads_.emplace_back([s = store.get()] { s->writer_loop(*s->writer_conn_); });
  for (auto& r : store->reader_conns_) {
    store->threads_.emplace_back([s = store.get(), c = r.get()] { s->reader_loop(*c); });
  }
  return store;
}

SqliteStore::~SqliteStore() {
  stopping_.store(true);
  for (Queue* q : {&writes_, &reads_}) {
    std::lock_guard lock(q->mu);
    q->cv.notify_all();
  }
  for (auto& t : threads_) t.join();
}

void SqliteStore::submit(TxKind kind, StoreJob job) {
  // Overload answers 1708 at once instead of growing the queue without bound.
  if (depth_.load() >= options_.max_queued_jobs || stopping_.load()) {
    finish(job, errors::unavailable(1, "the license store is overloaded"));
    return;
  }
  Queue& q = (kind == TxKind::kWrite || reader_conns_.empty()) ? writes_ : reads_;
  ++depth_;
  {
    std::lock_guard lock(q.mu);
    q.jobs.push_back(std::move(job));
  }
  q.cv.notify_one();
}

bool SqliteStore::pop_batch(Queue& q, const std::atomic<bool>& stopping, size_t max,
                            std::vector<StoreJob>& out) {
  std::unique_lock lock(q.mu);
  q.cv.wait(lock, [&] { return !q.jobs.empty() || stopping.load(); });
  // Drain what is queued even when stopping, so no submitted job is left unanswered.
  if (q.jobs.empty()) return false;
  while (!q.jobs.empty() && out.size() < max) {
    out.push_back(std::move(q.jobs.front()));
    q.jobs.pop_front();
  }
  return true;
}

void SqliteStore::writer_loop(SqliteConnection& conn) {
  std::vector<StoreJob> batch;
  while (pop_batch(writes_, stopping_, options_.max_batch, batch)) {
    commit_batch(conn, batch);
    depth_ -= batch.size();
    batch.clear();
  }
}

void SqliteStore::commit_batch(SqliteConnection& conn, std::vector<StoreJob>& batch) {
  auto fail_all = [&](const ApiError& e) {
    for (auto& job : batch) finish(job, e);
  };
  if (auto begun = conn.exec("BEGIN IMMEDIATE"); !begun.ok()) return fail_all(begun.error());
  SqliteTx tx(conn);
  for (auto& job : batch) {
    // Each job gets a savepoint so that one job's rollback leaves the others' work.
    auto sp = conn.exec("SAVEPOINT job");
    if (!sp.ok()) {
      (void)conn.exec("ROLLBACK");
      return fail_all(sp.error());
    }
    const bool keep = run_job(job, tx);
    if (!conn.in_transaction()) {
      // SQLite rolled the whole transaction back (disk full, I/O error): nothing of
      // this batch is kept, so nothing of it may be acknowledged.
      return fail_all(errors::unavailable(1, "the license store failed to write"));
    }
    if (!keep) (void)conn.exec("ROLLBACK TO job");
    (void)conn.exec("RELEASE job");
  }
  if (auto committed = conn.exec("COMMIT"); !committed.ok()) {
    if (conn.in_transaction()) (void)conn.exec("ROLLBACK");
    return fail_all(committed.error());
  }
  for (auto& job : batch) finish(job, std::nullopt);
}

void SqliteStore::reader_loop(SqliteConnection& conn) {
  std::vector<StoreJob> batch;
  while (pop_batch(reads_, stopping_, 1, batch)) {
    auto& job = batch.front();
    // A read transaction gives the job one consistent snapshot.
    if (auto begun = conn.exec("BEGIN"); !begun.ok()) {
      finish(job, begun.error());
    } else {
      SqliteTx tx(conn);
      (void)run_job(job, tx);
      (void)conn.exec(conn.in_transaction() ? "COMMIT" : "SELECT 1");
      finish(job, std::nullopt);
    }
    --depth_;
    batch.clear();
  }
}

}  // namespace licensed
