// The FastSpring remote license generator (docs/protocol.md §22.3, §22.6, provider
// `fastspring-generator`): at checkout FastSpring POSTs a form (application/x-www-form-urlencoded)
// of the parameters the vendor chose in FastSpring's app (reference, internalProductName, quantity,
// email, name, company, subscriptionReference, test, ...) plus security_request_hash, and prints
// the answer (the keys, one per line) on the receipt.
//   - Authenticity: the store's options.generatorParams lists the accepted names; each
//     must appear exactly once, nothing else but security_request_hash (also once), and
//     the hash must be MD5 of the sorted values and one of the store's secrets (the
//     generator's private key).
//   - The event: key SHA-256 of the exact body; kFulfil of the order `reference`,
//     customer from `email` and `name`; `test` "true" marks a test order. The form is not
//     trusted for what was bought: the event carries a lookup of GET /orders/{reference}
//     (options.apiKey "user:password" as HTTP basic auth), and
//     complete_fastspring_generator_event keeps the order only when FastSpring answers it
//     as completed, taking its lines (items[].product and quantity) from that answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/form_body.h"
#include "admin/store_provider.h"

namespace licensed {

inline constexpr std::string_view kFastSpringApiBase = "https://api.fastspring.com";
inline constexpr std::string_view kFastSpringGeneratorEventType = "fastspring.license_request";

// options.generatorParams: the accepted parameter names (empty when absent or malformed,
// which accepts nothing).
std::vector<std::string> fastspring_generator_params(const Storefront& store);

// Whether the form's names are exactly the configured ones, once each, plus one
// security_request_hash, and the hash verifies under one of the store's secrets.
bool fastspring_generator_authentic(std::string_view body, const Storefront& store);

Result<StoreEvent> read_fastspring_generator_event(std::string_view body, const Storefront& store);

// The order FastSpring's API answered (the order object, or {"orders": [...]}) holding
// the reference: kInvalidArgument when FastSpring does not confirm a completed order of
// that reference (the delivery then fails its check and no key is issued).
Result<StoreEvent> complete_fastspring_generator_event(StoreEvent event,
                                                       std::string_view api_answer);

}  // namespace licensed
