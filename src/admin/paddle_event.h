// Paddle Billing's webhook payloads as store fulfilment reads them (docs/protocol.md §22.6), after
// the Paddle-Signature check (auth/store_signatures.h). An event is
// {"event_id": "evt_...", "event_type", "occurred_at", "notification_id", "data": {...}};
// only what fulfilment and the lifecycle use is read, so new fields never break one.
//   - transaction.completed: a sale (kFulfil; order id the transaction's id, lines from
//     items[].price.id and quantity, its subscription_id a reference), or, when its
//     origin is subscription_recurring, a renewal (kRenewal of the subscription for
//     billing_period). Origins subscription_update and subscription_payment_method_change
//     change nothing here (acknowledged). The buyer's email is not in the event, only
//     customer_id: the sale carries a lookup of GET /customers/{customer_id}
//     (options.apiKey as a bearer token) and complete_paddle_event takes email and name
//     from its answer {"data": {"email", "name", ...}}.
//   - adjustment.created / .updated: action refund with status approved is kRefund when
//     its type is "full" (Paddle's adjustment of the grand total), else kPartialRefund;
//     action chargeback is kDispute and chargeback_reverse kDisputeWon, both citing the
//     transaction (reference and dispute id: one chargeback per transaction).
//   - subscription.canceled: kCancellation of the subscription at the end of its current
//     billing period, else of its scheduled change, else at canceled_at.
//   - transaction.payment_failed: kPaymentFailed of its subscription (or transaction).
// Paddle has no live flag (a sandbox is another account): every event is live.
#pragma once

#include <string_view>

#include "admin/store_provider.h"

namespace licensed {

inline constexpr std::string_view kPaddleApiBase = "https://api.paddle.com";

Result<StoreEvent> read_paddle_event(std::string_view body, const Storefront& store);

// Completes a sale from the answer of its customer lookup.
Result<StoreEvent> complete_paddle_event(StoreEvent event, std::string_view api_answer);

}  // namespace licensed
