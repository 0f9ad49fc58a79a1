#include "observability/redaction.h"

#include <algorithm>

namespace licensed {
namespace {

constexpr size_t kShownEachSide = 4;
constexpr size_t kShortestPartlyShown = 16;

bool is_key_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

}  // namespace

std::string mask_license_key(std::string_view key) {
  if (key.size() < kShortestPartlyShown || !std::all_of(key.begin(), key.end(), is_key_char)) {
    return "***";
  }
  return std::string(key.substr(0, kShownEachSide)) + "..." +
         std::string(key.substr(key.size() - kShownEachSide));
}

std::string redact_url_credentials(std::string_view url) {
  std::string out(url);
  // userinfo: between "://" and the first '@' before the path.
  if (const auto scheme_end = out.find("://"); scheme_end != std::string::npos) {
    const size_t authority = scheme_end + 3;
    const size_t authority_end = std::min(out.find_first_of("/?#", authority), out.size());
    const size_t at = out.rfind('@', authority_end);
    if (at != std::string::npos && at >= authority) {
      const size_t colon = out.find(':', authority);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=VALUE in a query string (libpq accepts it there too).
  for (size_t pos = out.find("password="); pos != std::string::npos;
       pos = out.find("password=", pos + 1)) {
    if (pos != 0 && out[pos - 1] != '?' && out[pos - 1] != '&') continue;
    const size_t value = pos + 9;
    const size_t end = std::min(out.find_first_of("&#", value), out.size());
    out.replace(value, end - value, "***");
  }
  return out;
}

}  // namespace licensed
