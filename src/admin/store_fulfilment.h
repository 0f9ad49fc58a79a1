// Store fulfilment, whatever the provider (docs/protocol.md §22): a delivery whose authenticity was
// checked and whose payload was parsed becomes a VerifiedOrder, and fulfil_order makes its
// licenses exactly once, in the caller's write transaction:
//   - the event is recorded under (store, event key) first; a key recorded before is a
//     duplicate delivery, which changes nothing;
//   - each unit of each line is claimed under (store, order id, line, unit) before its
//     license is made, so another event of the same order (Stripe's completed and
//     async_payment_succeeded, say) never fulfils it twice;
//   - a mapped item with perUnit makes one license per unit, otherwise one license with
//     max = plan max x quantity; each license keeps customer and source and has its
//     license.create audit record (actor `store`, `source`);
//   - the order's id and its `references` are kept, each naming the order, so the
//     lifecycle's later events (store_lifecycle.h) find its licenses by any of them.
// Parsing and checking a provider's request is the HTTP layer's; this knows no provider.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/license.h"
#include "core/result.h"
#include "store/store_tx.h"

namespace licensed {

// A line of an order quantity above this is refused (kInvalidArgument): one delivery
// never makes an unbounded number of licenses.
inline constexpr int64_t kMaxUnitsPerLine = 1000;

struct OrderLine {
  std::string item_id;  // the store's id of what was sold (the mapping's key)
  int64_t quantity = 1;
};

struct VerifiedOrder {
  std::string event_key;  // docs/protocol.md §22.4: Stripe `id`, Paddle `event_id`, ... or SHA-256
                          // of the body
  std::string event_type;  // the provider's name for it, kept with the event record
  std::string order_id;    // Stripe's Checkout session id, Paddle's transaction id, ...
  Customer customer;
  std::vector<OrderLine> lines;
  // Other ids later events of this order cite (Stripe's payment intent and subscription,
  // Paddle's subscription, ...): the lifecycle finds the order's licenses through them.
  std::vector<std::string> references;
};

struct Fulfilment {
  bool duplicate = false;                   // the event key was recorded before: nothing was done
  std::vector<std::string> created;         // keys made by this call, in line and unit order
  std::vector<std::string> license_keys;    // every key of the order, this call's and earlier
  std::vector<std::string> unmapped_items;  // lines with no mapping: sold, not licensed here
};

Result<Fulfilment> fulfil_order(StoreTx& tx, const Storefront& store, const VerifiedOrder& order,
                                UnixMillis now);

// The `source` of a store's audit records (docs/protocol.md §22.5): {"provider",
// "storeId", "orderId"};
// as an object, the `order` of its webhook events (docs/protocol.md §25).
boost::json::object store_order_json(const Storefront& store, std::string_view order_id);
std::string store_source_json(const Storefront& store, std::string_view order_id);

// Records an event that changes nothing (a type not acted on, a test-mode event): true when
// it was new. Duplicates of it are acknowledged as well.
Result<bool> acknowledge_event(StoreTx& tx, const Storefront& store, std::string_view event_key,
                               std::string_view event_type, UnixMillis now);

}  // namespace licensed
