// What a checked and completed store event does to the licenses (docs/protocol.md §22.7), in the
// caller's write transaction: kFulfil makes the order's licenses (store_fulfilment.h),
// the lifecycle actions change the licenses of the order the event cites, anything else
// is recorded and changes nothing. Every event is recorded once under (store, event key);
// a duplicate changes nothing and answers as the first did.
//
// The lifecycle, each change through the admin operations' own setters (so audited
// `license.status` / `license.update` with `changes`, actor `store`, the store's name and
// `source`):
//   - kRefund: the order's ACTIVE and SUSPENDED licenses become REFUNDED (a REVOKED one
//     stays revoked); kPartialRefund: one `license.update` record per license with empty
//     `changes` and reason "partial refund", nothing else;
//   - kDispute: ACTIVE licenses become SUSPENDED and the dispute is remembered as their
//     status's cause; kDisputeWon: ACTIVE again only where that dispute is still the cause
//     (an admin's suspension, or another dispute's, stays);
//   - kRenewal: a payment arrived: a pending payment failure is forgotten, licenses the
//     payment-grace sweep suspended are ACTIVE again, and expiresAt becomes period_end
//     unless the order's recorded period is as new or newer;
//   - kCancellation: expiresAt becomes period_end, unless the recorded period is newer;
//   - kPaymentFailed: the failure is recorded; once the store's paymentGrace has passed
//     without a payment, sweep_payment_grace suspends the order's ACTIVE licenses.
// An event citing a reference no fulfilled order listed is recorded and changes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "admin/store_provider.h"
#include "store/store.h"

namespace licensed {

// docs/protocol.md §22.6: a duplicate of a fulfilling event answers the order's keys only this long
// after the event was first recorded (the FastSpring generator prints them on a receipt).
inline constexpr int64_t kDuplicateKeysWindowMs = 24LL * 3600 * 1000;

struct StoreOutcome {
  bool duplicate = false;                 // the event key was recorded before
  bool ignored = false;                   // a test-mode event on a live store, no action, or
                                          // a lifecycle event citing no known order
  std::vector<std::string> license_keys;  // kFulfil: every key of the order
  // A duplicate: when its event was first recorded.
  std::optional<UnixMillis> first_seen_at;
  // A duplicate of kFulfil first recorded over kDuplicateKeysWindowMs ago: license_keys is
  // left empty, so the generator's receipt no longer shows them.
  bool keys_expired = false;
  // Lifecycle actions: the licenses this event changed (each audited), in order.
  std::vector<std::string> changed_keys;
};

Result<StoreOutcome> apply_store_event(StoreTx& tx, const Storefront& store,
                                       const StoreEvent& event, UnixMillis now);

// options.testMode of the store: whether test-mode events are acted on.
bool store_in_test_mode(const Storefront& store);

// One round of the payment-grace sweep, in the caller's write transaction: at most
// `limit` failed payments whose store's paymentGrace has passed at `now`, each
// forgotten and its order's ACTIVE licenses SUSPENDED (audited with actor `system` and
// the order's `source`: docs/protocol.md §17 names sweeps `system`).
struct PaymentGraceSweep {
  int64_t failures = 0;                // failed payments handled (limit: there may be more)
  std::vector<std::string> suspended;  // license keys suspended
};
Result<PaymentGraceSweep> sweep_payment_grace(StoreTx& tx, UnixMillis now, int64_t limit = 100);

// The sweep until nothing is due, a short write transaction per round: what the server
// runs periodically (main.cpp). Answers how many licenses it suspended.
Result<int64_t> run_payment_grace_sweep(Store& store, UnixMillis now);

}  // namespace licensed
