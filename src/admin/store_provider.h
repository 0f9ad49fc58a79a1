// One provider's part of store fulfilment (docs/protocol.md §22), behind one shape so the inbound
// handler knows no provider: a delivery is checked (authenticity), read into a
// provider-independent StoreEvent, completed through the provider's API when the event
// does not carry what fulfilment needs (Stripe's line items, a Gumroad sale, a FastSpring
// order reference), then acted on by store_lifecycle / store_fulfilment.
//
// Every provider is a StoreProvider value; store_providers.cpp lists them. Adding a
// provider: write its signature check (auth/store_signatures.*), its payload reader
// (admin/<provider>_event.*), a StoreProvider over them, one line in the list, fixtures
// under tests/fixtures/<provider>/, unit tests and a fuzz target for each parser.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/store_fulfilment.h"
#include "core/clock.h"
#include "core/result.h"
#include "store/storefront.h"

namespace licensed {

// An inbound delivery as the HTTP layer hands it over, after steps 1-3 and the URL's
// token: header names in lower case (a repeated header keeps its first value), the body
// exactly as received (every signature covers the raw bytes).
struct InboundDelivery {
  std::map<std::string, std::string, std::less<>> headers;
  std::string body;
  UnixMillis now = 0;

  std::optional<std::string_view> header(std::string_view lower_case_name) const {
    const auto it = headers.find(lower_case_name);
    if (it == headers.end()) return std::nullopt;
    return it->second;
  }
};

// What an event asks of the licenses (docs/protocol.md §22.6's table). Anything a provider sends
// that is not in the table is kAcknowledge: recorded, answered 200, nothing changes.
enum class StoreAction {
  kAcknowledge,
  kFulfil,         // a paid order: licenses from the mapping
  kRefund,         // a full refund: the order's licenses REFUNDED
  kPartialRefund,  // audited, changes nothing
  kDispute,        // SUSPENDED, remembering this dispute set it
  kDisputeWon,     // ACTIVE again, only where this dispute set SUSPENDED
  kRenewal,        // a subscription period paid: expiresAt = period_end (never older)
  kCancellation,   // expiresAt = the current period's end (never older)
  kPaymentFailed,  // access kept for the store's paymentGrace, then SUSPENDED by a sweep
};

// A call to the provider's API that completes an event (docs/protocol.md §22.9, options.apiKey and
// options.apiBase). Made by the outgoing client under docs/protocol.md §24's rules, never inside a
// database transaction.
struct ApiLookup {
  std::string base;            // options.apiBase if set, else the provider's documented address
  std::string path_and_query;  // e.g. /v1/checkout/sessions/cs_1/line_items?limit=100
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Authorization
};

// A delivery read into what fulfilment and the lifecycle need.
struct StoreEvent {
  std::string event_key;   // docs/protocol.md §22.4: Stripe `id`, Paddle `event_id`, FastSpring
                           // events[].id, else the SHA-256 of the exact body, in hex
  std::string event_type;  // the provider's name for it, recorded with the key
  bool live = true;        // false for a test-mode event (ignored unless options.testMode)
  StoreAction action = StoreAction::kAcknowledge;
  // kFulfil: the order (lines empty while a lookup is pending). Its references name
  // everything later events of this order may cite (a payment intent, a subscription).
  VerifiedOrder order;
  // Every other action: what the event cites (an order id, a payment intent, a
  // subscription id); the lifecycle finds the order's licenses through it.
  std::string reference;
  std::string dispute_id;                  // kDispute, kDisputeWon
  std::optional<UnixMillis> period_end;    // kRenewal, kCancellation
  std::optional<UnixMillis> period_start;  // kRenewal: orders periods (never go back)
  std::optional<ApiLookup> lookup;         // set when the event needs the provider's API
};

// Makes an ApiLookup's call: the outgoing client under docs/protocol.md §24's rules in the server,
// a stand-in in unit tests. The body of a 2xx answer; kUnavailable for anything else (the delivery
// then answers 503, so the provider retries it later).
class StoreApiCaller {
 public:
  virtual ~StoreApiCaller() = default;
  virtual Result<std::string> call(const ApiLookup& lookup) = 0;
};

struct StoreProvider {
  std::string_view name;  // the {provider} of the inbound URL
  // Authenticity (docs/protocol.md §22.3): true only for a delivery signed with one of the store's
  // secrets (or, for gumroad, naming the configured seller). Constant time; no detail.
  bool (*authentic)(const InboundDelivery& delivery, const Storefront& store);
  // The event the delivery carries. kInvalidArgument for a payload the provider never
  // sends (answered as a failed check).
  Result<StoreEvent> (*read)(const InboundDelivery& delivery, const Storefront& store);
  // Completes an event whose `lookup` was made, from the API's answer body; clears
  // `lookup` (or sets the next one, for a paged answer). Null for providers that never
  // look anything up.
  Result<StoreEvent> (*complete)(StoreEvent event, std::string_view api_answer,
                                 const Storefront& store);
  // The FastSpring generator prints its answer on the receipt: the keys as text/plain,
  // one per line. Every other provider answers {"ok": true}.
  bool answers_keys_as_text = false;
  // Providers whose delivery carries several events (FastSpring's {"events": [...]}):
  // every event, in the order sent. Null for the others, whose delivery is one event
  // (`read`). The handler calls read_store_events, which picks the right one.
  Result<std::vector<StoreEvent>> (*read_all)(const InboundDelivery& delivery,
                                              const Storefront& store) = nullptr;
};

// The events a delivery carries: `read_all` where the provider has it, else the one
// event of `read`. The handler completes and applies each in order, all in one write
// transaction, and answers 200 only when every one succeeded (a failed one rolls the
// delivery back; the provider's retry finds the applied ones as duplicates).
Result<std::vector<StoreEvent>> read_store_events(const StoreProvider& provider,
                                                  const InboundDelivery& delivery,
                                                  const Storefront& store);

// The providers of docs/protocol.md §22.1 other than Stripe, each defined in
// admin/<provider>_provider.cpp.
extern const StoreProvider kPaddleStoreProvider;
extern const StoreProvider kFastSpringStoreProvider;
extern const StoreProvider kFastSpringGeneratorStoreProvider;
extern const StoreProvider kLemonSqueezyStoreProvider;
extern const StoreProvider kGumroadStoreProvider;

// The provider named `name`, or null (the URL then fails the check: 400, empty body).
const StoreProvider* find_store_provider(std::string_view name);

// Every provider, in the order of docs/protocol.md §22.1's list.
const std::vector<const StoreProvider*>& store_providers();

}  // namespace licensed
