// Stripe's webhook payloads as store fulfilment reads them (docs/protocol.md §22.6), parsed after
// the Stripe-Signature check (auth/store_signatures.h). Only what fulfilment uses is read;
// everything else in Stripe's objects is ignored, so new fields never break a delivery.
//   - An event: {"id": "evt_...", "type", "livemode", "data": {"object": {...}}}.
//   - A Checkout Session (checkout.session.completed, .async_payment_succeeded):
//     "id" ("cs_..."), "payment_status" ("paid", "unpaid", "no_payment_required"),
//     "customer_details" {"email", "name"} (either may be null), and "line_items" only
//     when expanded: webhooks do not carry them, so the server fetches
//     GET /v1/checkout/sessions/{id}/line_items with the store's options.apiKey.
//   - A list of line items: {"object": "list", "data": [{"price": {"id": "price_..."},
//     "quantity": N}], "has_more"}.
// Malformed input is kInvalidArgument naming the member; nothing is guessed.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/store_fulfilment.h"

namespace licensed {

struct StripeEvent {
  std::string id;
  std::string type;
  bool livemode = false;
  boost::json::object object;  // data.object
};

Result<StripeEvent> parse_stripe_event(std::string_view body);

struct StripeCheckout {
  std::string session_id;
  std::string payment_status;
  Customer customer;
  // Set when the session carried its line items (expanded); otherwise to be fetched.
  std::optional<std::vector<OrderLine>> lines;
};

// The Checkout Session of a checkout.session.* event.
Result<StripeCheckout> parse_stripe_checkout(const StripeEvent& event);

// The line items of a session, from the list Stripe's API answers. A list with
// `has_more: true` is refused: the caller asks for up to 100 items, and a cart beyond
// that is not guessed at.
Result<std::vector<OrderLine>> parse_stripe_line_items(std::string_view list_body);
Result<std::vector<OrderLine>> stripe_line_items_from(const boost::json::value& list);

// Whether fulfilment acts on this event with this session: checkout.session.completed
// with payment_status "paid", or checkout.session.async_payment_succeeded (docs/protocol.md §22.6).
bool stripe_fulfils(const StripeEvent& event, const StripeCheckout& checkout);

// The order fulfil_order takes: event key the event's id, order id the session's id.
VerifiedOrder stripe_order(const StripeEvent& event, const StripeCheckout& checkout,
                           std::vector<OrderLine> lines);

}  // namespace licensed
