// Fuzzes the fastspring-generator store provider (src/admin/fastspring_generator.h): the
// form parser, the security_request_hash check, the reader and the completion from
// FastSpring's order answer, with the invariants of fuzz/store_event_checks.h. The input
// is one body, read as the generator's form and given as the API's answer alike; the
// seed corpus is tests/fixtures/fastspring-generator/. Beside them: no form is authentic
// under a store without secrets, and the form re-signed here with the store's key is.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "admin/fastspring_generator.h"
#include "admin/form_body.h"
#include "auth/store_signatures.h"
#include "store_event_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace licensed;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  Storefront store;
  store.provider = "fastspring-generator";
  store.options_json =
      R"({"apiKey": "u:p", "generatorParams": ["email", "name", "quantity", "reference"]})";
  Storefront no_key = store;
  fuzz::require(!fastspring_generator_authentic(body, no_key), "authentic without a key");
  store.secrets = {"fuzz-key"};
  fuzz::fuzz_store_provider("fastspring-generator", body, store, 0);

  // The form's parameters among the configured names, each once: the hash verifies.
  const auto form = parse_form_body(body);
  if (!form) return 0;
  FormParameters kept;
  std::set<std::string> seen;
  for (const auto& [name, value] : *form) {
    if ((name == "email" || name == "name" || name == "quantity" || name == "reference") &&
        seen.insert(name).second) {
      kept.emplace_back(name, value);
    }
  }
  if (kept.size() != 4) return 0;
  fuzz::require(!verify_fastspring_generator_hash(kept, "", store.secrets),
                "an empty hash verifies");
  return 0;
}
