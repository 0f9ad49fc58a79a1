#include "auth/request_signature.h"

namespace licensed {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

bool valid_key_id(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

bool valid_request_nonce(std::string_view s) {
  if (s.size() < 16 || s.size() > 128) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

std::optional<Sha256Digest> parse_request_signature(std::string_view s) {
  if (s.size() != 3 + 64 || s.substr(0, 3) != "v1=") return std::nullopt;
  Sha256Digest out{};
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit_value(s[3 + 2 * i]);
    const int lo = hex_digit_value(s[4 + 2 * i]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

bool try_sha256(std::string_view data, Sha256Digest& out) {
  return crypto::sha256(data, out);
}

Sha256Digest sha256(std::string_view data) {
  Sha256Digest out{};
  crypto::sha256(data, out);
  return out;
}

std::string sha256_hex(std::string_view data) {
  return to_hex(sha256(data));
}

std::string canonical_string(const CanonicalRequest& r) {
  std::string out;
  out.reserve(4 + r.method.size() + r.path.size() + r.key_id.size() + r.timestamp.size() +
              r.nonce.size() + r.body_sha256_hex.size() + 6);
  out.append("v1\n").append(r.method).append("\n").append(r.path).append("\n");
  out.append(r.key_id).append("\n").append(r.timestamp).append("\n").append(r.nonce);
  out.append("\n").append(r.body_sha256_hex);
  return out;
}

std::string sign_request(std::string_view secret, const CanonicalRequest& request) {
  Sha256Digest mac{};
  HmacSha256(secret).compute(canonical_string(request), mac);
  return "v1=" + to_hex(mac);
}

bool digests_equal(const Sha256Digest& a, const Sha256Digest& b) {
  return crypto::equal_in_constant_time(a.data(), b.data(), a.size());
}

}  // namespace licensed
