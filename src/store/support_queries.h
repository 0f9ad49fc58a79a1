// What the support console asks a store beyond licenses and their audit: refused
// requests (docs/protocol.md §26.1), and the figures of the vendor overview (§26.3).
// Plain rows; the admin API turns them into its answers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.h"

namespace licensed {

// A refused activation, checkout, deactivation or trial (1705, 1710, 1711, 1712). Not an
// audit record: audit records record accepted changes; these record what a customer
// tried and was told no, so support can answer "why can't I activate".
struct Refusal {
  int64_t id = 0;  // assigned by the store; newer refusals have larger ids
  UnixMillis at = 0;
  int code = 0;
  std::string license_key;
  std::optional<std::string> machine_id;
  std::optional<std::string> machine_name;
  std::optional<std::string> ip;
  std::optional<std::string> key_id;
  std::optional<std::string> request_id;
};

// Refusals are kept this long, and at most this many per license (the oldest go first).
inline constexpr UnixMillis kRefusalsKeptMillis = 30LL * 86'400'000;
inline constexpr int64_t kRefusalsKeptPerLicense = 1000;

// One bar of a chart: a count for a UTC day (days since 1970-01-01) and a series name
// (an audit action, a refusal code as text).
struct DayCount {
  int64_t day = 0;
  std::string series;
  int64_t count = 0;
};

// A trial started (docs/protocol.md §20): its product, its machine's HMAC, when.
struct TrialStart {
  int64_t product_id = 0;
  std::string machine_hmac;
  std::string license_key;
  UnixMillis created_at = 0;
};

// An activation of a license that is not a trial: the product, the machine, when.
struct PaidActivation {
  int64_t product_id = 0;
  std::string machine_id;
  UnixMillis activated_at = 0;
};

// A live ACTIVE license with machines, by how much of its cap is taken.
struct CapUse {
  std::string license_key;
  std::string product_slug;
  int64_t used = 0;
  int64_t max = 0;
};

}  // namespace licensed
