#include "admin/stripe_provider.h"

#include <boost/json/parse.hpp>

#include "admin/store_lifecycle.h"
#include "admin/stripe_event.h"
#include "auth/store_signatures.h"

namespace licensed {
namespace {

namespace json = boost::json;

Error bad(std::string_view member, std::string message) {
  return Error::invalid_argument(member, std::move(message));
}

// A member that is an id: a non-empty string, or an expanded object with one (Stripe
// expands `payment_intent`, `subscription`, `charge` on request). Empty when absent or null.
std::string id_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return {};
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_object()) {
    const auto* id = v->get_object().if_contains("id");
    if (id != nullptr && id->is_string()) return std::string(id->get_string());
  }
  return {};
}

Result<std::string> required_id(const json::object& o, std::string_view key,
                                std::string_view member) {
  std::string id = id_of(o, key);
  if (id.empty()) return bad(member, std::string(member) + " must be a non-empty string");
  return id;
}

Result<int64_t> required_integer(const json::object& o, std::string_view key,
                                 std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_int64() || v->get_int64() < 0) {
    return bad(member, std::string(member) + " must be a whole number");
  }
  return v->get_int64();
}

std::optional<UnixMillis> seconds_to_millis(const json::value* v) {
  if (v == nullptr || !v->is_int64() || v->get_int64() <= 0) return std::nullopt;
  return v->get_int64() * 1000;
}

// The store's options object (create_storefront stored an object; anything else reads
// as no options).
json::object options_of(const Storefront& store) {
  boost::system::error_code ec;
  json::value v = json::parse(store.options_json, ec);
  if (ec || !v.is_object()) return {};
  return std::move(v.get_object());
}

std::string option_string(const json::object& options, std::string_view key) {
  const auto* v = options.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

// The line items of `session_id`, one page of up to 100 (docs/protocol.md §22.9: options.apiKey,
// and options.apiBase for a stand-in).
Result<ApiLookup> line_items_lookup(const Storefront& store, std::string_view session_id) {
  const json::object options = options_of(store);
  const std::string key = option_string(options, "apiKey");
  // The delivery is sound; the store cannot fetch what it needs until the vendor gives it
  // a key, so it answers 503 and Stripe keeps retrying meanwhile.
  if (key.empty()) return Error::unavailable("the stripe store has no options.apiKey");
  std::string base = option_string(options, "apiBase");
  if (base.empty()) base = std::string(kStripeApiBase);
  while (base.ends_with('/')) base.pop_back();
  ApiLookup lookup;
  lookup.base = std::move(base);
  lookup.path_and_query =
      "/v1/checkout/sessions/" + std::string(session_id) + "/line_items?limit=100";
  lookup.headers.emplace_back("Authorization", "Bearer " + key);
  return lookup;
}

Result<StoreEvent> read_checkout(const StripeEvent& e, const Storefront& store, StoreEvent out) {
  ASSIGN_OR_RETURN(StripeCheckout checkout, parse_stripe_checkout(e));
  if (!stripe_fulfils(e, checkout)) return out;  // unpaid: acknowledged
  // Session ids go into an API path: they are Stripe's `cs_` ids, nothing else.
  for (const char c : checkout.session_id) {
    const bool ok =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!ok) return bad("data.object.id", "a session id is letters, digits and _");
  }
  out.action = StoreAction::kFulfil;
  const bool has_lines = checkout.lines.has_value();
  std::vector<OrderLine> lines = has_lines ? *checkout.lines : std::vector<OrderLine>{};
  out.order = stripe_order(e, checkout, std::move(lines));
  for (const char* key : {"payment_intent", "subscription"}) {
    std::string id = id_of(e.object, key);
    if (!id.empty()) out.order.references.push_back(std::move(id));
  }
  // A test-mode sale on a live store is recorded and ignored: nothing to look up.
  if (!has_lines && (out.live || store_in_test_mode(store))) {
    ASSIGN_OR_RETURN(out.lookup, line_items_lookup(store, checkout.session_id));
  }
  return out;
}

Result<StoreEvent> read_charge_refunded(const StripeEvent& e, StoreEvent out) {
  ASSIGN_OR_RETURN(const int64_t amount,
                   required_integer(e.object, "amount", "data.object.amount"));
  ASSIGN_OR_RETURN(const int64_t refunded,
                   required_integer(e.object, "amount_refunded", "data.object.amount_refunded"));
  out.action = refunded == amount ? StoreAction::kRefund : StoreAction::kPartialRefund;
  // A charge made outside a payment intent belongs to no order here: its own id then.
  out.reference = id_of(e.object, "payment_intent");
  if (out.reference.empty()) {
    ASSIGN_OR_RETURN(out.reference, required_id(e.object, "id", "data.object.id"));
  }
  return out;
}

