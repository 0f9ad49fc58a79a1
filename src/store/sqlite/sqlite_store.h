// The embedded store: one writer thread that commits queued write jobs together (group
// commit), and a small pool of read connections that WAL lets run beside it.
//
// Faults (a lock held by another process, a full disk, a read-only file) answer 1708 and
// pass by themselves: SQLite rolls back what failed, the writer starts every batch from a
// clean connection, and a connection SQLite opened read-only (the file was not writable)
// is opened again once the file is.
//
// A file removed or replaced under the running store (`rm`, a `mv` of another file over
// it) is noticed by its inode, before every write batch, at every /readyz and once a
// second: writes then answer 1708 until a restart, since nothing written to the old
// inode would survive the process (issue 24 item 1).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/log_throttle.h"
#include "core/mutex.h"
#include "core/periodic_job.h"
#include "store/migration.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/store.h"

namespace licensed {

struct SqliteStoreOptions {
  std::string path;             // a file path, or ":memory:"
  size_t read_connections = 2;  // 0: reads run on the writer
  // Jobs queued or running at most; more answer 1708 at once. Each waiting request holds
  // a connection anyway, so this bounds latency more than memory.
  size_t max_queued_jobs = 10000;
  size_t max_batch = 128;  // write jobs committed in one transaction at most
  StoreOpening opening;    // create the file? migrate it? (store/migration.h)
};

class SqliteStore final : public Store {
 public:
  // Opens, migrates and starts the threads. Refuses a file that is not a usable database,
  // with a message for the operator that names the file and the reason.
  static Result<std::unique_ptr<SqliteStore>> open(SqliteStoreOptions options);
  ~SqliteStore() override;

  void submit(TxKind kind, StoreJob job) override;
  size_t queue_depth() const override { return depth_.load(); }
  std::optional<std::string> unusable() const override;

 private:
  struct Queue {
    Mutex mu;
    std::condition_variable cv;
    std::deque<StoreJob> jobs GUARDED_BY(mu);
  };
  enum class BatchOutcome { kCommitted, kFailed, kLocked };

  explicit SqliteStore(SqliteStoreOptions options) : options_(std::move(options)) {}
  bool in_memory() const { return options_.path == ":memory:"; }
  Result<std::unique_ptr<SqliteConnection>> open_writer(bool create) const;
  Result<std::unique_ptr<SqliteConnection>> open_reader() const;
  void writer_loop();
  void reader_loop(size_t index);
  void prepare_writer();
  BatchOutcome commit_batch(SqliteConnection& conn, std::vector<StoreJob>& batch);
  void fail_queued(Queue& q, const Error& error);
  // Records the inode of the file as opened, and watches it from then on.
  Status watch_file();
  static bool pop_batch(Queue& q, const std::atomic<bool>& stopping, size_t max,
                        std::vector<StoreJob>& out);

  SqliteStoreOptions options_;
  std::unique_ptr<SqliteConnection> writer_conn_;  // the writer thread's alone once started
  std::vector<std::unique_ptr<SqliteConnection>> reader_conns_;  // one per reader thread
  Queue writes_;
  Queue reads_;
  std::atomic<size_t> depth_{0};
  std::atomic<bool> stopping_{false};
  // Bumped when the writer found the file writable again: readers then open theirs
  // again too, since SQLite opened them read-only along with the writer.
  std::atomic<uint64_t> reopen_generation_{0};
  std::chrono::steady_clock::time_point last_reopen_{};  // writer thread only
  uint64_t failed_batches_ = 0;                          // writer thread only
  LogThrottle overload_log_;
  // The file as opened (device, inode); set once before the threads start.
  dev_t file_device_ = 0;
  ino_t file_inode_ = 0;
  mutable std::atomic<bool> file_lost_{false};
  std::vector<std::thread> threads_;
  std::unique_ptr<PeriodicJob> file_watch_;  // last: stopped first
};

}  // namespace licensed
