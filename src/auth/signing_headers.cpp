#include "auth/signing_headers.h"

#include <limits>
#include <string>

#include "core/hex.h"

namespace licensed {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool valid_nonce(std::string_view s) {
  if (s.size() < 16 || s.size() > 128) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

// Decimal, no sign, no leading zeros, of any length (the spec sets none). A value too
// large for int64 saturates: it is well formed, so it must be answered as outside the
// window (1701, whose serverTime lets the client fix its clock), not as malformed.
std::optional<int64_t> parse_unix_seconds(std::string_view s) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    v = v > (kMax - digit) / 10 ? kMax : v * 10 + digit;
  }
  return v;
}

std::optional<Sha256Digest> parse_signature(std::string_view s) {
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

ApiError missing(std::string_view header) {
  return errors::bad_signature(errors::kMissingHeader, "missing header " + std::string(header));
}

ApiError malformed(std::string_view header) {
  return errors::bad_signature(errors::kMalformedHeader, "malformed header " + std::string(header));
}

}  // namespace

bool valid_key_id(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

ApiResult<SigningHeaders> parse_signing_headers(const RawSigningHeaders& raw) {
  // All presence checks come first, so that a request missing one header and
  // malforming another is consistently told about the missing one.
  if (!raw.key_id) return missing("X-License-Key-Id");
  if (!raw.timestamp) return missing("X-License-Timestamp");
  if (!raw.nonce) return missing("X-License-Nonce");
  if (!raw.signature) return missing("X-License-Signature");

  SigningHeaders out;
  if (!valid_key_id(*raw.key_id)) return malformed("X-License-Key-Id");
  out.key_id = *raw.key_id;
  const auto ts = parse_unix_seconds(*raw.timestamp);
  if (!ts) return malformed("X-License-Timestamp");
  out.timestamp = *ts;
  out.timestamp_text = *raw.timestamp;
  if (!valid_nonce(*raw.nonce)) return malformed("X-License-Nonce");
  out.nonce = *raw.nonce;
  const auto sig = parse_signature(*raw.signature);
  if (!sig) return malformed("X-License-Signature");
  out.signature = *sig;
  return out;
}

}  // namespace licensed
