#include "admin/paddle_event.h"

#include "admin/form_body.h"
#include "admin/store_json.h"

namespace licensed {
namespace {

Result<std::vector<OrderLine>> paddle_lines(const boost::json::object& data) {
  const auto* items = data.if_contains("items");
  if (items == nullptr || !items->is_array()) {
    return store_payload_error("data.items", "data.items must be an array");
  }
  std::vector<OrderLine> out;
  for (const auto& item : items->get_array()) {
    if (!item.is_object()) return store_payload_error("data.items", "an item is an object");
    ASSIGN_OR_RETURN(const auto* price,
                     object_member(item.get_object(), "price", "data.items[].price"));
    OrderLine line;
    ASSIGN_OR_RETURN(line.item_id, string_member(*price, "id", "data.items[].price.id"));
    ASSIGN_OR_RETURN(line.quantity,
                     quantity_member(item.get_object(), "quantity", "data.items[].quantity"));
    out.push_back(std::move(line));
  }
  return out;
}

Status read_period(const boost::json::object& data, std::string_view key, std::string_view member,
                   StoreEvent& event) {
  ASSIGN_OR_RETURN(const auto* period, optional_object_member(data, key, member));
  if (period == nullptr) return Ok{};
  ASSIGN_OR_RETURN(event.period_start, optional_time_member(*period, "starts_at", member));
  ASSIGN_OR_RETURN(event.period_end, optional_time_member(*period, "ends_at", member));
  return Ok{};
}

Status read_transaction(const boost::json::object& data, const Storefront& store,
                        StoreEvent& event) {
  ASSIGN_OR_RETURN(const std::string id, string_member(data, "id", "data.id"));
  ASSIGN_OR_RETURN(const auto subscription,
                   optional_string_member(data, "subscription_id", "data.subscription_id"));
  ASSIGN_OR_RETURN(const auto origin, optional_string_member(data, "origin", "data.origin"));
  if (event.event_type == "transaction.payment_failed") {
    event.action = StoreAction::kPaymentFailed;
    event.reference = subscription.value_or(id);
    return Ok{};
  }
  if (origin == "subscription_recurring") {
    if (!subscription) {
      return store_payload_error("data.subscription_id", "a renewal names its subscription");
    }
    event.action = StoreAction::kRenewal;
    event.reference = *subscription;
    return read_period(data, "billing_period", "data.billing_period", event);
  }
  if (origin == "subscription_update" || origin == "subscription_payment_method_change") {
    return Ok{};  // a proration or a card change: nothing to license
  }
  event.action = StoreAction::kFulfil;
  event.order.order_id = id;
  if (subscription) event.order.references.push_back(*subscription);
  ASSIGN_OR_RETURN(event.order.lines, paddle_lines(data));
  ASSIGN_OR_RETURN(const auto customer,
                   optional_string_member(data, "customer_id", "data.customer_id"));
  if (customer) {
    ApiLookup lookup;
    lookup.base = store_api_base(store, kPaddleApiBase);
    const auto segment = path_segment(*customer);
    if (!segment) return store_payload_error("data.customer_id", "not a Paddle customer id");
    lookup.path_and_query = "/customers/" + *segment;
    lookup.headers.emplace_back("Authorization",
                                "Bearer " + store_option(store, "apiKey").value_or(""));
    event.lookup = std::move(lookup);
  }
  return Ok{};
}

Status read_adjustment(const boost::json::object& data, StoreEvent& event) {
  ASSIGN_OR_RETURN(const std::string action, string_member(data, "action", "data.action"));
  ASSIGN_OR_RETURN(const std::string transaction,
                   string_member(data, "transaction_id", "data.transaction_id"));
  event.reference = transaction;
  if (action == "chargeback" || action == "chargeback_reverse") {
    event.action = action == "chargeback" ? StoreAction::kDispute : StoreAction::kDisputeWon;
    event.dispute_id = transaction;
    return Ok{};
  }
  if (action != "refund") return Ok{};  // a credit, a chargeback warning
  ASSIGN_OR_RETURN(const bool approved,
                   string_member_is(data, "status", "data.status", "approved"));
  if (!approved) return Ok{};  // pending_approval, rejected
  ASSIGN_OR_RETURN(const auto type, optional_string_member(data, "type", "data.type"));
  event.action = type == "full" ? StoreAction::kRefund : StoreAction::kPartialRefund;
  return Ok{};
}

Status read_cancellation(const boost::json::object& data, StoreEvent& event) {
  ASSIGN_OR_RETURN(event.reference, string_member(data, "id", "data.id"));
  event.action = StoreAction::kCancellation;
  RETURN_IF_ERROR(
      read_period(data, "current_billing_period", "data.current_billing_period", event));
  event.period_start.reset();
  if (event.period_end) return Ok{};
  ASSIGN_OR_RETURN(const auto* change,
                   optional_object_member(data, "scheduled_change", "data.scheduled_change"));
  if (change != nullptr) {
    ASSIGN_OR_RETURN(event.period_end,
                     optional_time_member(*change, "effective_at", "data.scheduled_change"));
  }
  if (event.period_end) return Ok{};
  ASSIGN_OR_RETURN(event.period_end, optional_time_member(data, "canceled_at", "data.canceled_at"));
  if (!event.period_end) {
    return store_payload_error("data.canceled_at", "a cancellation has an end");
  }
  return Ok{};
}

}  // namespace

Result<StoreEvent> read_paddle_event(std::string_view body, const Storefront& store) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_store_json(body, "event"));
  if (!v.is_object()) return store_payload_error("event", "an event is a JSON object");
  const auto& o = v.get_object();
  StoreEvent event;
  ASSIGN_OR_RETURN(event.event_key, string_member(o, "event_id", "event_id"));
  ASSIGN_OR_RETURN(event.event_type, string_member(o, "event_type", "event_type"));
  event.live = true;
  const std::string& type = event.event_type;
  const bool transaction = type == "transaction.completed" || type == "transaction.payment_failed";
  const bool adjustment = type == "adjustment.created" || type == "adjustment.updated";
  if (!transaction && !adjustment && type != "subscription.canceled") return event;
  ASSIGN_OR_RETURN(const auto* data, object_member(o, "data", "data"));
  if (transaction) {
    RETURN_IF_ERROR(read_transaction(*data, store, event));
  } else if (adjustment) {
    RETURN_IF_ERROR(read_adjustment(*data, event));
  } else {
    RETURN_IF_ERROR(read_cancellation(*data, event));
  }
  return event;
}

Result<StoreEvent> complete_paddle_event(StoreEvent event, std::string_view api_answer) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_store_json(api_answer, "customer"));
  if (!v.is_object()) return store_payload_error("customer", "a customer answer is an object");
  ASSIGN_OR_RETURN(const auto* data, object_member(v.get_object(), "data", "data"));
  ASSIGN_OR_RETURN(event.order.customer.email,
                   optional_string_member(*data, "email", "data.email"));
  ASSIGN_OR_RETURN(event.order.customer.name, optional_string_member(*data, "name", "data.name"));
  event.lookup.reset();
  return event;
}

}  // namespace licensed
