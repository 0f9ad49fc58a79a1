// Fuzzes the fastspring store provider's reader of multi-event deliveries
// (src/admin/fastspring_event.h), with the invariants of fuzz/store_event_checks.h.
// The input is one JSON body, read as a delivery of {"events": [...]}; the
// seed corpus is tests/fixtures/fastspring/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store_event_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  licensed::Storefront store;
  store.provider = "fastspring";
  store.secrets = {"s"};
  store.options_json = "{}";
  licensed::fuzz::fuzz_store_provider(
      "fastspring", std::string_view(reinterpret_cast<const char*>(data), size), store, 0);
  return 0;
}
