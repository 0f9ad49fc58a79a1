#include "store/postgres/pg_url.h"

#include <string_view>

#include "core/text.h"
#include "observability/redaction.h"

namespace licensed {
namespace {

Result<int64_t> positive(std::string_view name, std::string_view value, const std::string& url) {
  const auto n = parse_whole_number<int64_t>(value);
  if (!n || *n <= 0) {
    return Error::invalid_argument("store", std::string(name) + " in '" +
                                                redact_url_credentials(url) +
                                                "' must be a positive whole number");
  }
  return *n;
}

}  // namespace

bool is_postgres_url(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

Result<PgStoreOptions> parse_postgres_url(const std::string& url) {
  PgStoreOptions options;
  options.display_url = redact_url_credentials(url);
  const size_t question = url.find('?');
  options.conninfo = url.substr(0, question);
  if (question == std::string::npos) return options;
  std::string kept;
  std::string_view rest = std::string_view(url).substr(question + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view param = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = param.find('=');
    const std::string_view name = param.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : param.substr(eq + 1);
    if (name == "pool_size") {
      ASSIGN_OR_RETURN(const int64_t n, positive(name, value, url));
      options.pool_size = static_cast<size_t>(n);
    } else if (name == "lock_timeout_ms") {
      ASSIGN_OR_RETURN(options.session.lock_timeout_ms, positive(name, value, url));
    } else if (name == "statement_timeout_ms") {
      ASSIGN_OR_RETURN(options.session.statement_timeout_ms, positive(name, value, url));
    } else if (!param.empty()) {
      kept += (kept.empty() ? "?" : "&") + std::string(param);
    }
  }
  options.conninfo += kept;
  return options;
}

}  // namespace licensed
