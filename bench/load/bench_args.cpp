#include "load/bench_args.h"

#include <charconv>
#include <string>

namespace licensed::bench {

std::optional<LoadTarget> parse_base_url(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  url.remove_prefix(kScheme.size());
  const size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  std::string_view prefix = slash == std::string_view::npos ? "" : url.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);

  LoadTarget target;
  target.port = 80;
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    target.host = std::string(authority.substr(1, close - 1));
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port_text = rest.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    target.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (target.host.empty()) return std::nullopt;
  if (!port_text.empty()) {
    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      return std::nullopt;
    }
    target.port = static_cast<uint16_t>(port);
  }
  target.path_prefix = std::string(prefix);
  return target;
}

std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text) {
  double scale = 1e9;  // a plain number is seconds
  if (text.ends_with("ms")) {
    scale = 1e6;
    text.remove_suffix(2);
  } else if (text.ends_with("s")) {
    text.remove_suffix(1);
  } else if (text.ends_with("m")) {
    scale = 60e9;
    text.remove_suffix(1);
  }
  if (text.empty()) return std::nullopt;
  // from_chars for double is in libstdc++ 11 and later.
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return std::chrono::nanoseconds(static_cast<int64_t>(value * scale));
}

}  // namespace licensed::bench
