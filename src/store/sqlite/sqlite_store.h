// The embedded store: one writer thread that commits queued write jobs together (group
// commit), and a small pool of read connections that WAL lets run beside it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite/sqlite_connection.h"
#include "store/store.h"

namespace licensed {

struct SqliteStoreOptions {
  std::string path;             // a file path, or ":memory:"
  size_t read_connections = 2;  // 0: reads run on the writer
  size_t max_queued_jobs = 10000;
  size_t max_batch = 128;  // write jobs committed in one transaction at most
};

class SqliteStore final : public Store {
 public:
  // Opens, migrates and starts the threads. Refuses a file that is not a usable database.
  static Result<std::unique_ptr<SqliteStore>> open(SqliteStoreOptions options);
  ~SqliteStore() override;

  void submit(TxKind kind, StoreJob job) override;
  size_t queue_depth() const override { return depth_.load(); }

 private:
  struct Queue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<StoreJob> jobs;
  };

  explicit SqliteStore(SqliteStoreOptions options) : options_(std::move(options)) {}
  void writer_loop(SqliteConnection& conn);
  void reader_loop(SqliteConnection& conn);
  void commit_batch(SqliteConnection& conn, std::vector<StoreJob>& batch);
  static bool pop_batch(Queue& q, const std::atomic<bool>& stopping, size_t max,
                        std::vector<StoreJob>& out);

  SqliteStoreOptions options_;
  std::unique_ptr<SqliteConnection> writer_conn_;
  std::vector<std::unique_ptr<SqliteConnection>> reader_conns_;
  Queue writes_;
  Queue reads_;
  std::atomic<size_t> depth_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

}  // namespace licensed
