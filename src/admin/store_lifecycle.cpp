#include "admin/store_lifecycle.h"

#include <boost/json/parse.hpp>

namespace licensed {

bool store_in_test_mode(const Storefront& store) {
  boost::system::error_code ec;
  const boost::json::value options = boost::json::parse(store.options_json, ec);
  if (ec || !options.is_object()) return false;
  const auto* mode = options.get_object().if_contains("testMode");
  return mode != nullptr && mode->is_bool() && mode->get_bool();
}

Result<StoreOutcome> apply_store_event(StoreTx& tx, const Storefront& store,
                                       const StoreEvent& event, UnixMillis now) {
  StoreOutcome out;
  const bool acted_on = event.live || store_in_test_mode(store);
  if (acted_on && event.action == StoreAction::kFulfil) {
    VerifiedOrder order = event.order;
    order.event_key = event.event_key;
    order.event_type = event.event_type;
    ASSIGN_OR_RETURN(Fulfilment done, fulfil_order(tx, store, order, now));
    out.duplicate = done.duplicate;
    out.license_keys = std::move(done.license_keys);
    return out;
  }
  // The lifecycle actions are not built yet: until they are, they are recorded like
  // any event that changes nothing.
  ASSIGN_OR_RETURN(const bool fresh,
                   acknowledge_event(tx, store, event.event_key, event.event_type, now));
  out.duplicate = !fresh;
  out.ignored = true;
  return out;
}

}  // namespace licensed
