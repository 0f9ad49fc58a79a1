// Stripe as a store provider (docs/protocol.md §22.3, §22.6): the Stripe-Signature check
// (auth/store_signatures.h) and the payload readers (admin/stripe_event.h) behind the
// StoreProvider shape. A paid Checkout Session is fulfilled from its line items, which
// webhooks do not carry: the event asks for
// GET {apiBase or https://api.stripe.com}/v1/checkout/sessions/{id}/line_items?limit=100
// with the store's options.apiKey, and complete() reads the answer. Later events of the
// order cite its payment intent (refunds, disputes) or its subscription (renewals,
// cancellations, failed payments), which the order keeps as references.
#pragma once

#include "admin/store_provider.h"

namespace licensed {

// Stripe's API address, used when the store sets no options.apiBase.
inline constexpr std::string_view kStripeApiBase = "https://api.stripe.com";

const StoreProvider& stripe_provider();

}  // namespace licensed
