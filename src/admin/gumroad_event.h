// Gumroad's pings as store fulfilment reads them (docs/protocol.md §22.6). A ping is a form POST
// (application/x-www-form-urlencoded) that Gumroad does not sign: its authenticity is the
// inbound URL's token (checked by the handler) and seller_id equal to the store's
// options.sellerId. Pings are only a trigger: the server acts on nothing a ping says but
// which sale to look at, and what the sale is comes from Gumroad's API.
//   - read: the event key is the SHA-256 of the exact body; its type the ping's
//     resource_name ("sale" when absent: the product's own ping); `test` "true" marks a
//     test purchase; the event carries a lookup of GET /v2/sales/{sale_id}?access_token=
//     {options.apiKey}. A ping without sale_id is only acknowledged.
//   - complete, from the API's {"success": true, "sale": {...}}: refunded -> kRefund;
//     disputed -> kDispute, dispute_won -> kDisputeWon (dispute id the sale's); a
//     subscription cancelled or ended -> kCancellation, completed by a second lookup of
//     GET /v2/subscribers/{subscription_id} for its end (ended_at, else cancelled_at);
//     a partially refunded sale named by a refund ping -> kPartialRefund; a recurring
//     charge -> acknowledged (its licenses came with the first sale); else a sale ->
//     kFulfil of product_id x quantity, order id the sale's id, customer email and
//     full_name, the subscription a reference.
#pragma once

#include <string_view>

#include "admin/store_provider.h"

namespace licensed {

inline constexpr std::string_view kGumroadApiBase = "https://api.gumroad.com";

// Whether the ping's seller_id (exactly one) equals options.sellerId, in constant time.
bool gumroad_authentic(std::string_view body, const Storefront& store);

Result<StoreEvent> read_gumroad_event(std::string_view body, const Storefront& store);

Result<StoreEvent> complete_gumroad_event(StoreEvent event, std::string_view api_answer,
                                          const Storefront& store);

}  // namespace licensed
