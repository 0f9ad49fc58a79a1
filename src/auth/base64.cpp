#include "auth/base64.h"

#include <openssl/evp.h>

namespace licensed {

namespace {

bool is_base64_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

std::string base64_encode(const uint8_t* data, size_t size) {
  // EVP_EncodeBlock takes an int length; answers and keys are far below that.
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0 || text.size() > (1u << 20)) return std::nullopt;
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
  for (size_t i = 0; i < text.size() - padding; ++i) {
    if (!is_base64_letter(text[i])) return std::nullopt;
  }
  std::vector<uint8_t> out(text.size() / 4 * 3);
  if (text.empty()) return out;
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  // EVP_DecodeBlock counts the padding as zero bytes.
  if (n < 0 || static_cast<size_t>(n) != out.size()) return std::nullopt;
  out.resize(out.size() - padding);
  // "QR==" and "QQ==" both decode to "A"; only the canonical text is accepted.
  if (base64_encode(out.data(), out.size()) != text) return std::nullopt;
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
