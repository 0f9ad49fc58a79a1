// Fuzzes the parser and verifier of X-License-Response-Signature (docs/protocol.md §13),
// the header every client reads from whoever answers it: a hostile proxy included.
//
// The input is one header value. Invariants, besides crashes, leaks and UB: what parses
// has a kid of 1-64 of [A-Za-z0-9._-], a tree index below its size of at most 4096 and
// a path of whole hashes; a parsed plain Ed25519 header formats back to a text that
// parses to the same values; and no input verifies under a key that signed nothing (a
// forgery would be a broken library, or a verifier that skips the check).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "auth/response_signature.h"
#include "fuzz_checks.h"

namespace licensed::fuzz {
namespace {

bool is_kid_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// A fixed public key no one holds the private half of in this process.
std::vector<PinnedResponseKey> pinned_keys(std::string_view kid) {
  Ed25519PublicKey key{};
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(0x5a ^ (i * 7));
  PinnedResponseKey ed = pin_ed25519(key);
  ed.kid = std::string(kid);
  return {ed};
}

}  // namespace
}  // namespace licensed::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  using namespace licensed::fuzz;
  const std::string_view header(reinterpret_cast<const char*>(data), size);
  const auto parsed = parse_response_signature(header);
  if (parsed) {
    require(!parsed->kid.empty() && parsed->kid.size() <= 64, "kid length out of range");
    for (const char c : parsed->kid) require(is_kid_char(c), "kid character out of range");
    require(parsed->t >= 0, "negative t");
    if (parsed->tree) {
      require(parsed->tree->size >= 1 && parsed->tree->size <= 4096, "tree size out of range");
      require(parsed->tree->index < parsed->tree->size, "index past the tree");
    } else {
      // Either algorithm: the server formats ES256 answers with the same function.
      const auto again = parse_response_signature(
          format_response_signature(parsed->kid, parsed->t, parsed->signature, parsed->algorithm));
      require(again && again->kid == parsed->kid && again->t == parsed->t &&
                  again->algorithm == parsed->algorithm && again->signature == parsed->signature &&
                  !again->tree,
              "a parsed plain header does not survive formatting");
    }
  }
  const auto kid = parsed ? std::string_view(parsed->kid) : std::string_view("fuzz");
  const std::string bound(64, 'a');
  require(!verify_response_signature(pinned_keys(kid), header, bound, 200, "{}").has_value(),
          "an answer verified under a key that signed nothing");
  return 0;
}
