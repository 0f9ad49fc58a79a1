#include "auth/signing_headers.h"

#include <limits>
#include <string>

namespace licensed {
namespace {

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

ApiError missing(std::string_view header) {
  return errors::bad_signature(errors::kMissingHeader, "missing header " + std::string(header));
}

ApiError malformed(std::string_view header) {
  return errors::bad_signature(errors::kMalformedHeader, "malformed header " + std::string(header));
}

}  // namespace

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
  if (!valid_request_nonce(*raw.nonce)) return malformed("X-License-Nonce");
  out.nonce = *raw.nonce;
  const auto sig = parse_request_signature(*raw.signature);
  if (!sig) return malformed("X-License-Signature");
  out.signature = *sig;
  return out;
}

}  // namespace licensed
