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

}  // namespace licensed
