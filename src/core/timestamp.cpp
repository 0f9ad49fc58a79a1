#include "core/timestamp.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace licensed {
namespace {
// Howard Hinnant's days-from-civil algorithm, so no time zone state is involved.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}
}  // namespace

std::string format_timestamp(UnixMillis t) {
  int64_t secs = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
  const auto ms = static_cast<int>(t - secs * 1000);
  const auto tt = static_cast<std::time_t>(secs);
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &tt);  // the C runtime's reentrant form, arguments the other way round
#else
  gmtime_r(&tt, &tm);
#endif
  char buf[96];  // room for any int the compiler can imagine, silencing -Wformat-truncation
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  return buf;
}

std::optional<UnixMillis> parse_timestamp(std::string_view s) {
  int year, mon, day, hour, min, sec;
  if (!digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mon) ||
      s[7] != '-' || !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') ||
      !digits(s, 11, 2, hour) || s[13] != ':' || !digits(s, 14, 2, min) || s[16] != ':' ||
      !digits(s, 17, 2, sec)) {
    return std::nullopt;
  }
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59) {
    return std::nullopt;
  }
  size_t pos = 19;
  int millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int scale = 100;
    size_t n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      millis += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
      ++n;
    }
    if (n == 0) return std::nullopt;
  }
  const std::string_view zone = s.substr(pos);
  if (zone != "Z" && zone != "z" && zone != "+00:00") return std::nullopt;
  static constexpr int kDaysInMonth[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (day > kDaysInMonth[mon - 1]) return std::nullopt;
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(mon), static_cast<unsigned>(day));
  if (mon == 2 && day == 29 && days_from_civil(year, 3, 1) - days != 1) return std::nullopt;
  return ((days * 86400 + hour * 3600 + min * 60 + sec) * 1000) + millis;
}

std::optional<int64_t> parse_duration_seconds(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const std::string_view digits = text.substr(0, text.size() - 1);
  int64_t n = 0;
  const auto [ptr, err] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (err != std::errc() || ptr != digits.data() + digits.size() || n <= 0) return std::nullopt;
  int64_t scale = 0;
  switch (unit) {
    case 's':
      scale = 1;
      break;
    case 'm':
      scale = 60;
      break;
    case 'h':
      scale = 3600;
      break;
    case 'd':
      scale = 86400;
      break;
    default:
      return std::nullopt;
  }
  if (n > kMaxDurationSeconds / scale) return std::nullopt;
  return n * scale;
}

}  // namespace licensed