Result<StoreEvent> read_dispute(const StripeEvent& e, StoreEvent out) {
  ASSIGN_OR_RETURN(out.dispute_id, required_id(e.object, "id", "data.object.id"));
  out.reference = id_of(e.object, "payment_intent");
  if (out.reference.empty()) {
    ASSIGN_OR_RETURN(out.reference, required_id(e.object, "charge", "data.object.charge"));
  }
  if (e.type == "charge.dispute.created") {
    out.action = StoreAction::kDispute;
    return out;
  }
  const auto* status = e.object.if_contains("status");
  if (status == nullptr || !status->is_string()) {
    return bad("data.object.status", "data.object.status must be a string");
  }
  if (status->get_string() == "won") out.action = StoreAction::kDisputeWon;
  return out;
}

// The subscription an invoice bills: `subscription` (API versions before 2025-03-31), or
// `parent.subscription_details.subscription` (later ones).
std::string invoice_subscription(const json::object& invoice) {
  std::string id = id_of(invoice, "subscription");
  if (!id.empty()) return id;
  const auto* parent = invoice.if_contains("parent");
  if (parent == nullptr || !parent->is_object()) return {};
  const auto* details = parent->get_object().if_contains("subscription_details");
  if (details == nullptr || !details->is_object()) return {};
  return id_of(details->get_object(), "subscription");
}

// invoice.paid, invoice.payment_failed: the subscription, and the period its lines bill
// (the latest end among them, with its start).
Result<StoreEvent> read_invoice(const StripeEvent& e, StoreEvent out) {
  out.reference = invoice_subscription(e.object);
  if (out.reference.empty()) return out;  // a one-off invoice: no subscription to act on
  out.action = e.type == "invoice.paid" ? StoreAction::kRenewal : StoreAction::kPaymentFailed;
  const auto* lines = e.object.if_contains("lines");
  const json::value* data =
      lines != nullptr && lines->is_object() ? lines->get_object().if_contains("data") : nullptr;
  if (data != nullptr && data->is_array()) {
    for (const auto& line : data->get_array()) {
      if (!line.is_object()) continue;
      const auto* period = line.get_object().if_contains("period");
      if (period == nullptr || !period->is_object()) continue;
      const auto end = seconds_to_millis(period->get_object().if_contains("end"));
      if (end && (!out.period_end || *end > *out.period_end)) {
        out.period_end = end;
        out.period_start = seconds_to_millis(period->get_object().if_contains("start"));
      }
    }
  }
  if (out.action == StoreAction::kRenewal && !out.period_end) {
    return bad("data.object.lines", "a paid subscription invoice names its period");
  }
  return out;
}

// customer.subscription.deleted: the period's end is `current_period_end` (API versions
// before 2025-03-31) or, later, each item's; the latest counts.
Result<StoreEvent> read_subscription_deleted(const StripeEvent& e, StoreEvent out) {
  ASSIGN_OR_RETURN(out.reference, required_id(e.object, "id", "data.object.id"));
  out.action = StoreAction::kCancellation;
  out.period_end = seconds_to_millis(e.object.if_contains("current_period_end"));
  const auto* items = e.object.if_contains("items");
  const json::value* data =
      items != nullptr && items->is_object() ? items->get_object().if_contains("data") : nullptr;
  if (data != nullptr && data->is_array()) {
    for (const auto& item : data->get_array()) {
      if (!item.is_object()) continue;
      const auto end = seconds_to_millis(item.get_object().if_contains("current_period_end"));
      if (end && (!out.period_end || *end > *out.period_end)) out.period_end = end;
    }
  }
  if (!out.period_end) {
    return bad("data.object.current_period_end", "a subscription names its period's end");
  }
  return out;
}

bool authentic(const InboundDelivery& delivery, const Storefront& store) {
  const auto header = delivery.header("stripe-signature");
  if (!header) return false;
  return verify_stripe_signature(*header, delivery.body, store.secrets, delivery.now);
}

Result<StoreEvent> read(const InboundDelivery& delivery, const Storefront& store) {
  ASSIGN_OR_RETURN(const StripeEvent e, parse_stripe_event(delivery.body));
  StoreEvent out;
  out.event_key = e.id;
  out.event_type = e.type;
  out.live = e.livemode;
  if (e.type == "checkout.session.completed" ||
      e.type == "checkout.session.async_payment_succeeded") {
    return read_checkout(e, store, std::move(out));
  }
  if (e.type == "charge.refunded") return read_charge_refunded(e, std::move(out));
  if (e.type == "charge.dispute.created" || e.type == "charge.dispute.closed") {
    return read_dispute(e, std::move(out));
  }
  if (e.type == "invoice.paid" || e.type == "invoice.payment_failed") {
    return read_invoice(e, std::move(out));
  }
  if (e.type == "customer.subscription.deleted") {
    return read_subscription_deleted(e, std::move(out));
  }
  return out;  // kAcknowledge
}

Result<StoreEvent> complete(StoreEvent event, std::string_view api_answer, const Storefront&) {
  ASSIGN_OR_RETURN(event.order.lines, parse_stripe_line_items(api_answer));
  event.lookup.reset();
  return event;
}

}  // namespace

const StoreProvider& stripe_provider() {
  static const StoreProvider provider{"stripe", authentic, read, complete, false};
  return provider;
}

}  // namespace licensed
