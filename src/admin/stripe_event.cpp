#include "admin/stripe_event.h"

#include <boost/json/parse.hpp>

namespace licensed {
namespace {

Error bad(std::string_view member, std::string message) {
  return Error::invalid_argument(member, std::move(message));
}

Result<std::string> required_string(const boost::json::object& o, std::string_view key,
                                    std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_string() || v->get_string().empty()) {
    return bad(member, std::string(member) + " must be a non-empty string");
  }
  return std::string(v->get_string());
}

Result<std::optional<std::string>> optional_string(const boost::json::object& o,
                                                   std::string_view key, std::string_view member) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return bad(member, std::string(member) + " must be a string or null");
  return std::optional<std::string>(std::string(v->get_string()));
}

Result<boost::json::value> parse_json(std::string_view body, std::string_view member) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec) return bad(member, "not JSON");
  return v;
}

}  // namespace

Result<StripeEvent> parse_stripe_event(std::string_view body) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_json(body, "event"));
  if (!v.is_object()) return bad("event", "an event is a JSON object");
  const auto& o = v.get_object();
  StripeEvent e;
  ASSIGN_OR_RETURN(e.id, required_string(o, "id", "id"));
  ASSIGN_OR_RETURN(e.type, required_string(o, "type", "type"));
  const auto* live = o.if_contains("livemode");
  if (live == nullptr || !live->is_bool()) return bad("livemode", "livemode must be a boolean");
  e.livemode = live->get_bool();
  const auto* data = o.if_contains("data");
  if (data == nullptr || !data->is_object()) return bad("data", "data must be an object");
  const auto* object = data->get_object().if_contains("object");
  if (object == nullptr || !object->is_object()) {
    return bad("data.object", "data.object must be an object");
  }
  e.object = object->get_object();
  return e;
}

Result<StripeCheckout> parse_stripe_checkout(const StripeEvent& event) {
  const auto& o = event.object;
  StripeCheckout c;
  ASSIGN_OR_RETURN(c.session_id, required_string(o, "id", "data.object.id"));
  ASSIGN_OR_RETURN(c.payment_status,
                   required_string(o, "payment_status", "data.object.payment_status"));
  if (const auto* details = o.if_contains("customer_details");
      details != nullptr && !details->is_null()) {
    if (!details->is_object()) {
      return bad("data.object.customer_details", "customer_details must be an object or null");
    }
    ASSIGN_OR_RETURN(c.customer.email, optional_string(details->get_object(), "email",
                                                       "data.object.customer_details.email"));
    ASSIGN_OR_RETURN(c.customer.name, optional_string(details->get_object(), "name",
                                                      "data.object.customer_details.name"));
  }
  if (const auto* items = o.if_contains("line_items"); items != nullptr && !items->is_null()) {
    ASSIGN_OR_RETURN(auto lines, stripe_line_items_from(*items));
    c.lines = std::move(lines);
  }
  return c;
}

Result<std::vector<OrderLine>> stripe_line_items_from(const boost::json::value& list) {
  if (!list.is_object()) return bad("line_items", "a list of line items is an object");
  const auto& o = list.get_object();
  const auto* more = o.if_contains("has_more");
  if (more != nullptr && !more->is_bool()) return bad("has_more", "has_more must be a boolean");
  if (more != nullptr && more->get_bool()) {
    return bad("has_more", "more than one page of line items");
  }
  const auto* data = o.if_contains("data");
  if (data == nullptr || !data->is_array()) return bad("data", "data must be an array");
  std::vector<OrderLine> out;
  for (const auto& item : data->get_array()) {
    if (!item.is_object()) return bad("data", "a line item is an object");
    const auto* price = item.get_object().if_contains("price");
    if (price == nullptr || !price->is_object()) return bad("price", "a line item has a price");
    OrderLine line;
    ASSIGN_OR_RETURN(line.item_id, required_string(price->get_object(), "id", "price.id"));
    const auto* quantity = item.get_object().if_contains("quantity");
    if (quantity == nullptr || !quantity->is_int64() || quantity->get_int64() < 1 ||
        quantity->get_int64() > kMaxUnitsPerLine) {
      return bad("quantity",
                 "quantity must be an integer from 1 to " + std::to_string(kMaxUnitsPerLine));
    }
    line.quantity = quantity->get_int64();
    out.push_back(std::move(line));
  }
  return out;
}

Result<std::vector<OrderLine>> parse_stripe_line_items(std::string_view list_body) {
  ASSIGN_OR_RETURN(const boost::json::value v, parse_json(list_body, "line_items"));
  return stripe_line_items_from(v);
}

bool stripe_fulfils(const StripeEvent& event, const StripeCheckout& checkout) {
  if (event.type == "checkout.session.completed") return checkout.payment_status == "paid";
  return event.type == "checkout.session.async_payment_succeeded";
}

VerifiedOrder stripe_order(const StripeEvent& event, const StripeCheckout& checkout,
                           std::vector<OrderLine> lines) {
  VerifiedOrder o;
  o.event_key = event.id;
  o.event_type = event.type;
  o.order_id = checkout.session_id;
  o.customer = checkout.customer;
  o.lines = std::move(lines);
  return o;
}

}  // namespace licensed
