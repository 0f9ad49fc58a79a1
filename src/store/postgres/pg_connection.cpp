#include "store/postgres/pg_connection.h"

#include <charconv>
#include <utility>

#include "store/postgres/pg_fault.h"

namespace licensed {
namespace {

// PostgreSQL's NOTICEs ("relation already exists, skipping") are not for the log.
void ignore_notice(void*, const char*) {}

std::string statement_name(uint64_t n) {
  std::string name = std::to_string(n);
  name.insert(name.begin(), 's');
  return name;
}

}  // namespace

std::string PgResult::text(int row, int col) const {
  return std::string(PQgetvalue(res_.get(), row, col),
                     static_cast<size_t>(PQgetlength(res_.get(), row, col)));
}

int64_t PgResult::int64(int row, int col) const {
  const char* begin = PQgetvalue(res_.get(), row, col);
  int64_t value = 0;
  std::from_chars(begin, begin + PQgetlength(res_.get(), row, col), value);
  return value;
}

std::optional<std::string> PgResult::optional_text(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return text(row, col);
}

std::optional<int64_t> PgResult::optional_int64(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return int64(row, col);
}

int64_t PgResult::affected() const {
  const char* tuples = PQcmdTuples(res_.get());
  int64_t value = 0;
  std::from_chars(tuples, tuples + std::char_traits<char>::length(tuples), value);
  return value;
}

PgParams& PgParams::add(int64_t value) {
  values_.emplace_back(std::to_string(value));
  return *this;
}

PgParams& PgParams::add(std::string_view value) {
  values_.emplace_back(std::string(value));
  return *this;
}

PgParams& PgParams::add(bool value) {
  values_.emplace_back(value ? "t" : "f");
  return *this;
}

PgParams& PgParams::add(const std::optional<int64_t>& value) {
  if (!value) {
    values_.emplace_back(std::nullopt);
    return *this;
  }
  return add(*value);
}

PgParams& PgParams::add(const std::optional<std::string>& value) {
  values_.push_back(value);
  return *this;
}

Result<std::unique_ptr<PgConnection>> PgConnection::open(const std::string& conninfo,
                                                         const PgSessionSettings& settings) {
  // Keywords before "dbname" are defaults the URL may override (expand_dbname): a server
  // that does not answer fails the connection in seconds instead of hanging a thread.
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"5", "licensed", conninfo.c_str(), nullptr};
  PGconn* raw = PQconnectdbParams(keywords, values, 1);
  if (raw == nullptr) return pg_failure(nullptr, nullptr, "connect");
  std::unique_ptr<PgConnection> conn(new PgConnection(raw, settings));
  if (PQstatus(raw) != CONNECTION_OK) return pg_failure(raw, nullptr, "connect");
  PQsetNoticeProcessor(raw, &ignore_notice, nullptr);
  RETURN_IF_ERROR(conn->apply_settings());
  return conn;
}

PgConnection::~PgConnection() {
  PQfinish(conn_);
}

Status PgConnection::apply_settings() {
  // Session-wide rather than SET LOCAL in each transaction: every statement on this
  // connection is ours, so the effect is the same, one round trip per job cheaper.
  const std::string session =
      "SET lock_timeout = " + std::to_string(settings_.lock_timeout_ms) +
      "; SET statement_timeout = " + std::to_string(settings_.statement_timeout_ms) +
      "; SET TIME ZONE 'UTC'";
  return exec(session.c_str(), "apply session settings");
}

Status PgConnection::exec(const char* sql, std::string_view what) {
  queued_.clear();
  begin_queued_ = false;
  PgResult res(PQexec(conn_, sql));
  const ExecStatusType st = PQresultStatus(res.raw());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return pg_failure(conn_, res.raw(), what);
  return Ok{};
}

