// Fuzzes the paddle store provider's payload reader and its completion from the customer
// lookup (src/admin/paddle_event.h), with the invariants of fuzz/store_event_checks.h.
// The input is one JSON body, read as an event and given as the API's answer alike; the
// seed corpus is tests/fixtures/paddle/.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store_event_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  licensed::Storefront store;
  store.provider = "paddle";
  store.secrets = {"s"};
  store.options_json = R"({"apiKey": "k"})";
  licensed::fuzz::fuzz_store_provider(
      "paddle", std::string_view(reinterpret_cast<const char*>(data), size), store, 0);
  return 0;
}
