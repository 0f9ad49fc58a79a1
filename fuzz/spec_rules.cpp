#include "spec_rules.h"

#include <algorithm>

namespace licensed::fuzz {
namespace {

bool all_of_set(std::string_view s, std::string_view allowed) {
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return allowed.find(c) != std::string_view::npos; });
}

constexpr std::string_view kAlnum =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view kHex = "0123456789abcdefABCDEF";

std::optional<std::u32string> code_points_if_clean(std::string_view s) {
  auto decoded = decode_utf8(s);
  if (!decoded) return std::nullopt;
  if (std::any_of(decoded->begin(), decoded->end(), is_control)) return std::nullopt;
  return decoded;
}

}  // namespace

std::optional<std::u32string> decode_utf8(std::string_view bytes) {
  std::u32string out;
  size_t i = 0;
  while (i < bytes.size()) {
    const auto b0 = static_cast<unsigned char>(bytes[i]);
    size_t len = 0;
    char32_t cp = 0;
    char32_t min = 0;
    if (b0 < 0x80) {
      len = 1;
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0) {
      len = 2;
      cp = b0 & 0x1F;
      min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3;
      cp = b0 & 0x0F;
      min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4;
      cp = b0 & 0x07;
      min = 0x10000;
    } else {
      return std::nullopt;
    }
    if (i + len > bytes.size()) return std::nullopt;
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(bytes[i + k]);
      if ((b & 0xC0) != 0x80) return std::nullopt;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    out.push_back(cp);
    i += len;
  }
  return out;
}

bool is_control(char32_t c) {
  return c <= 0x1F || (c >= 0x7F && c <= 0x9F);
}

bool is_uuid_v4(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i : {8, 13, 18, 23}) {
    if (s[i] != '-') return false;
  }
  const std::string_view groups[] = {s.substr(0, 8), s.substr(9, 4), s.substr(14, 4),
                                     s.substr(19, 4), s.substr(24, 12)};
  for (auto g : groups) {
    if (!all_of_set(g, kHex)) return false;
  }
  return s[14] == '4' && std::string_view("89abAB").find(s[19]) != std::string_view::npos;
}

bool is_lowercase(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool is_valid_machine_id(std::string_view s) {
  const auto cps = code_points_if_clean(s);
  return cps && cps->size() >= 8 && cps->size() <= 128;
}

bool is_valid_machine_name(std::string_view s) {
  const auto cps = code_points_if_clean(s);
  return cps && cps->size() <= 100;
}

bool is_valid_text(std::string_view s, size_t min_code_points, size_t max_code_points) {
  const auto cps = code_points_if_clean(s);
  return cps && cps->size() >= min_code_points && cps->size() <= max_code_points;
}

bool is_valid_key_id(std::string_view s) {
  return !s.empty() && s.size() <= 64 && all_of_set(s, std::string(kAlnum) + "._-");
}

bool is_valid_timestamp(std::string_view s) {
  if (s.empty() || !all_of_set(s, "0123456789")) return false;
  return s == "0" || s[0] != '0';
}

bool is_valid_nonce(std::string_view s) {
  return s.size() >= 16 && s.size() <= 128 && all_of_set(s, std::string(kAlnum) + "_-");
}

bool is_valid_signature(std::string_view s) {
  return s.size() == 67 && s.substr(0, 3) == "v1=" && all_of_set(s.substr(3), kHex);
}

std::string to_lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace licensed::fuzz
