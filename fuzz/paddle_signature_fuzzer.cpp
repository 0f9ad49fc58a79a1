// Fuzzes the Paddle-Signature parser and verifier of store deliveries (docs/protocol.md §22.3,
// parse_paddle_signature and verify_paddle_signature in src/auth/store_signatures.h), and
// the header checks of FastSpring (base64) and Lemon Squeezy (hex) on the same input.
//
// The input is the header's value, optionally followed by '\n' and a body.
//
// Invariants, besides crashes, leaks and UB: the parser accepts exactly what a plain
// split on ';' and '=' says it should (one `ts` of 1 to 12 digits, at least one `h1` of 64
// hex digits, every element `name=value` with a name, at most 16 elements, at most 4096
// bytes); no empty secret list verifies anything; a header signed here with a secret
// verifies under that secret at its own time, and a FastSpring or Lemon Squeezy
// signature made here verifies while the header given never does under no secret.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "auth/base64.h"
#include "auth/store_signatures.h"
#include "core/hex.h"
#include "fuzz_checks.h"

namespace licensed::fuzz {
namespace {

// Whether the header should parse, and how many h1 it carries.
std::pair<bool, size_t> oracle(std::string_view header) {
  if (header.empty() || header.size() > kMaxStoreSignatureHeaderBytes) return {false, 0};
  std::vector<std::string_view> elements;
  size_t start = 0;
  for (size_t i = 0; i <= header.size(); ++i) {
    if (i == header.size() || header[i] == ';') {
      elements.push_back(header.substr(start, i - start));
      start = i + 1;
    }
  }
  if (elements.size() > kMaxStripeSignatureElements) return {false, 0};
  int ts = 0;
  size_t h1 = 0;
  for (std::string_view el : elements) {
    const size_t eq = el.find('=');
    if (eq == std::string_view::npos || eq == 0) return {false, 0};
    const std::string_view name = el.substr(0, eq);
    const std::string_view value = el.substr(eq + 1);
    if (name == "ts") {
      if (++ts > 1 || !all_digits(value) || value.size() > 12) return {false, 0};
    } else if (name == "h1") {
      if (value.size() != 64 || !all_hex(value)) return {false, 0};
      ++h1;
    }
  }
  return {ts == 1 && h1 > 0, h1};
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

  const auto parsed = parse_paddle_signature(header);
  const auto [valid, h1_count] = oracle(header);
  require(parsed.has_value() == valid, "the parser and the split disagree");
  if (parsed) require(parsed->h1.size() == h1_count, "h1 count differs");
  const UnixMillis now = parsed ? parsed->timestamp * 1000 : 0;
  require(!verify_paddle_signature(header, body, {}, now), "verified with no secret");
  require(!verify_fastspring_signature(header, body, {}), "fastspring verified with no secret");
  require(!verify_lemonsqueezy_signature(header, body, {}), "lemonsqueezy verified with no secret");

  if (parsed && header.size() + 68 <= kMaxStoreSignatureHeaderBytes &&
      parsed->h1.size() + 2 < kMaxStripeSignatureElements) {
    const HmacSha256 hmac("fuzz-secret");
    Sha256Digest d{};
    require(hmac.compute(parsed->timestamp_text + ":" + std::string(body), d), "hmac failed");
    const std::string signed_header = std::string(header) + ";h1=" + to_hex(d.data(), d.size());
    // Elements of other schemes count toward the limit too: one more may make the header
    // one too many (the oracle says so), and then nothing verifies, rightly.
    if (parse_paddle_signature(signed_header)) {
      require(verify_paddle_signature(signed_header, body, {"other", "fuzz-secret"}, now),
              "a header signed with the secret does not verify");
    } else {
      require(!oracle(signed_header).first, "the parser refuses a header the split accepts");
    }
  }
  const HmacSha256 hmac("fuzz-secret");
  Sha256Digest d{};
  require(hmac.compute(body, d), "hmac failed");
  require(verify_fastspring_signature(base64_encode(d.data(), d.size()), body, {"fuzz-secret"}),
          "a FastSpring signature made here does not verify");
  require(verify_lemonsqueezy_signature(to_hex(d.data(), d.size()), body, {"x", "fuzz-secret"}),
          "a Lemon Squeezy signature made here does not verify");
  return 0;
}
