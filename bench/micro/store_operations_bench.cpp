// Step 10, the operations (src/core/operations.h) on a SQLite file opened as the
// server opens it (WAL, synchronous=FULL). Writes run as the writer thread runs them:
// each in a savepoint, kBatch of them per transaction (group commit), so the figures
// include the commit's fsync shared by a batch. Status runs as a reader runs it: one
// read transaction per request on a connection of its own. A last benchmark pays one
// commit per write, as a lone request does on an idle server.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "admin/admin_operations.h"
#include "core/operations.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_migrations.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/sqlite_tx.h"

namespace licensed {
namespace {

// Each benchmark opens a fresh database, whose migration would log a line every time.
const bool kQuiet = (spdlog::set_level(spdlog::level::warn), true);

constexpr UnixMillis kStart = 1'795'000'000'000;
constexpr int64_t kUnlimited = 1'000'000'000;
// Write jobs per transaction: about what 64 busy connections queue for the writer.
constexpr int kBatch = 64;

void check(const Status& s, const char* what) {
  if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.error().message);
}

// A temporary database file, its writer and reader connections, and seeded licenses.
class Database {
 public:
  explicit Database(size_t licenses) {
    dir_ = std::filesystem::temp_directory_path() /
           ("licensed-micro-" + std::to_string(getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    const std::string path = (dir_ / "licensed.db").string();
    writer_ = open(path, true);
    check(writer_->exec("PRAGMA journal_mode=WAL"), "wal");
    check(writer_->exec("PRAGMA synchronous=FULL"), "synchronous");
    check(writer_->exec("PRAGMA foreign_keys=ON"), "foreign keys");
    check(migrate_sqlite(*writer_), "migrate");
    reader_ = open(path, false);
    check(reader_->exec("PRAGMA query_only=ON"), "query only");
    check(writer_->exec("BEGIN IMMEDIATE"), "begin");
    SqliteTx tx(*writer_, true);
    const AdminContext admin{kStart, std::nullopt};
    if (!create_product(tx, "bench", "Bench", admin).ok()) throw std::runtime_error("product");
    for (size_t i = 0; i < licenses; ++i) {
      LicenseSpec spec;
      spec.product_slug = "bench";
      spec.max = kUnlimited;
      auto l = create_license(tx, spec, admin);
      if (!l.ok()) throw std::runtime_error("seed license");
      keys_.push_back(l->key);
    }
    check(writer_->exec("COMMIT"), "commit");
  }
  ~Database() {
    writer_.reset();
    reader_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  const std::string& key(size_t i) const { return keys_[i % keys_.size()]; }
  SqliteConnection& writer() { return *writer_; }
  SqliteConnection& reader() { return *reader_; }
  std::string path() const { return (dir_ / "licensed.db").string(); }

 private:
  static std::unique_ptr<SqliteConnection> open(const std::string& path, bool create) {
    auto c = SqliteConnection::open(path, false, create);
    if (!c.ok()) throw std::runtime_error("open " + path);
    return std::move(c.value());
  }

  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::unique_ptr<SqliteConnection> writer_, reader_;
  std::vector<std::string> keys_;
};

OperationContext context() {
  OperationContext ctx;
  ctx.now = kStart;
  ctx.ip = "127.0.0.1";
  ctx.key_id = "bench";
  ctx.request_id = "req_0123456789abcdef01234567";
  return ctx;
}

// Runs write operations as the writer thread does: a savepoint per job, a commit per
// kBatch jobs.
class WriterBatch {
 public:
  explicit WriterBatch(SqliteConnection& conn) : conn_(conn), tx_(conn, true) {}
  ~WriterBatch() {
    if (conn_.in_transaction()) (void)conn_.exec("COMMIT");
  }

  void run(Endpoint endpoint, const LicenseRequest& req, const OperationContext& ctx,
           benchmark::State& state) {
    if (in_batch_ == 0) check(conn_.exec("BEGIN IMMEDIATE"), "begin");
    check(conn_.exec("SAVEPOINT job"), "savepoint");
    auto outcome = run_operation(endpoint, tx_, req, ctx);
    if (!outcome.ok()) state.SkipWithError(outcome.error().message().c_str());
    check(conn_.exec("RELEASE job"), "release");
    if (++in_batch_ == kBatch) {
      check(conn_.exec("COMMIT"), "commit");
      in_batch_ = 0;
    }
  }

 private:
  SqliteConnection& conn_;
  SqliteTx tx_;
  int in_batch_ = 0;
};

void activate_all(Database& db, const std::vector<LicenseRequest>& requests) {
  check(db.writer().exec("BEGIN IMMEDIATE"), "begin");
  SqliteTx tx(db.writer(), true);
  for (const auto& r : requests) {
    if (!activate(tx, r, context()).ok()) throw std::runtime_error("activate");
  }
  check(db.writer().exec("COMMIT"), "commit");
}

// A machine never seen before, on one of 1000 licenses in turn (what activate-new sends).
void BM_ActivateNew(benchmark::State& state) {
  Database db(1000);
  WriterBatch writer(db.writer());
  const OperationContext ctx = context();
  uint64_t i = 0;
  for (auto _ : state) {
    LicenseRequest req{db.key(i), "machine-" + std::to_string(i), "Bench", {}, {}};
    ++i;
    writer.run(Endpoint::kActivate, req, ctx, state);
  }
}
BENCHMARK(BM_ActivateNew);

// The same machine again: refresh and audit record.
void BM_ActivateRepeat(benchmark::State& state) {
  Database db(64);
  const LicenseRequest req{db.key(0), "machine-0", "Bench", {}, {}};
  activate_all(db, {req});
  WriterBatch writer(db.writer());
  const OperationContext ctx = context();
  for (auto _ : state) writer.run(Endpoint::kActivate, req, ctx, state);
}
BENCHMARK(BM_ActivateRepeat);

void BM_Heartbeat(benchmark::State& state) {
  Database db(64);
  std::vector<LicenseRequest> machines;
  for (size_t i = 0; i < 64; ++i)
    machines.push_back({db.key(i), "machine-" + std::to_string(i), std::nullopt, {}, {}});
  activate_all(db, machines);
  WriterBatch writer(db.writer());
  const OperationContext ctx = context();
  size_t i = 0;
  for (auto _ : state)
    writer.run(Endpoint::kHeartbeat, machines[i++ % machines.size()], ctx, state);
}
BENCHMARK(BM_Heartbeat);

// Status on a license holding state.range(0) machines: the count of fresh machines is
// part of every answer.
void BM_Status(benchmark::State& state) {
  Database db(64);
  std::vector<LicenseRequest> machines;
  for (int64_t i = 0; i < state.range(0); ++i) {
    machines.push_back({db.key(0), "machine-" + std::to_string(i), std::nullopt, {}, {}});
  }
  activate_all(db, machines);
  SqliteConnection& reader = db.reader();
  SqliteTx tx(reader, false);
  const OperationContext ctx = context();
  const LicenseRequest req = machines.front();
  for (auto _ : state) {
    check(reader.exec("BEGIN"), "begin");
    auto outcome = status(tx, req, ctx);
    benchmark::DoNotOptimize(outcome);
    check(reader.exec("COMMIT"), "commit");
  }
}
BENCHMARK(BM_Status)->Arg(1)->Arg(100)->Arg(10'000);

void BM_Deactivate(benchmark::State& state) {
  Database db(64);
  WriterBatch writer(db.writer());
  const OperationContext ctx = context();
  std::vector<LicenseRequest> pool;
  uint64_t made = 0;
  for (auto _ : state) {
    if (pool.empty()) {
      // Machines to deactivate, activated outside the timed part.
      state.PauseTiming();
      for (int i = 0; i < 4096; ++i, ++made) {
        pool.push_back({db.key(made), "machine-" + std::to_string(made), std::nullopt, {}, {}});
      }
      activate_all(db, pool);
      state.ResumeTiming();
    }
    writer.run(Endpoint::kDeactivate, pool.back(), ctx, state);
    pool.pop_back();
  }
}
BENCHMARK(BM_Deactivate);

// One heartbeat in a transaction of its own through the store's writer thread: what a
// write costs when nothing shares its commit (the fsync of synchronous=FULL).
void BM_HeartbeatOwnCommit(benchmark::State& state) {
  Database db(1);
  activate_all(db, {{db.key(0), "machine-0", std::nullopt, {}, {}}});
  SqliteStoreOptions options;
  options.path = db.path();
  auto store = SqliteStore::open(options);
  if (!store.ok()) throw std::runtime_error("open store");
  const LicenseRequest req{db.key(0), "machine-0", std::nullopt, {}, {}};
  const OperationContext ctx = context();
  for (auto _ : state) {
    auto outcome = run_blocking(*store.value(), TxKind::kWrite,
                                [&](StoreTx& tx) { return heartbeat(tx, req, ctx); });
    if (!outcome.ok()) state.SkipWithError(outcome.error().message().c_str());
  }
}
BENCHMARK(BM_HeartbeatOwnCommit)->UseRealTime();

}  // namespace
}  // namespace licensed
