#include "observability/sentry_dsn.h"

#include <algorithm>
#include <charconv>

namespace licensed {
namespace {

constexpr std::string_view kShape = "expected http://PUBLIC_KEY@HOST[:PORT]/PROJECT_ID";

Error dsn_error(std::string_view what) {
  return Error::invalid_argument(
      "sentry_dsn", "invalid Sentry DSN: " + std::string(what) + " (" + std::string(kShape) + ")");
}

bool is_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_key_char(char c) {
  return is_alnum(c) || c == '-' || c == '_' || c == '.';
}

bool is_host_char(char c) {
  return is_alnum(c) || c == '-' || c == '.';
}

bool is_ipv6_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
         c == '.';
}

bool is_path_char(char c) {
  return is_alnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/';
}

// The authority without userinfo; the default port is left out, as a DSN would.
std::string host_and_port(const SentryDsn& dsn) {
  // Appended piece by piece: GCC 12 at -O3 takes `"[" + host` for an overlapping copy
  // (a false -Werror=restrict that stopped the release preset).
  const bool ipv6 = dsn.host.find(':') != std::string::npos;
  std::string out;
  if (ipv6) out += '[';
  out += dsn.host;
  if (ipv6) out += ']';
  if (dsn.port != 80) {
    out += ':';
    out += std::to_string(dsn.port);
  }
  return out;
}

}  // namespace

std::string SentryDsn::envelope_target() const {
  return path + "/api/" + project_id + "/envelope/";
}

std::string SentryDsn::to_string() const {
  return "http://" + public_key + "@" + host_and_port(*this) + path + "/" + project_id;
}

std::string SentryDsn::describe() const {
  return "http://" + host_and_port(*this) + path + " (project " + project_id + ")";
}

Result<SentryDsn> parse_sentry_dsn(std::string_view text) {
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return dsn_error("no scheme");
  const std::string_view scheme = text.substr(0, scheme_end);
  if (scheme == "https") {
    return Error::invalid_argument(
        "sentry_dsn",
        "https Sentry DSNs are not supported by this build (no TLS client): point the DSN at a "
        "Sentry Relay over plain http, e.g. http://PUBLIC_KEY@127.0.0.1:3000/PROJECT_ID, and let "
        "it forward over https");
  }
  if (scheme != "http") return dsn_error("the scheme must be http");
  std::string_view rest = text.substr(scheme_end + 3);
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return dsn_error("no query or fragment is allowed");
  }

  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return dsn_error("no project id");
  const std::string_view authority = rest.substr(0, slash);
  std::string_view path = rest.substr(slash);

  const auto at = authority.rfind('@');
  if (at == std::string_view::npos) return dsn_error("no public key before '@'");
  std::string_view userinfo = authority.substr(0, at);
  // A secret key (deprecated by Sentry) is accepted and dropped: it is never sent.
  if (const auto colon = userinfo.find(':'); colon != std::string_view::npos) {
    userinfo = userinfo.substr(0, colon);
  }
  if (userinfo.empty()) return dsn_error("the public key is empty");
  if (!std::all_of(userinfo.begin(), userinfo.end(), is_key_char)) {
    return dsn_error("the public key has characters other than letters, digits, '-', '_', '.'");
  }

  SentryDsn dsn;
  dsn.public_key = std::string(userinfo);
  std::string_view hostport = authority.substr(at + 1);
  std::string_view port_text;
  if (!hostport.empty() && hostport.front() == '[') {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) return dsn_error("unterminated IPv6 address");
    const std::string_view v6 = hostport.substr(1, close - 1);
    if (v6.empty() || !std::all_of(v6.begin(), v6.end(), is_ipv6_char)) {
      return dsn_error("bad IPv6 address");
    }
    dsn.host = std::string(v6);
    const std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return dsn_error("unexpected text after the IPv6 address");
      port_text = after.substr(1);
      if (port_text.empty()) return dsn_error("empty port");
    }
  } else {
    const auto colon = hostport.rfind(':');
    const std::string_view host =
        colon == std::string_view::npos ? hostport : hostport.substr(0, colon);
    if (colon != std::string_view::npos) {
      port_text = hostport.substr(colon + 1);
      if (port_text.empty()) return dsn_error("empty port");
    }
    if (host.empty()) return dsn_error("no host");
    if (!std::all_of(host.begin(), host.end(), is_host_char)) return dsn_error("bad host name");
    dsn.host = std::string(host);
  }
  if (!port_text.empty()) {
    unsigned port = 0;
    const auto [ptr, err] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (err != std::errc() || ptr != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      return dsn_error("the port must be a number from 1 to 65535");
    }
    dsn.port = static_cast<uint16_t>(port);
  }

  // Path: "[/PREFIX]/PROJECT_ID", one trailing slash tolerated.
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (!std::all_of(path.begin(), path.end(), is_path_char)) return dsn_error("bad path");
  if (path.find("//") != std::string_view::npos) return dsn_error("empty path segment");
  const auto last = path.rfind('/');
  const std::string_view project = path.substr(last + 1);
  if (project.empty()) return dsn_error("no project id");
  if (!std::all_of(project.begin(), project.end(), is_alnum)) {
    return dsn_error("the project id must be letters and digits");
  }
  dsn.path = std::string(path.substr(0, last));
  dsn.project_id = std::string(project);
  return dsn;
}

}  // namespace licensed
