#include "auth/base64.h"

namespace licensed {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// Longer texts are refused: answers, keys and signatures are far below this.
constexpr size_t kMaxDecodedText = size_t{1} << 20;

// The six bits `c` stands for, or -1 when it is not one of the 64 letters.
int letter_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// The number of "=" the text ends with, when they are only at its end (at most two).
std::optional<size_t> padding_of(std::string_view text) {
  size_t padding = 0;
  while (padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  if (padding > 2) return std::nullopt;
  return padding;
}

}  // namespace

std::string base64_encode(const uint8_t* data, size_t size) {
  std::string out;
  out.reserve(4 * ((size + 2) / 3));
  for (size_t i = 0; i < size; i += 3) {
    const size_t n = std::min<size_t>(3, size - i);
    uint32_t group = uint32_t{data[i]} << 16;
    if (n > 1) group |= uint32_t{data[i + 1]} << 8;
    if (n > 2) group |= data[i + 2];
    out.push_back(kAlphabet[(group >> 18) & 63]);
    out.push_back(kAlphabet[(group >> 12) & 63]);
    out.push_back(n > 1 ? kAlphabet[(group >> 6) & 63] : '=');
    out.push_back(n > 2 ? kAlphabet[group & 63] : '=');
  }
  return out;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0 || text.size() > kMaxDecodedText) return std::nullopt;
  const auto padding = padding_of(text);
  if (!padding) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int held = 0;  // bits in `bits` not yet written out
  for (const char c : text.substr(0, text.size() - *padding)) {
    const int value = letter_value(c);
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<uint8_t>(bits >> held));
      bits &= (1u << held) - 1;
    }
  }
  // "QR==" and "QQ==" would both be "A": only the text whose unused bits are zero (the
  // one the encoder writes) is accepted.
  if (bits != 0) return std::nullopt;
  return out;
}

std::string base64url_encode(const uint8_t* data, size_t size) {
  std::string out = base64_encode(data, size);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

std::optional<std::vector<uint8_t>> base64url_decode(std::string_view text) {
  std::string standard(text);
  for (char& c : standard) {
    if (c == '+' || c == '/' || c == '=') return std::nullopt;
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (standard.size() % 4 != 0) standard.push_back('=');
  return base64_decode(standard);
}

}  // namespace licensed
