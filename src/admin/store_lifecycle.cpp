#include "admin/store_lifecycle.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <utility>

#include "admin/admin_operations.h"
#include "core/webhook_event.h"

namespace licensed {
namespace {

// The cause kept for a suspension the payment-grace sweep made.
constexpr std::string_view kPaymentCause = "payment";

// A provider that names no dispute (Gumroad's dispute / dispute_won cite the sale only)
// has one dispute per reference.
std::string dispute_cause(const StoreEvent& event) {
  return "dispute:" + (event.dispute_id.empty() ? event.reference : event.dispute_id);
}

// The context a store's changes are audited with: actor `store` and the store's name for
// an event, `system` for the sweep; the order's source either way.
AdminContext store_context(const Storefront& store, std::string_view order_id, UnixMillis now,
                           Actor actor) {
  std::optional<std::string> name;
  if (actor == Actor::kStore) name = store.name;
  AdminContext ctx(now, std::move(name), actor);
  ctx.source = store_source_json(store, order_id);
  return ctx;
}

// Everything one lifecycle event works with: the order it cites, its live licenses, the
// context their changes are audited with, and the keys changed so far.
struct CitedOrder {
  int64_t store_id = 0;
  std::string order_id;
  std::vector<License> licenses;
  AdminContext ctx;
  std::vector<std::string> changed;

