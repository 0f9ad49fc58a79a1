#include "duration.h"

#include <charconv>
#include <cstdint>

namespace licensed::client {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end == text.data() || n <= 0) return std::nullopt;
  const std::string_view unit(end, text.data() + text.size() - end);
  int64_t per = 0;
  if (unit == "ms")
    per = 1;
  else if (unit == "s")
    per = 1000;
  else if (unit == "m")
    per = 60'000;
  else if (unit == "h")
    per = 3'600'000;
  else if (unit == "d")
    per = 86'400'000;
  else
    return std::nullopt;
  if (n > INT64_MAX / per) return std::nullopt;
  return std::chrono::milliseconds(n * per);
}

}  // namespace licensed::client
