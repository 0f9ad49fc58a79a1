// What a load scenario sends, connection by connection. A scenario is a rule for the
// next request of connection i: which endpoint, which license, which machine. The
// bodies that never change for a connection are built and hashed once, so the load
// generator spends its (shared) CPU on what a real client must do per request:
// timestamp, nonce, canonical string and HMAC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/request_body.h"

namespace licensed::bench {

enum class Scenario {
  kStatus,          // status of the connection's own activated machine (a read)
  kHeartbeat,       // heartbeat of the connection's own activated machine (a write)
  kActivateRepeat,  // activate the connection's own machine again (refresh + audit)
  kActivateNew,     // activate a machine never seen, spread over many licenses
  kActivateHot,     // activate new machines on one license with a small cap: 409s
  kMix,             // heartbeat 60 %, status 25 %, activate-repeat 10 %, activate-new 5 %
};

std::optional<Scenario> parse_scenario(std::string_view name);
std::string_view scenario_name(Scenario scenario);
// "status|heartbeat|activate-repeat|activate-new|activate-hot|mix"
std::string scenario_names();

// What the scenario needs seeded: `licenses` licenses with cap `max` each.
struct SeedPlan {
  size_t licenses = 0;
  int64_t max = 0;
};
// `licenses` and `hot_max` are the command line's (0 for licenses: the default).
SeedPlan seed_plan(Scenario scenario, size_t connections, size_t licenses, int64_t hot_max);

struct PlannedRequest {
  Endpoint endpoint = Endpoint::kStatus;
  std::string body;
  std::string body_sha256_hex;
};

// The requests of one connection. Not thread-safe: each connection owns one.
class RequestSource {
 public:
  // `run_id` makes this run's machine ids distinct from any earlier run's on the same
  // store; `connection` is the connection's index.
  RequestSource(Scenario scenario, const std::vector<std::string>& license_keys, size_t connection,
                size_t connections, std::string_view run_id);

  // The next request to send. Valid until the next call.
  const PlannedRequest& next();
  // Sent once before timing starts: activates the connection's own machine, for the
  // scenarios that heartbeat, read or refresh it. Empty when there is nothing to do.
  std::optional<PlannedRequest> preparation() const;
  // True when a 409 1705 (cap reached) is part of the scenario, not a failure.
  bool limit_expected() const { return scenario_ == Scenario::kActivateHot; }

 private:
  const PlannedRequest& fresh_activation();
  uint64_t next_random();

  Scenario scenario_;
  const std::vector<std::string>& license_keys_;
  size_t connection_;
  size_t connections_;
  std::string machine_prefix_;
  PlannedRequest status_, heartbeat_, activate_repeat_;
  PlannedRequest scratch_;  // for bodies built per request
  uint64_t sequence_ = 0;
  uint64_t rng_;
};

// A body as the contract wants it (docs/protocol.md §4), with its SHA-256.
PlannedRequest make_request(Endpoint endpoint, std::string_view license_key,
                            std::optional<std::string_view> machine_id,
                            std::optional<std::string_view> machine_name = std::nullopt);

}  // namespace licensed::bench
