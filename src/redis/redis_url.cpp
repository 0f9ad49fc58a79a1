#include "redis/redis_url.h"

#include "core/text.h"

namespace licensed {
namespace {

Error url_error(std::string message) {
  return Error::invalid_argument("config", std::move(message));
}

}  // namespace

Result<RedisEndpoint> parse_redis_url(std::string_view url) {
  constexpr std::string_view kScheme = "redis://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return url_error("expected redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]");
  }
  std::string_view rest = url.substr(kScheme.size());
  RedisEndpoint e;

  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty()) {
      const auto n = parse_whole_number<int>(db);
      if (!n || *n < 0) return url_error("the database after / must be a number");
      e.db = *n;
    }
  }
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      return url_error("credentials are USER:PASSWORD@ or :PASSWORD@");
    }
    if (colon > 0) e.user = std::string(userinfo.substr(0, colon));
    e.password = std::string(userinfo.substr(colon + 1));
  }
  std::string_view host = authority;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return url_error("unclosed [ in the host");
    host = authority.substr(1, close - 1);
    authority = authority.substr(close + 1);
    if (!authority.empty() && authority.front() != ':') return url_error("expected :PORT after ]");
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    authority = authority.substr(colon);
  } else {
    authority = {};
  }
  if (!authority.empty()) {  // ":PORT"
    const auto port = parse_whole_number<unsigned>(authority.substr(1));
    if (!port || *port == 0 || *port > 65535) return url_error("the port must be 1 to 65535");
    e.port = static_cast<uint16_t>(*port);
  }
  if (host.empty()) return url_error("no host");
  e.host = std::string(host);
  return e;
}

}  // namespace licensed
