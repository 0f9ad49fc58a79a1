#include "admin/fastspring_generator.h"

#include <algorithm>
#include <set>

#include "admin/store_json.h"
#include "auth/base64.h"
#include "auth/request_signature.h"
#include "auth/store_signatures.h"

namespace licensed {
namespace {

constexpr std::string_view kHashName = "security_request_hash";

// The order of the answer whose reference (or id) is `reference`, or null.
const boost::json::object* find_order(const boost::json::value& answer,
                                      std::string_view reference) {
  if (!answer.is_object()) return nullptr;
  const auto matches = [reference](const boost::json::value& v) {
    if (!v.is_object()) return false;
    for (const char* key : {"reference", "id", "order"}) {
      const auto* s = v.get_object().if_contains(key);
      if (s != nullptr && s->is_string() && s->get_string() == reference) return true;
    }
    return false;
  };
  const auto* orders = answer.get_object().if_contains("orders");
  if (orders == nullptr) return matches(answer) ? &answer.get_object() : nullptr;
  if (!orders->is_array()) return nullptr;
  for (const auto& o : orders->get_array()) {
    if (matches(o)) return &o.get_object();
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> fastspring_generator_params(const Storefront& store) {
  const boost::json::object options = store_options(store);
  const auto* list = options.if_contains("generatorParams");
  std::vector<std::string> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& name : list->get_array()) {
    if (!name.is_string() || name.get_string().empty() || name.get_string() == kHashName) {
      return {};
    }
    out.emplace_back(name.get_string());
  }
  return out;
}

bool fastspring_generator_authentic(std::string_view body, const Storefront& store) {
  const auto form = parse_form_body(body);
  const std::vector<std::string> allowed = fastspring_generator_params(store);
  if (!form || allowed.empty()) return false;
  std::set<std::string, std::less<>> seen;
  std::optional<std::string> hash;
  FormParameters values;
  for (const auto& [name, value] : *form) {
    if (!seen.insert(name).second) return false;  // each name exactly once
    if (name == kHashName) {
      hash = value;
    } else if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return false;
    } else {
      values.emplace_back(name, value);
    }
  }
  if (!hash || values.size() != std::set<std::string>(allowed.begin(), allowed.end()).size()) {
    return false;
  }
  return verify_fastspring_generator_hash(values, *hash, store.secrets);
}

Result<StoreEvent> read_fastspring_generator_event(std::string_view body, const Storefront& store) {
  const auto form = parse_form_body(body);
  if (!form) return store_payload_error("form", "not a form body");
  StoreEvent event;
  event.event_key = sha256_hex(body);
  event.event_type = std::string(kFastSpringGeneratorEventType);
  event.live = form_value(*form, "test") != "true";
  event.action = StoreAction::kFulfil;
  const auto reference = form_value(*form, "reference");
  if (!reference || reference->empty()) {
    return store_payload_error("reference", "the generator's parameters must include reference");
  }
  event.order.order_id = *reference;
  const auto email = form_value(*form, "email");
  const auto name = form_value(*form, "name");
  if (email && !email->empty()) event.order.customer.email = email;
  if (name && !name->empty()) event.order.customer.name = name;
  ApiLookup lookup;
  lookup.base = store_api_base(store, kFastSpringApiBase);
  const auto segment = path_segment(*reference);
  if (!segment) return store_payload_error("reference", "not a FastSpring order reference");
  lookup.path_and_query = "/orders/" + *segment;
  const std::string credentials = store_option(store, "apiKey").value_or("");
  lookup.headers.emplace_back(
      "Authorization",
      "Basic " +
          base64_encode(reinterpret_cast<const uint8_t*>(credentials.data()), credentials.size()));
  event.lookup = std::move(lookup);
  return event;
}

Result<StoreEvent> complete_fastspring_generator_event(StoreEvent event,
                                                       std::string_view api_answer) {
  ASSIGN_OR_RETURN(const boost::json::value answer, parse_store_json(api_answer, "order"));
  const boost::json::object* order = find_order(answer, event.order.order_id);
  if (order == nullptr) {
    return store_payload_error("reference", "FastSpring does not know this order");
  }
  ASSIGN_OR_RETURN(const bool completed, bool_member(*order, "completed", "order.completed"));
  if (!completed) return store_payload_error("reference", "the order is not completed");
  const auto* items = order->if_contains("items");
  if (items == nullptr || !items->is_array()) {
    return store_payload_error("order.items", "order.items must be an array");
  }
  std::vector<OrderLine> lines;
  for (const auto& item : items->get_array()) {
    if (!item.is_object()) return store_payload_error("order.items", "an item is an object");
    OrderLine line;
    ASSIGN_OR_RETURN(line.item_id,
                     string_member(item.get_object(), "product", "order.items[].product"));
    ASSIGN_OR_RETURN(line.quantity,
                     quantity_member(item.get_object(), "quantity", "order.items[].quantity"));
    lines.push_back(std::move(line));
  }
  event.order.lines = std::move(lines);
  event.lookup.reset();
  return event;
}

}  // namespace licensed
