#include "load/scenario.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "auth/request_signature.h"

namespace licensed::bench {
namespace {

struct Named {
  Scenario scenario;
  std::string_view name;
};
constexpr Named kScenarios[] = {
    {Scenario::kStatus, "status"},
    {Scenario::kHeartbeat, "heartbeat"},
    {Scenario::kActivateRepeat, "activate-repeat"},
    {Scenario::kActivateNew, "activate-new"},
    {Scenario::kActivateHot, "activate-hot"},
    {Scenario::kMix, "mix"},
};

// Large enough that activate-new never meets the cap, whatever the run's length.
constexpr int64_t kUnlimited = 1'000'000'000;
// activate-new spreads its machines so that no license grows big during a run: the
// cap is counted over a license's machines, and one huge license would measure that
// count instead of the request path.
constexpr size_t kActivateNewLicenses = 1000;

}  // namespace

std::optional<Scenario> parse_scenario(std::string_view name) {
  for (const auto& s : kScenarios) {
    if (s.name == name) return s.scenario;
  }
  return std::nullopt;
}

std::string_view scenario_name(Scenario scenario) {
  for (const auto& s : kScenarios) {
    if (s.scenario == scenario) return s.name;
  }
  return "?";
}

std::string scenario_names() {
  std::string out;
  for (const auto& s : kScenarios) {
    if (!out.empty()) out += '|';
    out += s.name;
  }
  return out;
}

SeedPlan seed_plan(Scenario scenario, size_t connections, size_t licenses, int64_t hot_max) {
  switch (scenario) {
    case Scenario::kActivateHot:
      return {1, hot_max};
    case Scenario::kActivateNew:
      return {licenses != 0 ? licenses : kActivateNewLicenses, kUnlimited};
    default:
      // One license per connection: a plugin fleet is many licenses with a few machines
      // each, and the per-license row lock is then never shared between connections.
      return {licenses != 0 ? licenses : connections, kUnlimited};
  }
}

PlannedRequest make_request(Endpoint endpoint, std::string_view license_key,
                            std::optional<std::string_view> machine_id,
                            std::optional<std::string_view> machine_name) {
  boost::json::object body;
  body["licenseKey"] = license_key;
  if (machine_id) body["machineId"] = *machine_id;
  if (machine_name) body["machineName"] = *machine_name;
  PlannedRequest r;
  r.endpoint = endpoint;
  r.body = boost::json::serialize(body);
  r.body_sha256_hex = sha256_hex(r.body);
  return r;
}

RequestSource::RequestSource(Scenario scenario, const std::vector<std::string>& license_keys,
                             size_t connection, size_t connections, std::string_view run_id)
    : scenario_(scenario),
      license_keys_(license_keys),
      connection_(connection),
      connections_(connections),
      machine_prefix_("bench-" + std::string(run_id) + "-c" + std::to_string(connection)),
      rng_(0x9e3779b97f4a7c15ull * (connection + 1)) {
  const std::string& key = license_keys_[connection_ % license_keys_.size()];
  status_ = make_request(Endpoint::kStatus, key, machine_prefix_);
  heartbeat_ = make_request(Endpoint::kHeartbeat, key, machine_prefix_);
  activate_repeat_ = make_request(Endpoint::kActivate, key, machine_prefix_, "licensed-bench");
}

std::optional<PlannedRequest> RequestSource::preparation() const {
  switch (scenario_) {
    case Scenario::kStatus:
    case Scenario::kHeartbeat:
    case Scenario::kActivateRepeat:
    case Scenario::kMix:
      return activate_repeat_;
    case Scenario::kActivateNew:
    case Scenario::kActivateHot:
      return std::nullopt;
  }
  return std::nullopt;
}

// xorshift64*: the mix needs a cheap, reproducible choice, not a secret.
uint64_t RequestSource::next_random() {
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return rng_ * 0x2545f4914f6cdd1dull;
}

const PlannedRequest& RequestSource::fresh_activation() {
  // Connection i's n-th new machine goes to license (i + n * connections) mod L, so the
  // connections together walk the licenses evenly.
  const uint64_t n = sequence_++;
  const std::string& key = license_keys_[(connection_ + n * connections_) % license_keys_.size()];
  const std::string machine = machine_prefix_ + "-n" + std::to_string(n);
  scratch_ = make_request(Endpoint::kActivate, key, machine, "licensed-bench");
  return scratch_;
}

const PlannedRequest& RequestSource::next() {
  switch (scenario_) {
    case Scenario::kStatus:
      return status_;
    case Scenario::kHeartbeat:
      return heartbeat_;
    case Scenario::kActivateRepeat:
      return activate_repeat_;
    case Scenario::kActivateNew:
    case Scenario::kActivateHot:
      return fresh_activation();
    case Scenario::kMix: {
      const uint64_t pick = next_random() % 100;
      if (pick < 60) return heartbeat_;
      if (pick < 85) return status_;
      if (pick < 95) return activate_repeat_;
      return fresh_activation();
    }
  }
  return status_;
}

}  // namespace licensed::bench
