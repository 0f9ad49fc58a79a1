// A load run: N keep-alive connections spread over T threads, each thread with its own
// io_context, signer and statistics, each connection sending its next signed request
// as soon as the previous answer arrived (a closed loop: the figures are what 64 busy
// clients see, not an open-loop arrival rate).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "load/run_stats.h"
#include "load/scenario.h"

namespace licensed::bench {

struct LoadTarget {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  std::string path_prefix;  // what {base_url} has before /api/, without a trailing '/'
};

struct LoadConfig {
  LoadTarget target;
  Scenario scenario = Scenario::kStatus;
  std::vector<std::string> license_keys;  // at least one
  std::string key_id;
  std::string secret;
  size_t connections = 64;
  size_t threads = 1;
  std::chrono::nanoseconds duration{0};  // 0: until `requests` are sent
  std::optional<uint64_t> requests;      // requests to send at most, warm-up included
  std::chrono::nanoseconds warmup{0};
  std::chrono::nanoseconds timeout = std::chrono::seconds(10);  // per connect, write, read
  std::string run_id;  // keeps machine ids distinct across runs
  // Every Nth answer's signature is verified (load/answer_check.h) against the keys the
  // server publishes, fetched before the run; 0: none (a server that does not sign, as
  // nginx in a ceiling run).
  uint64_t verify_every = 64;
  // Called about once a second while the run goes on (on the calling thread).
  std::function<void(const std::string& line)> progress;
  // Polled as often; true ends the run early (Ctrl-C), with a report of what was done.
  std::function<bool()> interrupted;
};

// Fetches the server's published response keys (GET /api/v1/license/public-keys) when
// answers are to be verified, then sends each connection's preparation request (docs/protocol.md
// §7: activating the machine the scenario then heartbeats or reads) over one plain connection, then
// runs the load. Throws std::runtime_error when the target cannot be reached, publishes no key to
// verify with, or a preparation request is refused: there is nothing to measure then.
RunSummary run_load(const LoadConfig& config);

}  // namespace licensed::bench
