// Invariant checks shared by the fuzzers. A violated invariant is a finding like a
// crash: it is reported and the process traps, so libFuzzer keeps the input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hex.h"

namespace licensed::fuzz {

[[noreturn]] void fail(std::string_view what);
inline void require(bool ok, std::string_view what) {
  if (!ok) fail(what);
}

// Oracle helpers of the signature-header targets: a non-empty run of decimal digits; a
// run (possibly empty) of hex digits (core/hex.h's, either case).
inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}
inline bool all_hex(std::string_view s) {
  for (char c : s) {
    if (!is_hex_digit(c)) return false;
  }
  return true;
}

// One answer of the License API as a client reads it.
struct Answer {
  unsigned status = 0;
  bool ok = false;
  std::optional<int> code;  // the numeric API code of an error, when it has one
  std::string reason;       // `reason` of a 1700
};

// Parses `bytes` as consecutive serialized HTTP answers and checks each against the
// response shape of docs/protocol.md §5: Date and X-Request-Id headers, a JSON object body
// with a boolean `ok` that is true exactly for 200, error bodies with `error`, `message`
// and `requestId`, codes paired with their HTTP status and their extra members. Codes
// 1708 and 1709 fail too: nothing in the fuzz fixture can make the store unavailable,
// so either one means a bug. Nothing may follow an answer that closes the connection.
// `requests` are the bytes the answers reply to: an answer to a HEAD request may have its
// header only. Returns the answers in order.
std::vector<Answer> check_answers(std::string_view bytes, std::string_view requests);

// For each request in `requests` that parses as far as its header, in order: whether it
// is a HEAD request. Stops at the first request whose header does not parse.
std::vector<bool> head_requests(std::string_view requests);

}  // namespace licensed::fuzz
