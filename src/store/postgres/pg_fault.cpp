#include "store/postgres/pg_fault.h"

#include <array>

#include "core/log_throttle.h"
#include "store/store_fault.h"

namespace licensed {
namespace {

LogThrottle& throttle_for(PgFault fault) {
  static std::array<LogThrottle, static_cast<size_t>(PgFault::kOther) + 1> throttles;
  return throttles[static_cast<size_t>(fault)];
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// libpq's messages end in a newline; a log line should not.
std::string trimmed(const char* message) {
  std::string text = message != nullptr ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

PgFault classify_pg_failure(std::string_view sqlstate, bool connection_ok) {
  if (!connection_ok) return PgFault::kConnection;
  if (sqlstate == "55P03") return PgFault::kLockTimeout;
  if (sqlstate == "57014") return PgFault::kTimeout;
  if (sqlstate == "40001" || sqlstate == "40P01") return PgFault::kConflict;
  if (sqlstate.empty() || starts_with(sqlstate, "08") || sqlstate == "57P01" ||
      sqlstate == "57P02" || sqlstate == "57P03") {
    return PgFault::kConnection;
  }
  if (starts_with(sqlstate, "53") || sqlstate == "25006") return PgFault::kUnavailable;
  return PgFault::kOther;
}

std::string_view fault_name(PgFault fault) {
  switch (fault) {
    case PgFault::kLockTimeout:
      return "lock timeout";
    case PgFault::kTimeout:
      return "statement timeout";
    case PgFault::kConflict:
      return "transaction conflict";
    case PgFault::kConnection:
      return "connection failed";
    case PgFault::kUnavailable:
      return "server unavailable";
    case PgFault::kOther:
      return "error";
  }
  return "error";
}

bool is_transient(PgFault fault) {
  return fault != PgFault::kOther;
}

Error pg_failure(PGconn* conn, const PGresult* res, std::string_view what) {
  const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  const bool connection_ok = conn != nullptr && PQstatus(conn) == CONNECTION_OK;
  const PgFault fault = classify_pg_failure(state != nullptr ? state : "", connection_ok);
  const bool transient = is_transient(fault);
  // PostgreSQL's primary message names the constraint or object, not the bound values.
  const char* primary = res != nullptr ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string message = primary != nullptr ? primary
                        : conn != nullptr  ? trimmed(PQerrorMessage(conn))
                                           : "no connection";
  std::string detail =
      std::string(fault_name(fault)) + ": " + std::string(what) + " failed: " + message;
  if (state != nullptr) detail += std::string(" (sqlstate ") + state + ")";
  return store_fault(throttle_for(fault), transient, std::move(detail));
}

}  // namespace licensed
