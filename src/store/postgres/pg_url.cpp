#include "store/postgres/pg_url.h"

#include <algorithm>
#include <string_view>
#include <thread>

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

// The host part of a libpq URL ("" for a Unix socket, or when a `host` parameter names a
// socket directory); several hosts come back as written, with their commas.
std::string_view url_host(std::string_view url) {
  std::string_view rest = url.substr(url.find("://") + 3);
  rest = rest.substr(0, rest.find_first_of("/?"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (rest.starts_with('[')) return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

bool names_a_socket_directory(std::string_view query) {
  return query.find("host=/") != std::string_view::npos ||
         query.find("host=%2F") != std::string_view::npos;
}

}  // namespace

size_t default_pool_size(const std::string& url, unsigned cores) {
  const std::string_view host = url_host(url);
  const size_t question = url.find('?');
  const bool local = host.empty() || host == "localhost" || host == "::1" ||
                     host.starts_with("127.") ||
                     (question != std::string::npos &&
                      names_a_socket_directory(std::string_view(url).substr(question)));
  if (!local) return kRemotePoolSize;
  return std::clamp<size_t>(2 * static_cast<size_t>(cores), 2, kRemotePoolSize);
}

bool is_postgres_url(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

Result<PgStoreOptions> parse_postgres_url(const std::string& url) {
  PgStoreOptions options;
  options.display_url = redact_url_credentials(url);
  options.pool_size = default_pool_size(url, std::max(1u, std::thread::hardware_concurrency()));
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
