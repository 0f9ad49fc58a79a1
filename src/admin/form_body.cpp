#include "admin/form_body.h"

#include "core/hex.h"

namespace licensed {
namespace {

std::optional<std::string> decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex_digit_value(text[i + 1]);
      const int lo = hex_digit_value(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::optional<FormParameters> parse_form_body(std::string_view body) {
  FormParameters out;
  if (body.empty()) return out;
  while (true) {
    const size_t amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    if (out.size() >= kMaxFormParameters) return std::nullopt;
    const size_t eq = pair.find('=');
    auto name = decode(pair.substr(0, eq));
    auto value = eq == std::string_view::npos ? std::optional<std::string>(std::string())
                                              : decode(pair.substr(eq + 1));
    if (!name || !value || name->empty()) return std::nullopt;
    out.emplace_back(std::move(*name), std::move(*value));
    if (amp == std::string_view::npos) break;
    body.remove_prefix(amp + 1);
  }
  return out;
}

std::optional<std::string> form_value(const FormParameters& params, std::string_view name) {
  std::optional<std::string> found;
  for (const auto& [n, v] : params) {
    if (n != name) continue;
    if (found) return std::nullopt;
    found = v;
  }
  return found;
}

std::optional<std::string> path_segment(std::string_view id) {
  constexpr size_t kMaxIdBytes = 256;
  if (id.empty() || id == "." || id == ".." || id.size() > kMaxIdBytes) return std::nullopt;
  return percent_encode(id);
}

std::string percent_encode(std::string_view value) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    const bool unreserved = (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') ||
                            (u >= '0' && u <= '9') || u == '-' || u == '.' || u == '_' || u == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kDigits[u >> 4];
      out += kDigits[u & 0xf];
    }
  }
  return out;
}

}  // namespace licensed
