// Plans (editions, docs/protocol.md §19): a product's templates for licenses. A license
// made from a plan copies its members; later edits of either do not touch the other.
// Durations are whole seconds here; answers write validFor as a DURATION ("365d") and
// the members that mirror a license's seconds fields as seconds.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/license.h"
#include "core/result.h"

namespace licensed {

struct PlanEntitlement {
  std::string code;
  std::optional<int64_t> valid_for_seconds;  // null: never expires
  std::optional<std::string> value_json;
};

struct Plan {
  int64_t id = 0;
  int64_t product_id = 0;
  std::string code;  // the entitlement code grammar: [a-z0-9._-], 1-64
  std::string name;
  std::optional<int64_t> max;
  std::optional<int64_t> valid_for_seconds;  // null: the license never expires
  bool valid_from_first_activation = false;  // validFrom: "firstActivation" (else "creation")
  std::optional<int64_t> machine_ttl_seconds;
  std::optional<int64_t> offline_grace_seconds;
  // Members of the offline and seat features (docs/protocol.md §19 lists them): kept and
  // shown with the plan.
  std::optional<int64_t> offline_lease_seconds;
  // offlineRelease, "expiry" or "deactivation" (docs/protocol.md §21.5), copied to new
  // licenses; null: the license default ("expiry").
  std::optional<OfflineRelease> offline_release;
  std::optional<int64_t> max_concurrent;
  std::optional<int64_t> lease_ttl_seconds;
  std::optional<int64_t> max_deactivations;
  std::optional<int64_t> max_borrow_seconds;
  std::vector<PlanEntitlement> entitlements;
  UnixMillis created_at = 0;
};

// "365d", "12h", "90m", "45s": the largest unit that divides the seconds.
std::string format_duration(int64_t seconds);
// The admin API's plan object.
boost::json::object plan_json(const Plan& plan);
// The store's form of everything but id, product, code, name and created_at: a JSON
// object, read back by plan_spec_from_store.
std::string plan_spec_to_store(const Plan& plan);
Status plan_spec_from_store(std::string_view text, Plan& plan);

}  // namespace licensed
