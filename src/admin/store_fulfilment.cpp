#include "admin/store_fulfilment.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <map>

#include "admin/admin_operations.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

Status check_order(const VerifiedOrder& order) {
  if (order.event_key.empty()) return Error::invalid_argument("event", "no event key");
  if (order.order_id.empty()) return Error::invalid_argument("orderId", "no order id");
  for (const auto& line : order.lines) {
    if (line.quantity < 1 || line.quantity > kMaxUnitsPerLine) {
      return Error::invalid_argument(
          "quantity", "a line's quantity must be 1 to " + std::to_string(kMaxUnitsPerLine));
    }
  }
  return Ok{};
}

// One license of `plan` for the order, with `max`, audited license.create by the store.
Result<License> make_license(StoreTx& tx, const Storefront& store, const VerifiedOrder& order,
                             const Plan& plan, const std::string& key, int64_t max,
                             UnixMillis now) {
  NewLicense n = license_from_plan(plan, now);
  n.key = key;
  n.product_id = plan.product_id;
  n.max = max;
  n.customer = order.customer;
  n.source = LicenseSource{store.provider, store.id, order.order_id};
  ASSIGN_OR_RETURN(License l, tx.insert_license(n));
  AuditEntry e;
  e.at = now;
  e.action = std::string(audit_action::kCreate);
  e.license_key = l.key;
  e.actor = Actor::kStore;
  e.actor_name = store.name;
  e.source = store_source_json(store, order.order_id);
  RETURN_IF_ERROR(tx.append_audit(e, l));
  RETURN_IF_ERROR(record_license_event(tx, webhook_event::kOrderFulfilled, l, now, Actor::kStore,
                                       {{"order", store_order_json(store, order.order_id)}}));
  return l;
}

std::string new_key() {
  return generate_license_key();
}

// The order's own id and every id its later events may cite, each naming the order.
Status keep_references(StoreTx& tx, const Storefront& store, const VerifiedOrder& order) {
  RETURN_IF_ERROR(tx.put_order_reference(store.id, order.order_id, order.order_id));
  for (const auto& reference : order.references) {
    if (reference.empty()) continue;
    RETURN_IF_ERROR(tx.put_order_reference(store.id, reference, order.order_id));
  }
  return Ok{};
}

}  // namespace

boost::json::object store_order_json(const Storefront& store, std::string_view order_id) {
  return {{"provider", store.provider}, {"storeId", store.id}, {"orderId", order_id}};
}

std::string store_source_json(const Storefront& store, std::string_view order_id) {
  return boost::json::serialize(store_order_json(store, order_id));
}

Result<bool> acknowledge_event(StoreTx& tx, const Storefront& store, std::string_view event_key,
                               std::string_view event_type, UnixMillis now) {
  if (event_key.empty()) return Error::invalid_argument("event", "no event key");
  return tx.record_storefront_event(store.id, event_key, event_type, now);
}

Result<Fulfilment> fulfil_order(StoreTx& tx, const Storefront& store, const VerifiedOrder& order,
                                UnixMillis now) {
  RETURN_IF_ERROR(check_order(order));
  Fulfilment out;
  ASSIGN_OR_RETURN(const bool fresh,
                   tx.record_storefront_event(store.id, order.event_key, order.event_type, now));
  if (!fresh) {
    out.duplicate = true;
    ASSIGN_OR_RETURN(out.license_keys, tx.order_license_keys(store.id, order.order_id));
    return out;
  }
  RETURN_IF_ERROR(keep_references(tx, store, order));
  ASSIGN_OR_RETURN(const auto mappings, tx.list_sku_mappings(store.id));
  std::map<std::string, SkuMapping, std::less<>> by_item;
  for (const auto& m : mappings) by_item.emplace(m.item_id, m);

  for (size_t line = 0; line < order.lines.size(); ++line) {
    const OrderLine& ol = order.lines[line];
    const auto found = by_item.find(ol.item_id);
    if (found == by_item.end()) {
      out.unmapped_items.push_back(ol.item_id);
      continue;
    }
    const SkuMapping& m = found->second;
    ASSIGN_OR_RETURN(const auto plan, tx.find_plan(m.product_id, m.plan));
    // The mapping was checked when it was made; a plan deleted since fails the delivery,
    // so the provider retries once the vendor has fixed it.
    if (!plan) {
      return Error::not_found("plan", "store " + std::to_string(store.id) + " maps " + ol.item_id +
                                          " to plan " + m.plan + ", which is gone");
    }
    const auto index = static_cast<int64_t>(line);
    const int64_t plan_max = plan->max.value_or(0);
    if (m.per_unit) {
      for (int64_t unit = 0; unit < ol.quantity; ++unit) {
        const std::string key = new_key();
        if (key.empty()) return Error::internal("no random bytes for a license key");
        ASSIGN_OR_RETURN(const bool claimed,
                         tx.claim_storefront_unit(store.id, order.order_id, index, unit, key, now));
        if (!claimed) continue;
        ASSIGN_OR_RETURN(License l, make_license(tx, store, order, *plan, key, plan_max, now));
        out.created.push_back(l.key);
      }
      continue;
    }
    // One license for the whole line: unit 0 decides; the other units name the same key.
    const std::string key = new_key();
    if (key.empty()) return Error::internal("no random bytes for a license key");
    ASSIGN_OR_RETURN(const bool claimed,
                     tx.claim_storefront_unit(store.id, order.order_id, index, 0, key, now));
    if (!claimed) continue;
    for (int64_t unit = 1; unit < ol.quantity; ++unit) {
      ASSIGN_OR_RETURN(const bool also,
                       tx.claim_storefront_unit(store.id, order.order_id, index, unit, key, now));
      if (!also) return Error::internal("store unit claimed apart from its line's first unit");
    }
    ASSIGN_OR_RETURN(License l,
                     make_license(tx, store, order, *plan, key, plan_max * ol.quantity, now));
    out.created.push_back(l.key);
  }
  ASSIGN_OR_RETURN(out.license_keys, tx.order_license_keys(store.id, order.order_id));
  return out;
}

}  // namespace licensed
