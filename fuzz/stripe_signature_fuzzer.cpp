// Fuzzes the Stripe-Signature parser and verifier of store deliveries (docs/protocol.md §22.3,
// parse_stripe_signature and verify_stripe_signature in src/auth/store_signatures.h).
//
// The input is the header's value, optionally followed by '\n' and a body.
//
// Invariants, besides crashes, leaks and UB: the parser accepts exactly what a plain
// split on ',' and '=' says it should (one `t` of 1 to 12 digits, at least one `v1` of
// 64 hex digits, every element `scheme=value` with a scheme, at most 16 elements, at most
// 4096 bytes); what it accepts is the header's own `t` text and v1 digests; no secret
// verifies anything, and a header signed here with a secret verifies under that secret
// at its own time, whatever else the header carries.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "auth/store_signatures.h"
#include "core/hex.h"
#include "fuzz_checks.h"

namespace licensed::fuzz {
namespace {

struct Expected {
  bool valid = false;
  std::string t;
  std::vector<std::string> v1;
};

Expected oracle(std::string_view header) {
  Expected e;
  if (header.empty() || header.size() > kMaxStoreSignatureHeaderBytes) return e;
  std::vector<std::string_view> elements;
  size_t start = 0;
  for (size_t i = 0; i <= header.size(); ++i) {
    if (i == header.size() || header[i] == ',') {
      elements.push_back(header.substr(start, i - start));
      start = i + 1;
    }
  }
  if (elements.size() > kMaxStripeSignatureElements) return e;
  int ts = 0;
  for (std::string_view el : elements) {
    const size_t eq = el.find('=');
    if (eq == std::string_view::npos || eq == 0) return e;
    const std::string_view scheme = el.substr(0, eq);
    const std::string_view value = el.substr(eq + 1);
    if (scheme == "t") {
      if (++ts > 1 || !all_digits(value) || value.size() > 12) return e;
      e.t = std::string(value);
    } else if (scheme == "v1") {
      if (value.size() != 64 || !all_hex(value)) return e;
      e.v1.emplace_back(value);
    }
  }
  e.valid = ts == 1 && !e.v1.empty();
  return e;
}

std::string lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  using namespace licensed::fuzz;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view header = input.substr(0, nl);
  const std::string_view body = nl == std::string_view::npos ? "" : input.substr(nl + 1);

  const auto parsed = parse_stripe_signature(header);
  const Expected expected = oracle(header);
  require(parsed.has_value() == expected.valid, "the parser and the split disagree");
  if (parsed) {
    require(parsed->timestamp_text == expected.t, "t is not the header's own text");
    require(std::to_string(parsed->timestamp) ==
                std::string(expected.t)
                    .erase(0, std::min(expected.t.find_first_not_of('0'), expected.t.size() - 1)),
            "t's value is not its digits");
    require(parsed->v1.size() == expected.v1.size(), "v1 count differs");
    for (size_t i = 0; i < parsed->v1.size(); ++i) {
      require(to_hex(parsed->v1[i].data(), parsed->v1[i].size()) == lower(expected.v1[i]),
              "a v1 digest is not the header's");
    }
  }
  const UnixMillis now = parsed ? parsed->timestamp * 1000 : 0;
  require(!verify_stripe_signature(header, body, {}, now), "verified with no secret");

  // Signed here at the header's own time, a header carrying our v1 verifies.
  if (parsed && header.size() + 68 <= kMaxStoreSignatureHeaderBytes &&
      parsed->v1.size() < kMaxStripeSignatureElements - 1) {
    const HmacSha256 hmac("fuzz-secret");
    Sha256Digest d{};
    require(hmac.compute(parsed->timestamp_text + "." + std::string(body), d), "hmac failed");
    const std::string signed_header = std::string(header) + ",v1=" + to_hex(d.data(), d.size());
    if (parse_stripe_signature(signed_header)) {
      require(verify_stripe_signature(signed_header, body, {"other", "fuzz-secret"}, now),
              "a header signed with the secret does not verify");
    }
  }
  return 0;
}
