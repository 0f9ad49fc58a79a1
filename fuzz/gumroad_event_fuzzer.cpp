// Fuzzes the gumroad store provider (src/admin/gumroad_event.h): the ping's form parser
// (src/admin/form_body.h), the seller check, the reader, and the completion from the
// API's sale and subscriber answers, with the invariants of fuzz/store_event_checks.h.
// The input is one body, read as a ping and given as the API's answer alike; the seed
// corpus is tests/fixtures/gumroad/. Beside them: a form that parses re-encodes to one
// that parses to the same pairs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "admin/form_body.h"
#include "store_event_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  if (const auto form = parse_form_body(body)) {
    std::string again;
    for (const auto& [name, value] : *form) {
      if (!again.empty()) again += '&';
      again += percent_encode(name) + "=" + percent_encode(value);
    }
    const auto reparsed = parse_form_body(again);
    fuzz::require(reparsed.has_value() && *reparsed == *form, "a form does not round-trip");
  }
  Storefront store;
  store.provider = "gumroad";
  store.options_json = R"({"apiKey": "k", "sellerId": "gRsFixtureSeller0001=="})";
  fuzz::fuzz_store_provider("gumroad", body, store, 0);
  return 0;
}
