// Lowercase hexadecimal, as the wire writes digests and signatures (docs/protocol.md §3).
// Header-only, so the SDK's signing library uses it without linking core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace licensed {

inline std::string to_hex(const uint8_t* data, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '\0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
  return out;
}

// The value of one hex digit of either case, or -1 when `c` is none.
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool is_hex_digit(char c) {
  return hex_digit_value(c) >= 0;
}

}  // namespace licensed