  void mark_changed(const std::string& key) {
    if (std::find(changed.begin(), changed.end(), key) == changed.end()) changed.push_back(key);
  }
};

// The live (not deleted) licenses of an order, each locked for the rest of the
// transaction in the order they were claimed, so two events of one order, or an event and
// the sweep, change them one after the other and always in the same order (no deadlock).
Result<std::vector<License>> lock_order_licenses(StoreTx& tx, int64_t store_id,
                                                 std::string_view order_id) {
  ASSIGN_OR_RETURN(const auto keys, tx.order_license_keys(store_id, order_id));
  std::vector<License> out;
  for (const auto& key : keys) {
    ASSIGN_OR_RETURN(auto locked, tx.lock_license(key));
    if (locked && !(*locked)->deleted_at) out.push_back(locked->license());
  }
  return out;
}

Result<CitedOrder> cite_order(StoreTx& tx, const Storefront& store, std::string order_id,
                              UnixMillis now, Actor actor) {
  CitedOrder order;
  order.store_id = store.id;
  order.ctx = store_context(store, order_id, now, actor);
  ASSIGN_OR_RETURN(order.licenses, lock_order_licenses(tx, store.id, order_id));
  order.order_id = std::move(order_id);
  return order;
}

// The order as its webhook events name it: the `source` its audit records carry.
boost::json::value order_json(const CitedOrder& order) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(order.ctx.source.value_or("{}"), ec);
  return ec ? boost::json::value(boost::json::object{}) : v;
}

Status set_status(StoreTx& tx, CitedOrder& order, License& l, LicenseStatus status) {
  ASSIGN_OR_RETURN(l, set_license_status(tx, l.key, status, order.ctx));
  order.mark_changed(l.key);
  return Ok{};
}

Status refund(StoreTx& tx, CitedOrder& order) {
  // Nothing is left to suspend once the order is refunded.
  RETURN_IF_ERROR(tx.clear_payment_failure(order.store_id, order.order_id));
  for (License& l : order.licenses) {
    // A license an admin revoked stays revoked; one refunded before, refunded.
    if (l.status != LicenseStatus::kActive && l.status != LicenseStatus::kSuspended) continue;
    RETURN_IF_ERROR(set_status(tx, order, l, LicenseStatus::kRefunded));
    RETURN_IF_ERROR(record_license_event(tx, webhook_event::kOrderRefunded, l, order.ctx.now,
                                         order.ctx.actor, {{"order", order_json(order)}}));
  }
  return Ok{};
}

// Audited on each license (docs/protocol.md §22.7), with no change: `changes` is empty.
Status partial_refund(StoreTx& tx, const CitedOrder& order) {
  for (const License& l : order.licenses) {
    AuditEntry e;
    e.at = order.ctx.now;
    e.action = std::string(audit_action::kUpdate);
    e.license_key = l.key;
    e.actor = order.ctx.actor;
    e.actor_name = order.ctx.actor_name;
    e.changes = "{}";
    e.reason = "partial refund";
    e.source = order.ctx.source;
    RETURN_IF_ERROR(tx.append_audit(e, l));
  }
  return Ok{};
}

Status dispute(StoreTx& tx, CitedOrder& order, const std::string& cause) {
  for (License& l : order.licenses) {
    if (l.status == LicenseStatus::kActive) {
      RETURN_IF_ERROR(set_status(tx, order, l, LicenseStatus::kSuspended));
      RETURN_IF_ERROR(tx.set_status_cause(l.key, order.store_id, cause, order.ctx.now));
      continue;
    }
    // Suspended by the payment-grace sweep: the dispute takes the suspension over, so a
    // payment arriving during the dispute does not lift it.
    if (l.status != LicenseStatus::kSuspended) continue;
    ASSIGN_OR_RETURN(const auto held, tx.find_status_cause(l.key));
    if (held == kPaymentCause) {
      RETURN_IF_ERROR(tx.set_status_cause(l.key, order.store_id, cause, order.ctx.now));
    }
  }
  return Ok{};
}

// ACTIVE again only where `cause` set SUSPENDED and nothing changed the status since.
Status lift(StoreTx& tx, CitedOrder& order, std::string_view cause) {
  for (License& l : order.licenses) {
    if (l.status != LicenseStatus::kSuspended) continue;
    ASSIGN_OR_RETURN(const auto held, tx.find_status_cause(l.key));
    if (held != cause) continue;
    RETURN_IF_ERROR(set_status(tx, order, l, LicenseStatus::kActive));
  }
  return Ok{};
}

bool is_newer(const OrderPeriod& a, const OrderPeriod& b) {
  if (a.start && b.start) return *a.start > *b.start;
  return a.end > b.end;
}

// expiresAt = the period's end on the order's licenses still in use, and the period
// recorded; `renewal`: only from a period newer than the one recorded, else (a
// cancellation) from one at least as new.
Status set_period(StoreTx& tx, CitedOrder& order, const OrderPeriod& period, bool renewal) {
  ASSIGN_OR_RETURN(const auto recorded, tx.find_order_period(order.store_id, order.order_id));
  if (recorded) {
    const bool stale = renewal ? !is_newer(period, *recorded) : is_newer(*recorded, period);
    if (stale) return Ok{};
  }
  RETURN_IF_ERROR(tx.put_order_period(order.store_id, order.order_id, period));
  for (License& l : order.licenses) {
    if (l.status == LicenseStatus::kRefunded || l.status == LicenseStatus::kRevoked) continue;
    if (l.expires_at == period.end) continue;
    ASSIGN_OR_RETURN(l, set_license_expiry(tx, l.key, period.end, order.ctx));
    order.mark_changed(l.key);
  }
  return Ok{};
}

// A successful payment: a failure waiting out its grace is forgotten, and a suspension
// the sweep made for one is lifted.
Status renewal(StoreTx& tx, CitedOrder& order, const StoreEvent& event) {
  RETURN_IF_ERROR(tx.clear_payment_failure(order.store_id, order.order_id));
  RETURN_IF_ERROR(lift(tx, order, kPaymentCause));
  if (!event.period_end) return Ok{};
  return set_period(tx, order, OrderPeriod{event.period_start, *event.period_end}, true);
}

Status cancellation(StoreTx& tx, CitedOrder& order, const StoreEvent& event) {
  if (!event.period_end) return Ok{};
  return set_period(tx, order, OrderPeriod{event.period_start, *event.period_end}, false);
}

Status act(StoreTx& tx, CitedOrder& order, const StoreEvent& event) {
  switch (event.action) {
    case StoreAction::kRefund:
      return refund(tx, order);
    case StoreAction::kPartialRefund:
      return partial_refund(tx, order);
    case StoreAction::kDispute:
      return dispute(tx, order, dispute_cause(event));
    case StoreAction::kDisputeWon:
      return lift(tx, order, dispute_cause(event));
    case StoreAction::kRenewal:
      return renewal(tx, order, event);
    case StoreAction::kCancellation:
      return cancellation(tx, order, event);
    case StoreAction::kPaymentFailed:
      return tx.record_payment_failure(order.store_id, order.order_id, order.ctx.now);
    case StoreAction::kAcknowledge:
    case StoreAction::kFulfil:
      break;
  }
  return Ok{};
}

Result<StoreOutcome> fulfil(StoreTx& tx, const Storefront& store, const StoreEvent& event,
                            UnixMillis now) {
  StoreOutcome out;
  VerifiedOrder order = event.order;
  order.event_key = event.event_key;
  order.event_type = event.event_type;
  ASSIGN_OR_RETURN(Fulfilment done, fulfil_order(tx, store, order, now));
  out.duplicate = done.duplicate;
  out.license_keys = std::move(done.license_keys);
  if (out.duplicate || !done.created.empty() || out.license_keys.empty()) return out;
  // A new event for an order fulfilled before (a FastSpring generator request sent again
  // with its parameters reordered: a new body, so a new event key): its keys are answered
  // within the same window as a duplicate's, counted from the order's first license.
  ASSIGN_OR_RETURN(const auto first, find_any_license(tx, out.license_keys.front()));
  if (now - first.created_at > kDuplicateKeysWindowMs) {
    out.license_keys.clear();
    out.keys_expired = true;
  }
  return out;
}

// A lifecycle event, recorded first: a duplicate, or one citing no order this store
// fulfilled, changes nothing.
Result<StoreOutcome> lifecycle(StoreTx& tx, const Storefront& store, const StoreEvent& event,
                               UnixMillis now) {
  StoreOutcome out;
  ASSIGN_OR_RETURN(const bool fresh,
                   acknowledge_event(tx, store, event.event_key, event.event_type, now));
  if (!fresh) {
    out.duplicate = true;
    return out;
  }
  std::optional<std::string> order_id;
  if (!event.reference.empty()) {
    ASSIGN_OR_RETURN(order_id, tx.find_order_by_reference(store.id, event.reference));
  }
  if (!order_id) {
    out.ignored = true;
    return out;
  }
  ASSIGN_OR_RETURN(CitedOrder order, cite_order(tx, store, *order_id, now, Actor::kStore));
  RETURN_IF_ERROR(act(tx, order, event));
  out.changed_keys = std::move(order.changed);
  return out;
}

// A duplicate says when its event was first seen; a fulfilling one answers its keys
// only within kDuplicateKeysWindowMs of that (docs/protocol.md §22.6, the FastSpring generator).
Status describe_duplicate(StoreTx& tx, const Storefront& store, const StoreEvent& event,
                          UnixMillis now, StoreOutcome& out) {
  if (!out.duplicate) return Ok{};
  ASSIGN_OR_RETURN(out.first_seen_at, tx.find_storefront_event(store.id, event.event_key));
  if (out.first_seen_at && now - *out.first_seen_at > kDuplicateKeysWindowMs &&
      !out.license_keys.empty()) {
    out.license_keys.clear();
    out.keys_expired = true;
  }
  return Ok{};
}

}  // namespace

