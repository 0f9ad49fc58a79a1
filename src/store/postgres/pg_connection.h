// One libpq connection with its prepared statements: each SQL text is prepared once per
// connection and run with bound parameters; values never enter the SQL text.
//
// Round trips, not statements, cost most here (each is a wake-up of licensed's thread and
// of the server's backend on a busy machine), so a transaction's statements travel in
// libpq pipelines: BEGIN goes with the first statement, and writes whose rows nobody reads
// (defer) wait to go with the next statement that is read or with COMMIT. An activation
// is then four round trips instead of seven, three in a batch (see PgStore).
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "store/tx_guard.h"

namespace licensed {

// A statement's result rows, in libpq's text format.
class PgResult {
 public:
  explicit PgResult(PGresult* res) : res_(res, &PQclear) {}

  int rows() const { return PQntuples(res_.get()); }
  bool is_null(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  std::string text(int row, int col) const;
  int64_t int64(int row, int col) const;
  std::optional<std::string> optional_text(int row, int col) const;
  std::optional<int64_t> optional_int64(int row, int col) const;
  bool boolean(int row, int col) const { return text(row, col) == "t"; }
  // Rows changed by an INSERT, UPDATE or DELETE.
  int64_t affected() const;
  const PGresult* raw() const { return res_.get(); }

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> res_;
};

// Bound values in order ($1, $2, ...); nullopt is SQL NULL.
class PgParams {
 public:
  PgParams& add(int64_t value);
  PgParams& add(std::string_view value);
  PgParams& add(bool value);
  PgParams& add(const std::optional<int64_t>& value);
  PgParams& add(const std::optional<std::string>& value);
  const std::vector<std::optional<std::string>>& values() const { return values_; }

 private:
  std::vector<std::optional<std::string>> values_;
};

struct PgSessionSettings {
  // A row lock (the license row under FOR UPDATE) waited for longer than this fails the
  // statement (55P03), which answers 1708: a stuck transaction elsewhere costs a request
  // this long, never forever.
  int64_t lock_timeout_ms = 5'000;
  int64_t statement_timeout_ms = 30'000;
};

class PgConnection {
 public:
  // Connects to a libpq URL or conninfo string and applies the session settings. The
  // failure's detail carries libpq's words (never the password) for the operator.
  static Result<std::unique_ptr<PgConnection>> open(const std::string& conninfo,
                                                    const PgSessionSettings& settings);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs SQL without parameters at once (migrations, session settings); several
  // statements allowed. Nothing may be waiting (see defer).
  Status exec(const char* sql, std::string_view what);
  // Starts a transaction: `sql` (BEGIN ...) waits to go with its first statement. When
  // that first round trip finds the connection lost (the server restarted since the last
  // transaction), nothing of the transaction reached the server: the connection is opened
  // again once and the round trip sent again.
  void begin(const char* sql);
  // Runs `sql` (prepared on first use on this connection) with `params`, after what waits.
  Result<PgResult> query(const std::string& sql, const PgParams& params, std::string_view what);
  // query() for statements whose rows nobody reads.
  Status run(const std::string& sql, const PgParams& params, std::string_view what);
  // A write whose rows nobody reads and whose failure may wait: it goes with the next
  // query() or commit(), and a failure of it fails that call.
  void defer(const std::string& sql, const PgParams& params, std::string_view what);
  // Queues a statement without parameters (SAVEPOINT, RELEASE) to go with the next round
  // trip.
  void queue(const char* sql, std::string_view what);
  // Sends what waits now: a job's last writes, so that their failure is that job's.
  Status flush();
  // From here to the end of the transaction a lock held elsewhere is not waited for
  // (SET LOCAL lock_timeout of 1 ms): a transaction that already holds row locks never
  // waits for another, so transactions of several jobs cannot deadlock. A statement that
  // would have waited fails quietly and lock_busy() says so: the job goes to a
  // transaction of its own, where it may wait.
  void stop_waiting_for_locks();
  // True (once) when a statement failed because it would have waited for a lock.
  bool take_lock_busy();
  // Marks what waits as a finished job's (its last writes and RELEASE): it goes with the
  // next job's first round trip, and a failure in it is that job's, reported (once) by
  // take_handed_over_failure() with whether it was a lock wait (see take_lock_busy).
  void hand_over() { handed_over_ = queued_.size(); }
  bool has_handed_over() const { return handed_over_ > 0; }
  std::optional<Error> take_handed_over_failure(bool& busy);
  // What waits, then COMMIT, failing when PostgreSQL rolled the transaction back instead
  // (it does so, without an error, for a transaction an earlier statement failed in).
  Status commit();
  // Drops what waits, and rolls back the transaction if it reached the server.
  void rollback();

  // False once the server went away: the connection must be replaced.
  bool usable() const { return !broken_ && PQstatus(conn_) == CONNECTION_OK; }
  bool in_transaction() const { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }

 private:
  struct Statement {
    std::string sql;
    PgParams params;
    std::string what;
    bool prepared;  // false: BEGIN, COMMIT (no parameters, nothing to prepare)
  };

  PgConnection(PGconn* conn, PgSessionSettings settings) : conn_(conn), settings_(settings) {}
  Status apply_settings();
  // Sends what waits in one pipeline and empties the queue: the last statement's result,
  // or the first failure.
  Result<PgResult> send_queued();
  Result<PgResult> send_pipeline();
  Error broken(const PGresult* res, std::string_view what);

  PGconn* conn_;
  PgSessionSettings settings_;
  std::unordered_map<std::string, std::string> prepared_;  // SQL text -> statement name
  uint64_t next_statement_ = 0;
  std::vector<Statement> queued_;
  bool begin_queued_ = false;  // queued_ starts with a BEGIN the server has not seen
  size_t handed_over_ = 0;     // leading statements of queued_ that hand_over() marked
  size_t failed_at_ = 0;       // the statement of queued_ the last pipeline failed at
  std::optional<Error> handed_over_failure_;
  bool handed_over_busy_ = false;
  bool fail_fast_on_locks_ = false;  // stop_waiting_for_locks() in this transaction
  // Index in queued_ of the statement that stopped the waiting: a lock timeout before it
  // (the first job's own writes, sent in the same round trip) is a real one, not "busy".
  // 0 once that round trip went out.
  size_t fail_fast_from_ = 0;
  bool lock_busy_ = false;
  // A pipeline that ended out of step (a lost connection mid-way): never used again.
  bool broken_ = false;
};

// A transaction on one PostgreSQL connection that rolls back unless committed.
using PgTxGuard = TxGuard<PgConnection>;

}  // namespace licensed
