#include "admin/fastspring_event.h"

#include <cmath>

#include "admin/store_json.h"

namespace licensed {
namespace {

// An expanded object's id ("id", else the backward-compatible name), or the id itself.
Result<std::string> id_or_object(const boost::json::object& o, std::string_view key,
                                 std::string_view legacy, std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v != nullptr && v->is_object()) {
    const auto& inner = v->get_object();
    if (inner.if_contains("id") != nullptr) return string_member(inner, "id", member);
    return string_member(inner, legacy, member);
  }
  return string_member(o, key, member);
}

Result<Customer> fastspring_customer(const boost::json::object& data) {
  const boost::json::object* contact = nullptr;
  ASSIGN_OR_RETURN(contact, optional_object_member(data, "customer", "data.customer"));
  if (contact == nullptr) {
    if (const auto* account = data.if_contains("account"); account && account->is_object()) {
      ASSIGN_OR_RETURN(contact, optional_object_member(account->get_object(), "contact",
                                                       "data.account.contact"));
    }
  }
  Customer c;
  if (contact == nullptr) return c;
  ASSIGN_OR_RETURN(c.email, optional_string_member(*contact, "email", "data.customer.email"));
  ASSIGN_OR_RETURN(const auto first,
                   optional_string_member(*contact, "first", "data.customer.first"));
  ASSIGN_OR_RETURN(const auto last, optional_string_member(*contact, "last", "data.customer.last"));
  if (first && last) {
    c.name = *first + " " + *last;
  } else if (first || last) {
    c.name = first ? *first : *last;
  }
  return c;
}

Status read_order(const boost::json::object& data, StoreEvent& event) {
  event.action = StoreAction::kFulfil;
  ASSIGN_OR_RETURN(event.order.order_id, string_member(data, "order", "data.order"));
  ASSIGN_OR_RETURN(const auto reference,
                   optional_string_member(data, "reference", "data.reference"));
  if (reference) event.order.references.push_back(*reference);
  ASSIGN_OR_RETURN(event.order.customer, fastspring_customer(data));
  const auto* items = data.if_contains("items");
  if (items == nullptr || !items->is_array()) {
    return store_payload_error("data.items", "data.items must be an array");
  }
  for (const auto& item : items->get_array()) {
    if (!item.is_object()) return store_payload_error("data.items", "an item is an object");
    const auto& i = item.get_object();
    OrderLine line;
    ASSIGN_OR_RETURN(line.item_id, string_member(i, "product", "data.items[].product"));
    ASSIGN_OR_RETURN(line.quantity, quantity_member(i, "quantity", "data.items[].quantity"));
    event.order.lines.push_back(std::move(line));
    const auto* subscription = i.if_contains("subscription");
    if (subscription != nullptr && !subscription->is_null()) {
      ASSIGN_OR_RETURN(std::string id, id_or_object(i, "subscription", "subscription",
                                                    "data.items[].subscription"));
      event.order.references.push_back(std::move(id));
    }
  }
  return Ok{};
}

int64_t cents(double amount) {
  return std::llround(amount * 100);
}

Status read_return(const boost::json::object& data, StoreEvent& event) {
  ASSIGN_OR_RETURN(const auto* original, object_member(data, "original", "data.original"));
  ASSIGN_OR_RETURN(event.reference, original->if_contains("order") != nullptr
                                        ? string_member(*original, "order", "data.original.order")
                                        : string_member(*original, "id", "data.original.id"));
  ASSIGN_OR_RETURN(const double total, number_member(*original, "total", "data.original.total"));
  ASSIGN_OR_RETURN(const double returned, number_member(data, "totalReturn", "data.totalReturn"));
  event.action =
      cents(returned) >= cents(total) ? StoreAction::kRefund : StoreAction::kPartialRefund;
  return Ok{};
}

// The expanded subscription object of data.subscription, or null when it is only an id.
const boost::json::object* expanded_subscription(const boost::json::object& data) {
  const auto* v = data.if_contains("subscription");
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

Result<std::optional<UnixMillis>> optional_millis(const boost::json::object& o,
                                                  std::string_view key, std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<UnixMillis>();
  ASSIGN_OR_RETURN(const int64_t ms, integer_member(o, key, member));
  return std::optional<UnixMillis>(ms);
}

Status read_charge(const boost::json::object& data, StoreEvent& event) {
  ASSIGN_OR_RETURN(event.reference,
                   id_or_object(data, "subscription", "subscription", "data.subscription"));
  if (event.event_type == "subscription.charge.failed") {
    event.action = StoreAction::kPaymentFailed;
    return Ok{};
  }
  event.action = StoreAction::kRenewal;
  ASSIGN_OR_RETURN(event.period_start, optional_millis(data, "timestamp", "data.timestamp"));
  if (const auto* subscription = expanded_subscription(data)) {
    ASSIGN_OR_RETURN(event.period_end,
                     optional_millis(*subscription, "next", "data.subscription.next"));
  }
  return Ok{};
}

Status read_cancellation(const boost::json::object& data, StoreEvent& event) {
  event.action = StoreAction::kCancellation;
  ASSIGN_OR_RETURN(event.reference, data.if_contains("id") != nullptr
                                        ? string_member(data, "id", "data.id")
                                        : string_member(data, "subscription", "data.subscription"));
  ASSIGN_OR_RETURN(event.period_end,
                   optional_millis(data, "deactivationDate", "data.deactivationDate"));
  if (!event.period_end) {
    ASSIGN_OR_RETURN(event.period_end, optional_millis(data, "next", "data.next"));
  }
  if (!event.period_end) {
    return store_payload_error("data.deactivationDate", "a cancellation has an end");
  }
  return Ok{};
}

Result<StoreEvent> read_one(const boost::json::value& v) {
  if (!v.is_object()) return store_payload_error("events[]", "an event is an object");
  const auto& o = v.get_object();
  StoreEvent event;
  ASSIGN_OR_RETURN(event.event_key, string_member(o, "id", "events[].id"));
  ASSIGN_OR_RETURN(event.event_type, string_member(o, "type", "events[].type"));
  ASSIGN_OR_RETURN(event.live, bool_member(o, "live", "events[].live"));
  const std::string& type = event.event_type;
  const bool charge =
      type == "subscription.charge.completed" || type == "subscription.charge.failed";
  if (type != "order.completed" && type != "return.created" && !charge &&
      type != "subscription.canceled") {
    return event;
  }
  ASSIGN_OR_RETURN(const auto* data, object_member(o, "data", "events[].data"));
  if (type == "order.completed") {
    RETURN_IF_ERROR(read_order(*data, event));
  } else if (type == "return.created") {
    RETURN_IF_ERROR(read_return(*data, event));
  } else if (charge) {
    RETURN_IF_ERROR(read_charge(*data, event));
  } else {
    RETURN_IF_ERROR(read_cancellation(*data, event));
  }
  return event;
}

}  // namespace

Result<std::vector<StoreEvent>> read_fastspring_events(std::string_view body) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_store_json(body, "events"));
  if (!v.is_object()) return store_payload_error("events", "a delivery is a JSON object");
  const auto* events = v.get_object().if_contains("events");
  if (events == nullptr || !events->is_array() || events->get_array().empty() ||
      events->get_array().size() > kMaxFastSpringEvents) {
    return store_payload_error("events", "events must be an array of 1 to " +
                                             std::to_string(kMaxFastSpringEvents) + " events");
  }
  std::vector<StoreEvent> out;
  for (const auto& e : events->get_array()) {
    ASSIGN_OR_RETURN(StoreEvent event, read_one(e));
    out.push_back(std::move(event));
  }
  return out;
}

}  // namespace licensed