bool store_in_test_mode(const Storefront& store) {
  boost::system::error_code ec;
  const boost::json::value options = boost::json::parse(store.options_json, ec);
  if (ec || !options.is_object()) return false;
  const auto* mode = options.get_object().if_contains("testMode");
  return mode != nullptr && mode->is_bool() && mode->get_bool();
}

Result<StoreOutcome> apply_store_event(StoreTx& tx, const Storefront& store,
                                       const StoreEvent& event, UnixMillis now) {
  const bool acted_on = event.live || store_in_test_mode(store);
  StoreOutcome out;
  if (!acted_on || event.action == StoreAction::kAcknowledge) {
    ASSIGN_OR_RETURN(const bool fresh,
                     acknowledge_event(tx, store, event.event_key, event.event_type, now));
    out.duplicate = !fresh;
    out.ignored = true;
  } else if (event.action == StoreAction::kFulfil) {
    ASSIGN_OR_RETURN(out, fulfil(tx, store, event, now));
  } else {
    ASSIGN_OR_RETURN(out, lifecycle(tx, store, event, now));
  }
  RETURN_IF_ERROR(describe_duplicate(tx, store, event, now, out));
  return out;
}

Result<PaymentGraceSweep> sweep_payment_grace(StoreTx& tx, UnixMillis now, int64_t limit) {
  PaymentGraceSweep out;
  ASSIGN_OR_RETURN(const auto due, tx.due_payment_failures(now, limit));
  for (const auto& failure : due) {
    ++out.failures;
    ASSIGN_OR_RETURN(const auto store, tx.find_storefront(failure.store_id));
    if (!store) continue;
    // The licenses are locked first, as every event of the order locks them before it
    // touches the failure; then whoever deletes the failure acts on it: a payment that
    // came meanwhile deleted it, and its licenses stay ACTIVE.
    ASSIGN_OR_RETURN(CitedOrder order,
                     cite_order(tx, *store, failure.order_id, now, Actor::kSystem));
    ASSIGN_OR_RETURN(const bool pending,
                     tx.clear_payment_failure(failure.store_id, failure.order_id));
    if (!pending) continue;
    for (License& l : order.licenses) {
      if (l.status != LicenseStatus::kActive) continue;
      RETURN_IF_ERROR(set_status(tx, order, l, LicenseStatus::kSuspended));
      RETURN_IF_ERROR(tx.set_status_cause(l.key, store->id, kPaymentCause, now));
    }
    for (auto& key : order.changed) out.suspended.push_back(std::move(key));
  }
  return out;
}

Result<int64_t> run_payment_grace_sweep(Store& store, UnixMillis now) {
  constexpr int64_t kRound = 100;
  int64_t suspended = 0;
  for (;;) {
    ASSIGN_OR_RETURN(const auto round, run_blocking(store, TxKind::kWrite, [now](StoreTx& tx) {
                       return sweep_payment_grace(tx, now, kRound);
                     }));
    suspended += static_cast<int64_t>(round.suspended.size());
    if (round.failures < kRound) return suspended;
  }
}

}  // namespace licensed
