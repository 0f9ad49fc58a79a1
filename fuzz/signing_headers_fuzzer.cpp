// Fuzzes the signing-header parser of docs/protocol.md §3.5, check 4 (parse_signing_headers).
//
// The input is up to four '\n'-separated values: X-License-Key-Id, X-License-Timestamp,
// X-License-Nonce and X-License-Signature, in that order. A missing line, or a line
// that is exactly "!" (valid in none of them), is an absent header.
//
// Invariants, besides crashes, leaks and UB: the parser accepts exactly what the
// spec's rules (spec_rules.h) accept; a refusal is 401 1700 with reason missing_header
// when a header is absent and malformed_header otherwise; what is accepted is the
// headers' own text, the timestamp's value and the signature's bytes.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "auth/signing_headers.h"
#include "fuzz_checks.h"
#include "spec_rules.h"

namespace licensed::fuzz {
namespace {

RawSigningHeaders split(std::string_view input) {
  std::optional<std::string_view> values[4];
  for (auto& v : values) {
    if (input.data() == nullptr) break;  // no lines left
    const size_t nl = input.find('\n');
    const std::string_view line = input.substr(0, nl);
    if (line != "!") v = line;
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  }
  return {values[0], values[1], values[2], values[3]};
}

std::string_view reason_of(const ApiError& e) {
  const auto* r = e.extra.if_contains("reason");
  if (r == nullptr || !r->is_string()) return {};
  return {r->get_string().data(), r->get_string().size()};
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  using namespace licensed::fuzz;
  // A non-null pointer even for an empty input: a null data() marks "no lines left".
  static const char kEmpty = 0;
  const std::string_view input(size ? reinterpret_cast<const char*>(data) : &kEmpty, size);
  const RawSigningHeaders raw = split(input);
  const auto parsed = parse_signing_headers(raw);

  const bool all_present = raw.key_id && raw.timestamp && raw.nonce && raw.signature;
  const bool spec_valid = all_present && is_valid_key_id(*raw.key_id) &&
                          is_valid_timestamp(*raw.timestamp) && is_valid_nonce(*raw.nonce) &&
                          is_valid_signature(*raw.signature);
  require(parsed.ok() == spec_valid, "the parser and the spec's rules disagree");
  if (!parsed.ok()) {
    const ApiError& e = parsed.error();
    require(e.code == ErrorCode::kBadSignature && e.http_status == 401,
            "a refusal that is not 1700");
    require(reason_of(e) == (all_present ? "malformed_header" : "missing_header"),
            "a refusal with the wrong reason");
    return 0;
  }

  const SigningHeaders& h = parsed.value();
  require(h.key_id == *raw.key_id && h.nonce == *raw.nonce && h.timestamp_text == *raw.timestamp,
          "accepted headers are not the text sent");
  // A value beyond int64 saturates: no window accepts it, so it is answered as stale.
  int64_t expected = 0;
  const std::string_view ts = *raw.timestamp;
  const auto [end, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), expected);
  if (ec == std::errc::result_out_of_range) expected = std::numeric_limits<int64_t>::max();
  require(end == ts.data() + ts.size() && h.timestamp == expected,
          "the timestamp's value is not the decimal sent");
  require(to_hex(h.signature) == to_lower_ascii(raw.signature->substr(3)),
          "the signature's bytes are not the hex sent");
  return 0;
}
