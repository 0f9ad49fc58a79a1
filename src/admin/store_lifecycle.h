// What a checked and completed store event does to the licenses (spec §20-21), in the
// caller's write transaction: kFulfil makes the order's licenses (store_fulfilment.h),
// the lifecycle actions change the licenses of the order the event cites, anything else
// is recorded and changes nothing. Every event is recorded once under (store, event key);
// a duplicate changes nothing and answers as the first did.
#pragma once

#include <string>
#include <vector>

#include "admin/store_provider.h"

namespace licensed {

struct StoreOutcome {
  bool duplicate = false;                 // the event key was recorded before
  bool ignored = false;                   // a test-mode event on a live store, or no action
  std::vector<std::string> license_keys;  // kFulfil: every key of the order
};

Result<StoreOutcome> apply_store_event(StoreTx& tx, const Storefront& store,
                                       const StoreEvent& event, UnixMillis now);

// options.testMode of the store: whether test-mode events are acted on.
bool store_in_test_mode(const Storefront& store);

}  // namespace licensed
