#include "admin/lemonsqueezy_event.h"

#include "admin/form_body.h"
#include "admin/store_json.h"
#include "auth/request_signature.h"

namespace licensed {
namespace {

Status read_order(const boost::json::object& data, const boost::json::object& a,
                  StoreEvent& event) {
  ASSIGN_OR_RETURN(const bool paid,
                   string_member_is(a, "status", "data.attributes.status", "paid"));
  if (!paid) return Ok{};  // pending, failed: a later event tells
  event.action = StoreAction::kFulfil;
  ASSIGN_OR_RETURN(event.order.order_id, id_member(data, "id", "data.id"));
  ASSIGN_OR_RETURN(const auto identifier,
                   optional_string_member(a, "identifier", "data.attributes.identifier"));
  if (identifier) event.order.references.push_back(*identifier);
  ASSIGN_OR_RETURN(event.order.customer.email,
                   optional_string_member(a, "user_email", "data.attributes.user_email"));
  ASSIGN_OR_RETURN(event.order.customer.name,
                   optional_string_member(a, "user_name", "data.attributes.user_name"));
  ASSIGN_OR_RETURN(const auto* item,
                   object_member(a, "first_order_item", "data.attributes.first_order_item"));
  OrderLine line;
  ASSIGN_OR_RETURN(line.item_id,
                   id_member(*item, "variant_id", "data.attributes.first_order_item.variant_id"));
  if (item->if_contains("quantity") != nullptr) {
    ASSIGN_OR_RETURN(line.quantity, quantity_member(*item, "quantity",
                                                    "data.attributes.first_order_item.quantity"));
  }
  event.order.lines.push_back(std::move(line));
  return Ok{};
}

Status read_refund(const boost::json::object& data, const boost::json::object& a,
                   StoreEvent& event) {
  ASSIGN_OR_RETURN(event.reference, id_member(data, "id", "data.id"));
  ASSIGN_OR_RETURN(const int64_t total, integer_member(a, "total", "data.attributes.total"));
  ASSIGN_OR_RETURN(const int64_t refunded,
                   integer_member(a, "refunded_amount", "data.attributes.refunded_amount"));
  event.action = refunded >= total ? StoreAction::kRefund : StoreAction::kPartialRefund;
  return Ok{};
}

Status read_cancellation(const boost::json::object& a, StoreEvent& event) {
  event.action = StoreAction::kCancellation;
  ASSIGN_OR_RETURN(event.reference, id_member(a, "order_id", "data.attributes.order_id"));
  ASSIGN_OR_RETURN(event.period_end, optional_time_member(a, "ends_at", "data.attributes.ends_at"));
  if (!event.period_end) {
    return store_payload_error("data.attributes.ends_at", "a cancellation has an end");
  }
  return Ok{};
}

Status read_invoice(const boost::json::object& a, const Storefront& store, StoreEvent& event) {
  event.action = event.event_type == "subscription_payment_success" ? StoreAction::kRenewal
                                                                    : StoreAction::kPaymentFailed;
  ASSIGN_OR_RETURN(const std::string subscription,
                   id_member(a, "subscription_id", "data.attributes.subscription_id"));
  if (event.action == StoreAction::kRenewal) {
    ASSIGN_OR_RETURN(event.period_start,
                     optional_time_member(a, "created_at", "data.attributes.created_at"));
  }
  ApiLookup lookup;
  lookup.base = store_api_base(store, kLemonSqueezyApiBase);
  const auto segment = path_segment(subscription);
  if (!segment) {
    return store_payload_error("data.attributes.subscription_id", "not a subscription id");
  }
  lookup.path_and_query = "/v1/subscriptions/" + *segment;
  lookup.headers.emplace_back("Accept", "application/vnd.api+json");
  lookup.headers.emplace_back("Authorization",
                              "Bearer " + store_option(store, "apiKey").value_or(""));
  event.lookup = std::move(lookup);
  return Ok{};
}

}  // namespace

Result<StoreEvent> read_lemonsqueezy_event(std::string_view body, const Storefront& store) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_store_json(body, "event"));
  if (!v.is_object()) return store_payload_error("event", "an event is a JSON object");
  const auto& o = v.get_object();
  ASSIGN_OR_RETURN(const auto* meta, object_member(o, "meta", "meta"));
  StoreEvent event;
  event.event_key = sha256_hex(body);
  ASSIGN_OR_RETURN(event.event_type, string_member(*meta, "event_name", "meta.event_name"));
  if (meta->if_contains("test_mode") != nullptr) {
    ASSIGN_OR_RETURN(const bool test, bool_member(*meta, "test_mode", "meta.test_mode"));
    event.live = !test;
  }
  const std::string& type = event.event_type;
  const bool invoice =
      type == "subscription_payment_success" || type == "subscription_payment_failed";
  if (type != "order_created" && type != "order_refunded" && type != "subscription_cancelled" &&
      !invoice) {
    return event;
  }
  ASSIGN_OR_RETURN(const auto* data, object_member(o, "data", "data"));
  ASSIGN_OR_RETURN(const auto* attributes, object_member(*data, "attributes", "data.attributes"));
  if (type == "order_created") {
    RETURN_IF_ERROR(read_order(*data, *attributes, event));
  } else if (type == "order_refunded") {
    RETURN_IF_ERROR(read_refund(*data, *attributes, event));
  } else if (type == "subscription_cancelled") {
    RETURN_IF_ERROR(read_cancellation(*attributes, event));
  } else {
    RETURN_IF_ERROR(read_invoice(*attributes, store, event));
  }
  return event;
}

Result<StoreEvent> complete_lemonsqueezy_event(StoreEvent event, std::string_view api_answer) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_store_json(api_answer, "subscription"));
  if (!v.is_object()) return store_payload_error("subscription", "an answer is an object");
  ASSIGN_OR_RETURN(const auto* data, object_member(v.get_object(), "data", "data"));
  ASSIGN_OR_RETURN(const auto* a, object_member(*data, "attributes", "data.attributes"));
  ASSIGN_OR_RETURN(event.reference, id_member(*a, "order_id", "data.attributes.order_id"));
  if (event.action == StoreAction::kRenewal) {
    ASSIGN_OR_RETURN(event.period_end,
                     optional_time_member(*a, "renews_at", "data.attributes.renews_at"));
    if (!event.period_end) {
      return store_payload_error("data.attributes.renews_at", "a renewal has a period end");
    }
  }
  event.lookup.reset();
  return event;
}

}  // namespace licensed
