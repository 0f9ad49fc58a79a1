#include "store/sqlite/sqlite_store.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "store/sqlite/sqlite_migrations.h"
#include "store/sqlite/sqlite_tx.h"
#include "store/store_job.h"

namespace licensed {
namespace {

// A connection found unusable is opened again at most this often, so a file that stays
// read-only costs one open() per interval, not one per request.
constexpr auto kReopenInterval = std::chrono::seconds(1);
// How often the file's inode is looked at when nothing else looks (writes and /readyz do).
constexpr auto kFileWatchInterval = std::chrono::seconds(1);

// Start-up failures go to the operator's terminal, so they name the file and carry
// SQLite's and the OS's own words.
Error for_operator(Error e, const std::string& path) {
  e.message = "cannot use database " + path + ": " + e.message;
  return e;
}

}  // namespace

Result<std::unique_ptr<SqliteConnection>> SqliteStore::open_writer(bool create) const {
  ASSIGN_OR_RETURN(auto conn, SqliteConnection::open(options_.path, false, create));
  if (!in_memory()) {
    // WAL lets readers run beside the writer; FULL makes every acknowledged commit
    // survive power loss, and group commit pays for the fsync.
    RETURN_IF_ERROR(conn->exec("PRAGMA journal_mode=WAL"));
    RETURN_IF_ERROR(conn->exec("PRAGMA synchronous=FULL"));
  }
  RETURN_IF_ERROR(conn->exec("PRAGMA foreign_keys=ON"));
  return conn;
}

Result<std::unique_ptr<SqliteConnection>> SqliteStore::open_reader() const {
  ASSIGN_OR_RETURN(auto conn, SqliteConnection::open(options_.path, false, false));
  RETURN_IF_ERROR(conn->exec("PRAGMA query_only=ON"));
  return conn;
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(SqliteStoreOptions options) {
  if (options.path == ":memory:") options.read_connections = 0;  // one connection sees it
  std::unique_ptr<SqliteStore> store(new SqliteStore(options));
  const std::string& path = store->options_.path;
  const StoreOpening& opening = store->options_.opening;
  struct stat st {};
  if (!store->in_memory() && !opening.create && ::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    // A mistyped path, or a file removed by mistake, must never become an empty store
    // that answers every license "unknown key".
    return Error::not_found("store", "the store sqlite:" + path +
                                         " does not exist: create it with `licensed init "
                                         "--store sqlite:" +
                                         path + "` (or give --create)");
  }
  auto writer = store->open_writer(opening.create);
  if (!writer.ok()) return for_operator(std::move(writer.error()), path);
  store->writer_conn_ = std::move(writer.value());
  if (!opening.migrate) {
    auto state = sqlite_schema_state(*store->writer_conn_);
    if (!state.ok()) return for_operator(std::move(state.error()), path);
    if (auto refused = refuse_unmigrated(state.value(), opening, "sqlite:" + path); !refused.ok())
      return refused.error();
  }
  if (auto migrated = migrate_sqlite(*store->writer_conn_); !migrated.ok()) {
    return for_operator(std::move(migrated.error()), path);
  }
  if (auto watched = store->watch_file(); !watched.ok()) {
    return for_operator(std::move(watched.error()), path);
  }
  if (store->writer_conn_->read_only()) {
    // Reads can still be served; writes answer 1708 until the file is writable again.
    spdlog::warn(
        "store read-only: {} cannot be written by this process; writes answer 503 until it can",
        path);
  }
  for (size_t i = 0; i < options.read_connections; ++i) {
    auto reader = store->open_reader();
    if (!reader.ok()) return for_operator(std::move(reader.error()), path);
    store->reader_conns_.push_back(std::move(reader.value()));
  }
  store->threads_.emplace_back([s = store.get()] { s->writer_loop(); });
  for (size_t i = 0; i < store->reader_conns_.size(); ++i) {
    store->threads_.emplace_back([s = store.get(), i] { s->reader_loop(i); });
  }
  if (!store->in_memory()) {
    store->file_watch_ = std::make_unique<PeriodicJob>(kFileWatchInterval,
                                                       [s = store.get()] { (void)s->unusable(); });
  }
  return store;
}

Status SqliteStore::watch_file() {
  if (in_memory()) return Ok{};
  struct stat st {};
  if (::stat(options_.path.c_str(), &st) != 0) {
    return Error::internal(std::string("cannot stat it: ") + std::strerror(errno));
  }
  file_device_ = st.st_dev;
  file_inode_ = st.st_ino;
  return Ok{};
}

std::optional<std::string> SqliteStore::unusable() const {
  if (in_memory()) return std::nullopt;
  constexpr const char* kLost = "the store file was removed or replaced while serving";
  if (file_lost_.load()) return kLost;
  struct stat st {};
  const bool gone = ::stat(options_.path.c_str(), &st) != 0;
  // Another error (a directory made unreadable) says nothing about the file itself.
  if (gone && errno != ENOENT) return std::nullopt;
  if (!gone && st.st_dev == file_device_ && st.st_ino == file_inode_) return std::nullopt;
  if (!file_lost_.exchange(true)) {
    spdlog::error(
        "store file {} was {} while serving: what this server would write now would be lost at "
        "exit, so writes answer 503 and /readyz 503 from now on; put the file back (or point "
        "--store at the right one) and restart",
        options_.path, gone ? "removed" : "replaced by another file");
  }
  return kLost;
}

SqliteStore::~SqliteStore() {
  file_watch_.reset();
  stopping_.store(true);
  for (Queue* q : {&writes_, &reads_}) {
    MutexLock lock(q->mu);
    q->cv.notify_all();
  }
  for (auto& t : threads_) t.join();
}

void SqliteStore::submit(TxKind kind, StoreJob job) {
  if (refuse_when_full(job, depth_.load(), options_.max_queued_jobs, stopping_.load(),
                       overload_log_)) {
    return;
  }
  Queue& q = (kind == TxKind::kWrite || reader_conns_.empty()) ? writes_ : reads_;
  ++depth_;
  {
    MutexLock lock(q.mu);
    q.jobs.push_back(std::move(job));
  }
  q.cv.notify_one();
}

bool SqliteStore::pop_batch(Queue& q, const std::atomic<bool>& stopping, size_t max,
                            std::vector<StoreJob>& out) {
  MutexLock lock(q.mu);
  while (q.jobs.empty() && !stopping.load()) lock.wait(q.cv);
  // Drain what is queued even when stopping, so no submitted job is left unanswered.
  if (q.jobs.empty()) return false;
  while (!q.jobs.empty() && out.size() < max) {
    out.push_back(std::move(q.jobs.front()));
    q.jobs.pop_front();
  }
  return true;
}

void SqliteStore::fail_queued(Queue& q, const Error& error) {
  std::deque<StoreJob> jobs;
  {
    MutexLock lock(q.mu);
    jobs.swap(q.jobs);
  }
  for (auto& job : jobs) finish_store_job(job, error);
  depth_ -= jobs.size();
}

void SqliteStore::writer_loop() {
  std::vector<StoreJob> batch;
  while (pop_batch(writes_, stopping_, options_.max_batch, batch)) {
    if (const auto lost = unusable()) {
      // Never acknowledged: nothing written to a file no longer at the path survives.
      const Error refused = Error::unavailable("the license store is unavailable: " + *lost);
      for (auto& job : batch) finish_store_job(job, refused);
      depth_ -= batch.size();
      batch.clear();
      continue;
    }
    prepare_writer();
    const BatchOutcome outcome = commit_batch(*writer_conn_, batch);
    depth_ -= batch.size();
    batch.clear();
    // A read-only file fails each job's first write, not the batch: count that too.
    if (outcome == BatchOutcome::kCommitted && !writer_conn_->read_only()) {
      if (failed_batches_ > 0) {
        spdlog::info("store recovered: writes commit again after {} failed batch(es)",
                     failed_batches_);
        failed_batches_ = 0;
      }
    } else {
      ++failed_batches_;
    }
    if (outcome == BatchOutcome::kLocked) {
      // Everything queued behind the batch waited about as long as the busy timeout
      // and would wait that long again: answer it now, so a held lock delays a request
      // by one busy timeout or two, never by one per batch queued ahead of it.
      fail_queued(writes_, Error::unavailable("the license store is locked; retry later"));
    }
  }
}

// The writer starts every batch from a clean connection: a transaction a failed ROLLBACK
// left open is rolled back, and a connection that is read-only (SQLite opened it so
// because the file was not writable) or cannot be cleaned is replaced by a new one.
void SqliteStore::prepare_writer() {
  SqliteConnection& conn = *writer_conn_;
  conn.rollback();  // a transaction a failed ROLLBACK left open
  if (in_memory() || (!conn.in_transaction() && !conn.read_only())) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_reopen_ < kReopenInterval) return;
  last_reopen_ = now;
  auto fresh = open_writer(false);
  if (!fresh.ok()) return;  // logged by the store; the old connection answers 1708 meanwhile
  if (fresh.value()->read_only() && !conn.in_transaction()) return;
  const bool writable = !fresh.value()->read_only();
  writer_conn_ = std::move(fresh.value());
  if (writable) {
    spdlog::info("store writable: opened {} again for writing", options_.path);
    reopen_generation_.fetch_add(1);
  }
}

SqliteStore::BatchOutcome SqliteStore::commit_batch(SqliteConnection& conn,
                                                    std::vector<StoreJob>& batch) {
  auto fail_all = [&](const Error& e) {
    for (auto& job : batch) finish_store_job(job, e);
    return BatchOutcome::kFailed;
  };
  // BEGIN IMMEDIATE takes SQLite's one write lock now, for the whole batch: that lock is
  // the license row lock SqliteTx::lock_license hands out. Every return before the
  // COMMIT below rolls the batch back (the guard).
  auto guard = SqliteTxGuard::begin(conn, "BEGIN IMMEDIATE");
  if (!guard.ok()) {
    // Asked right away, SQLite still holds the code of the BEGIN that failed.
    const bool locked = classify_sqlite_failure(conn.last_error_code()) == SqliteFault::kLocked;
    fail_all(guard.error());
    return locked ? BatchOutcome::kLocked : BatchOutcome::kFailed;
  }
  // Rolls the batch back before any of its jobs hears of the failure.
  auto undo_all = [&](const Error& e) {
    guard->rollback();
    return fail_all(e);
  };
  SqliteTx tx(conn, true);
  for (auto& job : batch) {
    // Each job gets a savepoint so that one job's rollback leaves the others' work.
    if (auto sp = conn.exec("SAVEPOINT job"); !sp.ok()) return undo_all(sp.error());
    const bool keep = run_store_job(job, tx);
    if (!conn.in_transaction()) {
      // SQLite rolled the whole transaction back (disk full, I/O error): nothing of
      // this batch is kept, so nothing of it may be acknowledged.
      return undo_all(Error::unavailable("the license store failed to write"));
    }
    if ((!keep && !conn.exec("ROLLBACK TO job").ok()) || !conn.exec("RELEASE job").ok()) {
      // The job's half-done work cannot be undone alone (an activation without its
      // audit record must never commit): undo the whole batch instead.
      return undo_all(Error::unavailable("the license store failed to write"));
    }
  }
  if (auto committed = guard->commit(); !committed.ok()) {
    // Nothing is acknowledged before COMMIT succeeded; the guard rolled back, and a
    // ROLLBACK that failed too leaves the transaction to prepare_writer().
    return fail_all(committed.error());
  }
  for (auto& job : batch) finish_store_job(job, std::nullopt);
  return BatchOutcome::kCommitted;
}

void SqliteStore::reader_loop(size_t index) {
  uint64_t generation = reopen_generation_.load();
  std::vector<StoreJob> batch;
  while (pop_batch(reads_, stopping_, 1, batch)) {
    if (const uint64_t now = reopen_generation_.load(); now != generation) {
      generation = now;
      if (auto fresh = open_reader(); fresh.ok()) reader_conns_[index] = std::move(fresh.value());
    }
    SqliteConnection& conn = *reader_conns_[index];
    conn.rollback();  // a read a failed ROLLBACK left open
    auto& job = batch.front();
    // A read transaction gives the job one consistent snapshot.
    if (auto guard = SqliteTxGuard::begin(conn, "BEGIN"); !guard.ok()) {
      finish_store_job(job, guard.error());
    } else {
      SqliteTx tx(conn, false);
      (void)run_store_job(job, tx);
      // Nothing was written: a failed COMMIT changes no answer (the guard rolls back).
      if (conn.in_transaction()) (void)guard->commit();
      finish_store_job(job, std::nullopt);
    }
    --depth_;
    batch.clear();
  }
}

}  // namespace licensed
