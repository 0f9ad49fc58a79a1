// Fuzzes the armour of offline files (docs/protocol.md §21.1, dearmour in src/auth/armour.h): every
// request, activation and deactivation file a customer pastes goes through it first.
//
// The input is the pasted text. Invariants, besides crashes, leaks and UB: what dearmour
// accepts armours back (armour) to text that dearmours to the same label and bytes, and
// that canonical text is accepted; nothing over kMaxArmouredBytes is accepted.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/armour.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using licensed::fuzz::require;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto read = licensed::dearmour(text);
  if (!read) return 0;
  require(size <= licensed::kMaxArmouredBytes, "accepted text over the limit");
  const std::string bytes(read->bytes.begin(), read->bytes.end());
  const std::string again = licensed::armour(read->label, bytes);
  const auto reread = licensed::dearmour(again);
  require(reread.has_value(), "the canonical armour of accepted text is refused");
  require(reread->label == read->label && reread->bytes == read->bytes,
          "armour and dearmour disagree");
  return 0;
}