void PgConnection::begin(const char* sql) {
  queued_.clear();
  queue(sql, "begin");
  begin_queued_ = true;
  fail_fast_on_locks_ = false;
  fail_fast_from_ = 0;
  handed_over_busy_ = false;
  lock_busy_ = false;
  handed_over_ = 0;
  handed_over_failure_.reset();
}

void PgConnection::queue(const char* sql, std::string_view what) {
  queued_.push_back(Statement{sql, PgParams(), std::string(what), false});
}

Status PgConnection::flush() {
  if (queued_.empty()) return Ok{};
  ASSIGN_OR_RETURN(auto ignored, send_queued());
  return Ok{};
}

void PgConnection::stop_waiting_for_locks() {
  // 0 would mean "wait forever"; 1 ms is the least PostgreSQL takes.
  fail_fast_from_ = queued_.size();
  queue("SET LOCAL lock_timeout = 1", "stop waiting for locks");
  fail_fast_on_locks_ = true;
}

bool PgConnection::take_lock_busy() {
  return std::exchange(lock_busy_, false);
}

std::optional<Error> PgConnection::take_handed_over_failure(bool& busy) {
  busy = std::exchange(handed_over_busy_, false);
  return std::exchange(handed_over_failure_, std::nullopt);
}

void PgConnection::defer(const std::string& sql, const PgParams& params, std::string_view what) {
  queued_.push_back(Statement{sql, params, std::string(what), true});
}

Result<PgResult> PgConnection::query(const std::string& sql, const PgParams& params,
                                     std::string_view what) {
  defer(sql, params, what);
  return send_queued();
}

Status PgConnection::run(const std::string& sql, const PgParams& params, std::string_view what) {
  ASSIGN_OR_RETURN(auto ignored, query(sql, params, what));
  return Ok{};
}

Status PgConnection::commit() {
  queued_.push_back(Statement{"COMMIT", PgParams(), "commit", false});
  ASSIGN_OR_RETURN(auto res, send_queued());
  if (std::string_view(PQcmdStatus(const_cast<PGresult*>(res.raw()))) != "COMMIT") {
    return Error::internal(
        "commit: PostgreSQL rolled back a transaction a statement had failed in");
  }
  return Ok{};
}

void PgConnection::rollback() {
  const bool reached_server = !begin_queued_;
  handed_over_ = 0;
  queued_.clear();
  begin_queued_ = false;
  if (reached_server && usable() && in_transaction()) (void)exec("ROLLBACK", "roll back");
}

Result<PgResult> PgConnection::send_queued() {
  const bool first_of_transaction = begin_queued_;
  const bool commits = !queued_.empty() && queued_.back().sql == "COMMIT";
  auto sent = send_pipeline();
  if (!sent.ok() && first_of_transaction && !commits && PQstatus(conn_) != CONNECTION_OK) {
    // Lost before the transaction began (a server restart since this connection's last
    // one): nothing of it ran, so one new connection may send it again.
    PQreset(conn_);
    if (PQstatus(conn_) == CONNECTION_OK) {
      prepared_.clear();
      broken_ = false;
      std::vector<Statement> again = std::move(queued_);
      if (apply_settings().ok()) {
        queued_ = std::move(again);
        sent = send_pipeline();
      }
    }
  }
  if (handed_over_ > 0 && !sent.ok() && failed_at_ < handed_over_) {
    // The pipeline stopped in a finished job's statements: the failure is that job's,
    // and nothing after it ran.
    handed_over_failure_ = sent.error();
    handed_over_busy_ = std::exchange(lock_busy_, false);
  }
  fail_fast_from_ = 0;
  handed_over_ = 0;
  queued_.clear();
  begin_queued_ = false;
  return sent;
}

Error PgConnection::broken(const PGresult* res, std::string_view what) {
  broken_ = true;
  failed_at_ = 0;  // everything is lost with the connection
  return pg_failure(conn_, res, what);
}

