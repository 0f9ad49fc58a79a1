#include "admin/gumroad_event.h"

#include "admin/form_body.h"
#include "admin/store_json.h"
#include "auth/request_signature.h"
#include "auth/store_signatures.h"

namespace licensed {
namespace {

constexpr std::string_view kSubscribersPath = "/v2/subscribers/";

Result<ApiLookup> gumroad_lookup(const Storefront& store, std::string_view path,
                                 std::string_view id) {
  const auto segment = path_segment(id);
  if (!segment) return store_payload_error("id", "not an id Gumroad gives");
  ApiLookup lookup;
  lookup.base = store_api_base(store, kGumroadApiBase);
  lookup.path_and_query = std::string(path) + *segment + "?access_token=" +
                          percent_encode(store_option(store, "apiKey").value_or(""));
  return lookup;
}

bool flag(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

Result<const boost::json::object*> answer_object(const boost::json::value& answer,
                                                 std::string_view key) {
  if (!answer.is_object()) return store_payload_error(key, "an answer is an object");
  const auto& o = answer.get_object();
  if (!flag(o, "success")) return store_payload_error("success", "Gumroad did not answer success");
  return object_member(o, key, key);
}

Status sale_fulfils(const boost::json::object& sale, StoreEvent& event) {
  event.action = StoreAction::kFulfil;
  event.order.order_id = event.reference;
  OrderLine line;
  ASSIGN_OR_RETURN(line.item_id, string_member(sale, "product_id", "sale.product_id"));
  if (sale.if_contains("quantity") != nullptr) {
    ASSIGN_OR_RETURN(line.quantity, quantity_member(sale, "quantity", "sale.quantity"));
  }
  event.order.lines.push_back(std::move(line));
  ASSIGN_OR_RETURN(event.order.customer.email, optional_string_member(sale, "email", "sale.email"));
  if (!event.order.customer.email) {
    ASSIGN_OR_RETURN(event.order.customer.email,
                     optional_string_member(sale, "purchase_email", "sale.purchase_email"));
  }
  ASSIGN_OR_RETURN(event.order.customer.name,
                   optional_string_member(sale, "full_name", "sale.full_name"));
  ASSIGN_OR_RETURN(const auto subscription,
                   optional_string_member(sale, "subscription_id", "sale.subscription_id"));
  if (subscription) event.order.references.push_back(*subscription);
  return Ok{};
}

Result<StoreEvent> complete_sale(StoreEvent event, const boost::json::object& sale,
                                 const Storefront& store) {
  ASSIGN_OR_RETURN(const std::string id, string_member(sale, "id", "sale.id"));
  if (id != event.reference) return store_payload_error("sale.id", "another sale was answered");
  event.lookup.reset();
  ASSIGN_OR_RETURN(const auto subscription,
                   optional_string_member(sale, "subscription_id", "sale.subscription_id"));
  if (flag(sale, "refunded")) {
    event.action = StoreAction::kRefund;
  } else if (flag(sale, "dispute_won")) {
    event.action = StoreAction::kDisputeWon;
    event.dispute_id = id;
  } else if (flag(sale, "disputed") || flag(sale, "chargedback")) {
    event.action = StoreAction::kDispute;
    event.dispute_id = id;
  } else if ((flag(sale, "cancelled") || flag(sale, "ended")) && subscription) {
    event.action = StoreAction::kCancellation;
    event.reference = *subscription;
    ASSIGN_OR_RETURN(event.lookup, gumroad_lookup(store, kSubscribersPath, *subscription));
  } else if (flag(sale, "partially_refunded") && event.event_type == "refund") {
    event.action = StoreAction::kPartialRefund;
  } else if (!flag(sale, "recurring_charge")) {
    RETURN_IF_ERROR(sale_fulfils(sale, event));
  }
  return event;
}

Result<StoreEvent> complete_subscriber(StoreEvent event, const boost::json::object& subscriber) {
  event.lookup.reset();
  ASSIGN_OR_RETURN(event.period_end,
                   optional_time_member(subscriber, "ended_at", "subscriber.ended_at"));
  if (!event.period_end) {
    ASSIGN_OR_RETURN(event.period_end,
                     optional_time_member(subscriber, "cancelled_at", "subscriber.cancelled_at"));
  }
  if (!event.period_end) event.action = StoreAction::kAcknowledge;  // not ending after all
  return event;
}

}  // namespace

bool gumroad_authentic(std::string_view body, const Storefront& store) {
  const auto form = parse_form_body(body);
  const auto configured = store_option(store, "sellerId");
  if (!form || !configured) return false;
  const auto seller = form_value(*form, "seller_id");
  return seller && texts_equal_in_constant_time(*seller, *configured);
}

Result<StoreEvent> read_gumroad_event(std::string_view body, const Storefront& store) {
  const auto form = parse_form_body(body);
  if (!form) return store_payload_error("form", "not a form body");
  StoreEvent event;
  event.event_key = sha256_hex(body);
  const auto resource = form_value(*form, "resource_name");
  event.event_type = resource && !resource->empty() ? *resource : "sale";
  event.live = form_value(*form, "test") != "true";
  const auto sale = form_value(*form, "sale_id");
  if (!sale || sale->empty()) return event;
  event.reference = *sale;
  ASSIGN_OR_RETURN(event.lookup, gumroad_lookup(store, "/v2/sales/", *sale));
  return event;
}

Result<StoreEvent> complete_gumroad_event(StoreEvent event, std::string_view api_answer,
                                          const Storefront& store) {
  ASSIGN_OR_RETURN(const boost::json::value answer, parse_store_json(api_answer, "answer"));
  const bool subscriber_stage =
      event.lookup && event.lookup->path_and_query.rfind(kSubscribersPath, 0) == 0;
  if (subscriber_stage) {
    ASSIGN_OR_RETURN(const auto* subscriber, answer_object(answer, "subscriber"));
    return complete_subscriber(std::move(event), *subscriber);
  }
  ASSIGN_OR_RETURN(const auto* sale, answer_object(answer, "sale"));
  return complete_sale(std::move(event), *sale, store);
}

}  // namespace licensed
