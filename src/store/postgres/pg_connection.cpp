#include "store/postgres/pg_connection.h"

#include <charconv>

#include "store/postgres/pg_fault.h"

namespace licensed {
namespace {

// PostgreSQL's NOTICEs ("relation already exists, skipping") are not for the log.
void ignore_notice(void*, const char*) {}

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
  std::unique_ptr<PgConnection> conn(new PgConnection(raw));
  if (PQstatus(raw) != CONNECTION_OK) return pg_failure(raw, nullptr, "connect");
  PQsetNoticeProcessor(raw, &ignore_notice, nullptr);
  // Session-wide rather than SET LOCAL in each transaction: every statement on this
  // connection is ours, so the effect is the same, one round trip per job cheaper.
  const std::string session =
      "SET lock_timeout = " + std::to_string(settings.lock_timeout_ms) +
      "; SET statement_timeout = " + std::to_string(settings.statement_timeout_ms) +
      "; SET TIME ZONE 'UTC'";
  RETURN_IF_ERROR(conn->exec(session.c_str(), "apply session settings"));
  return conn;
}

PgConnection::~PgConnection() {
  PQfinish(conn_);
}

Status PgConnection::exec(const char* sql, std::string_view what) {
  PgResult res(PQexec(conn_, sql));
  const ExecStatusType st = PQresultStatus(res.raw());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return pg_failure(conn_, res.raw(), what);
  return Ok{};
}

Result<std::string> PgConnection::prepared_name(const std::string& sql, int params,
                                                std::string_view what) {
  if (auto it = prepared_.find(sql); it != prepared_.end()) return it->second;
  std::string name = "s" + std::to_string(prepared_.size());
  PgResult res(PQprepare(conn_, name.c_str(), sql.c_str(), params, nullptr));
  if (PQresultStatus(res.raw()) != PGRES_COMMAND_OK) return pg_failure(conn_, res.raw(), what);
  prepared_.emplace(sql, name);
  return name;
}

Result<PgResult> PgConnection::query(const std::string& sql, const PgParams& params,
                                     std::string_view what) {
  const auto& values = params.values();
  ASSIGN_OR_RETURN(const std::string name,
                   prepared_name(sql, static_cast<int>(values.size()), what));
  std::vector<const char*> raw_values;
  raw_values.reserve(values.size());
  for (const auto& v : values) raw_values.push_back(v ? v->c_str() : nullptr);
  PgResult res(PQexecPrepared(conn_, name.c_str(), static_cast<int>(raw_values.size()),
                              raw_values.data(), nullptr, nullptr, 0));
  const ExecStatusType st = PQresultStatus(res.raw());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return pg_failure(conn_, res.raw(), what);
  return res;
}

Status PgConnection::run(const std::string& sql, const PgParams& params, std::string_view what) {
  ASSIGN_OR_RETURN(auto ignored, query(sql, params, what));
  return Ok{};
}

Status PgConnection::commit() {
  PgResult res(PQexec(conn_, "COMMIT"));
  if (PQresultStatus(res.raw()) != PGRES_COMMAND_OK) return pg_failure(conn_, res.raw(), "commit");
  if (std::string_view(PQcmdStatus(const_cast<PGresult*>(res.raw()))) != "COMMIT") {
    ApiError e = errors::internal();
    e.detail = "commit: PostgreSQL rolled back a transaction a statement had failed in";
    return e;
  }
  return Ok{};
}

}  // namespace licensed
