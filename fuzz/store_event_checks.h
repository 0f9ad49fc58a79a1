// Invariants every store payload reader keeps (admin/<provider>_event.h), shared by the
// provider fuzz targets: a refusal is kInvalidArgument naming a member; an accepted event
// has a key and a type; a sale has an order id and lines of an item id and a quantity
// from 1 to kMaxUnitsPerLine; a lookup names a base and a path; lifecycle actions name
// what they cite.
#pragma once

#include "admin/store_provider.h"
#include "fuzz_checks.h"

namespace licensed::fuzz {

inline void check_store_refusal(const Error& e) {
  require(e.code == StatusCode::kInvalidArgument, "a refusal is not kInvalidArgument");
  require(!e.subject.empty(), "a refusal names no member");
}

inline void check_store_event(const StoreEvent& e) {
  require(!e.event_key.empty() && !e.event_type.empty(), "an event without key or type");
  if (e.lookup) {
    require(!e.lookup->base.empty() && e.lookup->path_and_query.rfind('/', 0) == 0,
            "a lookup without base or path");
  }
  if (e.action == StoreAction::kFulfil) {
    require(!e.order.order_id.empty(), "a sale without an order id");
    for (const auto& l : e.order.lines) {
      require(!l.item_id.empty(), "a line without an item id");
      require(l.quantity >= 1 && l.quantity <= kMaxUnitsPerLine, "a quantity out of range");
    }
  } else if (e.action != StoreAction::kAcknowledge && !e.lookup) {
    require(!e.reference.empty(), "a lifecycle action cites nothing");
  }
  if (e.action == StoreAction::kDispute || e.action == StoreAction::kDisputeWon) {
    require(!e.dispute_id.empty(), "a dispute without an id");
  }
}

// Reads `body` with the provider named `name` and completes what needs a lookup with
// `answer` (the same bytes: the fuzzer drives both), checking every result.
inline void fuzz_store_provider(std::string_view name, std::string_view body,
                                const Storefront& store, UnixMillis now) {
  const StoreProvider* p = find_store_provider(name);
  require(p != nullptr, "provider not listed");
  InboundDelivery d;
  d.body = std::string(body);
  d.now = now;
  (void)p->authentic(d, store);
  auto events = read_store_events(*p, d, store);
  if (!events.ok()) {
    check_store_refusal(events.error());
    return;
  }
  for (StoreEvent& e : events.value()) {
    check_store_event(e);
    // Two rounds at most: Gumroad's cancellation asks for its subscriber next.
    for (int round = 0; round < 2 && e.lookup && p->complete != nullptr; ++round) {
      auto done = p->complete(e, body, store);
      if (!done.ok()) {
        check_store_refusal(done.error());
        break;
      }
      check_store_event(done.value());
      e = std::move(done.value());
    }
  }
}

}  // namespace licensed::fuzz
