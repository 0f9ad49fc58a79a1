// FastSpring's webhook deliveries as store fulfilment reads them (docs/protocol.md §22.6), after
// the X-FS-Signature check (auth/store_signatures.h). A delivery is {"events": [...]}, each event
// {"id", "type", "live", "processed", "created", "data": {...}}; each event is recorded under its
// own id (docs/protocol.md §22.4). A manual retry from FastSpring's app has a new id but the same
// order: the unit key still fulfils it once.
//   - order.completed: kFulfil; order id data.order (FastSpring's internal id), data.reference
//     (the customer-facing one) and each item's subscription kept as references; lines
//     from data.items[].product (the product path the mapping names) and quantity;
//     customer from data.customer {first, last, email} (or the expanded account's
//     contact).
//   - return.created: kRefund when data.totalReturn covers data.original.total, else
//     kPartialRefund, citing data.original.order.
//   - subscription.charge.completed: kRenewal of data.subscription; the period's end is
//     the expanded subscription's `next` (milliseconds), its start data.timestamp.
//     Without Webhook Expansion the subscription is only an id and the end is unknown.
//   - subscription.canceled: kCancellation at the subscription's deactivationDate (else
//     its `next`).
//   - subscription.charge.failed: kPaymentFailed of data.subscription.
//   - `live: false` marks a test order (live = false).
#pragma once

#include <string_view>
#include <vector>

#include "admin/store_provider.h"

namespace licensed {

// More events in one delivery than this are refused (FastSpring batches a few).
inline constexpr size_t kMaxFastSpringEvents = 100;

Result<std::vector<StoreEvent>> read_fastspring_events(std::string_view body);

}  // namespace licensed
