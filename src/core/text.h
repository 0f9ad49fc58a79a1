// Small text helpers every parser of this project needs, so each does not write its own.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>

namespace licensed {

// Without the blanks (space, tab) at either end: HTTP's optional whitespace, and what
// people put after the commas of a list.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The whole of `text` as a decimal number of type T (a sign only where T has one); nullopt
// for an empty text, anything around the digits, or a value T cannot hold.
template <class T>
std::optional<T> parse_whole_number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

inline char to_lower_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Equal but for the case of ASCII letters.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (to_lower_ascii(a[i]) != to_lower_ascii(b[i])) return false;
  }
  return true;
}

// Code points of UTF-8 text: every byte but a continuation byte starts one.
inline size_t count_code_points(std::string_view s) {
  size_t n = 0;
  for (const char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F, encoded C2 80..C2 9F).
inline bool has_control_char(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7F) return true;
    if (b == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      return true;
    }
  }
  return false;
}

}  // namespace licensed
