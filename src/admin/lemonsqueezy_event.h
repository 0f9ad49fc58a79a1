// Lemon Squeezy's webhook payloads as store fulfilment reads them (docs/protocol.md §22.6), after
// the X-Signature check (auth/store_signatures.h). A payload is JSON:API:
// {"meta": {"event_name", "test_mode", "custom_data", ...}, "data": {"type", "id",
// "attributes": {...}}}; the event key is the SHA-256 of the exact body (Lemon Squeezy
// sends no event id).
//   - order_created with attributes.status "paid": kFulfil; order id data.id, its
//     `identifier` (a UUID, what the claim page takes) a reference; the one line from
//     first_order_item.variant_id (the mapping's key) and its quantity (1 when absent);
//     customer user_email and user_name.
//   - order_refunded: kRefund when refunded_amount reaches total, else kPartialRefund.
//   - subscription_cancelled (a subscription object): kCancellation of the order it was
//     bought in (attributes.order_id) at attributes.ends_at.
//   - subscription_payment_success / _failed (a subscription invoice): kRenewal /
//     kPaymentFailed. An invoice names only its subscription, so the event carries a
//     lookup of GET /v1/subscriptions/{subscription_id} (options.apiKey as a bearer
//     token); complete_lemonsqueezy_event takes the order id and, for a renewal, the
//     period's end (renews_at) from the answer.
//   - meta.test_mode true marks a test-mode event (live = false).
#pragma once

#include <string_view>

#include "admin/store_provider.h"

namespace licensed {

inline constexpr std::string_view kLemonSqueezyApiBase = "https://api.lemonsqueezy.com";

Result<StoreEvent> read_lemonsqueezy_event(std::string_view body, const Storefront& store);

// Completes an invoice event from the subscription Lemon Squeezy's API answered.
Result<StoreEvent> complete_lemonsqueezy_event(StoreEvent event, std::string_view api_answer);

}  // namespace licensed