Result<PgResult> PgConnection::send_pipeline() {
  struct Sent {
    size_t statement;
    const std::string* prepare_as;  // a Parse of the statement's SQL under this name
  };
  std::vector<Sent> sent;
  std::unordered_map<std::string, std::string> preparing;
  // Both arms string_view: with a literal and a std::string the conditional would make a
  // temporary string, and the view would outlive it.
  const std::string_view first_what =
      queued_.empty() ? std::string_view("query") : std::string_view(queued_.front().what);
  failed_at_ = queued_.size();
  if (broken_) return broken(nullptr, first_what);
  if (PQenterPipelineMode(conn_) != 1) return broken(nullptr, first_what);
  for (size_t i = 0; i < queued_.size(); ++i) {
    const Statement& s = queued_[i];
    std::vector<const char*> values;
    values.reserve(s.params.values().size());
    for (const auto& v : s.params.values()) values.push_back(v ? v->c_str() : nullptr);
    const int n = static_cast<int>(values.size());
    int ok = 0;
    if (!s.prepared) {
      ok = PQsendQueryParams(conn_, s.sql.c_str(), n, nullptr, values.data(), nullptr, nullptr, 0);
    } else {
      const std::string* name = nullptr;
      if (auto it = prepared_.find(s.sql); it != prepared_.end()) {
        name = &it->second;
      } else if (auto p = preparing.find(s.sql); p != preparing.end()) {
        name = &p->second;
      } else {
        name = &preparing.emplace(s.sql, statement_name(next_statement_++)).first->second;
        if (PQsendPrepare(conn_, name->c_str(), s.sql.c_str(), n, nullptr) != 1) {
          return broken(nullptr, s.what);
        }
        sent.push_back({i, name});
      }
      ok = PQsendQueryPrepared(conn_, name->c_str(), n, values.data(), nullptr, nullptr, 0);
    }
    if (ok != 1) return broken(nullptr, s.what);
    sent.push_back({i, nullptr});
  }
  if (PQpipelineSync(conn_) != 1) return broken(nullptr, first_what);

  // One result per command, each followed by a null, then the sync point. After a failed
  // command PostgreSQL skips the rest up to the sync (PGRES_PIPELINE_ABORTED).
  std::optional<Error> failure;
  std::optional<PgResult> last;
  for (const Sent& c : sent) {
    const Statement& s = queued_[c.statement];
    PgResult res(PQgetResult(conn_));
    PGresult* extra = res.raw() != nullptr ? PQgetResult(conn_) : nullptr;
    if (res.raw() == nullptr || extra != nullptr) {
      PQclear(extra);
      return broken(res.raw(), s.what);
    }
    const ExecStatusType st = PQresultStatus(res.raw());
    if (st == PGRES_PIPELINE_ABORTED) continue;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      if (PQstatus(conn_) != CONNECTION_OK) return broken(res.raw(), s.what);
      const char* state = PQresultErrorField(res.raw(), PG_DIAG_SQLSTATE);
      if (!failure && fail_fast_on_locks_ && c.statement >= fail_fast_from_ && state != nullptr &&
          std::string_view(state) == "55P03") {
        // Not a fault: the job runs again in a transaction of its own (see
        // stop_waiting_for_locks), so nothing is logged.
        lock_busy_ = true;
        failure = Error::unavailable("a license row is locked by another transaction");
      }
      if (!failure) failure = pg_failure(conn_, res.raw(), s.what);
      if (failed_at_ == queued_.size()) failed_at_ = c.statement;
      continue;
    }
    if (c.prepare_as != nullptr) {
      prepared_.emplace(s.sql, *c.prepare_as);
    } else {
      last.emplace(std::move(res));
    }
  }
  PgResult sync(PQgetResult(conn_));
  if (PQresultStatus(sync.raw()) != PGRES_PIPELINE_SYNC || PQexitPipelineMode(conn_) != 1) {
    return broken(nullptr, first_what);
  }
  if (failure) return std::move(*failure);
  if (!last) return broken(nullptr, first_what);
  return std::move(*last);
}

}  // namespace licensed
