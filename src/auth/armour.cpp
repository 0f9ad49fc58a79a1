#include "auth/armour.h"

#include "auth/base64.h"

namespace licensed {
namespace {

constexpr size_t kColumns = 64;
constexpr std::string_view kBegin = "-----BEGIN ";
constexpr std::string_view kEnd = "-----END ";
constexpr std::string_view kDashes = "-----";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A-Z words separated by single spaces.
bool is_label(std::string_view label) {
  if (label.empty() || label.front() == ' ' || label.back() == ' ') return false;
  char previous = 'A';
  for (const char c : label) {
    if (c == ' ' ? previous == ' ' : (c < 'A' || c > 'Z')) return false;
    previous = c;
  }
  return true;
}

// The label of "<prefix><LABEL>-----", or nullopt.
std::optional<std::string_view> boundary_label(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size() + kDashes.size() || line.substr(0, prefix.size()) != prefix ||
      line.substr(line.size() - kDashes.size()) != kDashes) {
    return std::nullopt;
  }
  const std::string_view label =
      line.substr(prefix.size(), line.size() - prefix.size() - kDashes.size());
  if (!is_label(label)) return std::nullopt;
  return label;
}

// The non-blank lines of `text`, trimmed.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    if (!line.empty()) out.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace

std::string armour(std::string_view label, std::string_view bytes) {
  const std::string body =
      base64_encode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::string out = std::string(kBegin) + std::string(label) + std::string(kDashes) + "\n";
  for (size_t at = 0; at < body.size(); at += kColumns) {
    out.append(body, at, kColumns).push_back('\n');
  }
  out += std::string(kEnd) + std::string(label) + std::string(kDashes) + "\n";
  return out;
}

std::optional<Dearmoured> dearmour(std::string_view text) {
  if (text.size() > kMaxArmouredBytes) return std::nullopt;
  const std::vector<std::string_view> lines = lines_of(text);
  if (lines.size() < 3) return std::nullopt;
  const auto begin = boundary_label(lines.front(), kBegin);
  const auto end = boundary_label(lines.back(), kEnd);
  if (!begin || !end || *begin != *end) return std::nullopt;
  std::string body;
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    const bool last = i + 2 == lines.size();
    if (lines[i].size() > kColumns || (!last && lines[i].size() != kColumns)) return std::nullopt;
    body += lines[i];
  }
  auto bytes = base64_decode(body);
  if (!bytes || bytes->empty()) return std::nullopt;
  return Dearmoured{std::string(*begin), std::move(*bytes)};
}

std::optional<std::vector<uint8_t>> dearmour_as(std::string_view text, std::string_view label) {
  auto d = dearmour(text);
  if (!d || d->label != label) return std::nullopt;
  return std::move(d->bytes);
}

}  // namespace licensed
