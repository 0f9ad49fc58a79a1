#include "ratelimit/rate_spec.h"

#include <string>

namespace licensed {
namespace {

constexpr int64_t kMaxCount = 1'000'000'000;
constexpr int64_t kMaxPeriodMs = 366LL * 24 * 3600 * 1000;

// Parses a run of decimal digits no larger than `max`; nullopt when empty or larger.
std::optional<int64_t> parse_bounded(std::string_view digits, int64_t max) {
  if (digits.empty()) return std::nullopt;
  int64_t v = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > max) return std::nullopt;
  }
  return v;
}

std::optional<int64_t> unit_ms(char unit) {
  switch (unit) {
    case 's':
      return 1000;
    case 'm':
      return 60 * 1000;
    case 'h':
      return 3600 * 1000;
    case 'd':
      return 24 * 3600 * 1000;
    default:
      return std::nullopt;
  }
}

Error bad(std::string_view text, std::string_view why) {
  return Error::invalid_argument("", "invalid rate limit \"" + std::string(text) +
                                         "\": " + std::string(why) +
                                         " (expected N/PERIOD such as 120/1m, or off)");
}

}  // namespace

Result<std::optional<RateSpec>> parse_rate_spec(std::string_view text) {
  if (text == "off") return std::optional<RateSpec>();

  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad(text, "missing '/'");
  const auto count = parse_bounded(text.substr(0, slash), kMaxCount);
  if (!count || *count == 0) return bad(text, "N must be a whole number from 1 to 1000000000");

  std::string_view period = text.substr(slash + 1);
  if (period.empty()) return bad(text, "missing period");
  const auto unit = unit_ms(period.back());
  if (!unit) return bad(text, "the period unit must be s, m, h or d");
  period.remove_suffix(1);

  int64_t multiplier = 1;  // "600/m" means one minute
  if (!period.empty()) {
    const auto m = parse_bounded(period, kMaxPeriodMs / *unit);
    if (!m || *m == 0) return bad(text, "the period must be from 1s to 366d");
    multiplier = *m;
  }
  return std::optional<RateSpec>(RateSpec{*count, multiplier * *unit});
}

}  // namespace licensed
