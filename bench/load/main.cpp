// licensed-bench: a load generator that speaks the License API contract. Every request
// is signed with the server's own signing code, with a fresh 128-bit nonce and the
// current timestamp; the licenses it uses are seeded through the admin operations on
// the server's store (--store), or given (--license-key).
#include <fmt/format.h>
#include <openssl/rand.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <iostream>

#include "admin/admin_operations.h"
#include "auth/request_signature.h"
#include "load/bench_args.h"
#include "load/load_run.h"
#include "load/seed.h"

namespace {

using namespace licensed;
using namespace licensed::bench;

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNothingAnswered = 3;  // the run ended without one good answer
constexpr int kExitUnverified = 4;       // a sampled answer's signature did not verify

std::atomic<bool> g_interrupted{false};

void on_interrupt(int) {
  g_interrupted = true;
}

std::string random_run_id() {
  uint8_t bytes[4];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "00000000";
  return to_hex(bytes, sizeof bytes);
}

// --seed-activations: seeds and reports what it added (and how fast), no load.
int seed_only(const std::string& store, size_t count, ActivationSeed seed, bool json, bool quiet) {
  seed.activations = count;
  // The store's start-up lines (schema migrations of a new file) would mix with the
  // report on stdout.
  spdlog::set_level(spdlog::level::warn);
  const auto started = std::chrono::steady_clock::now();
  auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  SeededActivations done;
  try {
    done = seed_activations(store, seed, [&](const SeededActivations& so_far) {
      if (quiet) return;
      const double secs = seconds_since_start();
      std::cerr << fmt::format("seeded {} activations on {} licenses in {:.1f} s ({:.0f}/s)\n",
                               so_far.activations, so_far.licenses, secs,
                               so_far.activations / secs);
    });
  } catch (const std::exception& e) {
    std::cerr << "licensed-bench: " << e.what() << "\n";
    return kExitFailed;
  }
  const double secs = seconds_since_start();
  if (json) {
    boost::json::object report{{"seededActivations", done.activations},
                               {"seededLicenses", done.licenses},
                               {"seconds", secs}};
    std::cout << boost::json::serialize(report) << std::endl;
  } else {
    std::cout << fmt::format("seeded {} activations on {} licenses in {:.1f} s\n", done.activations,
                             done.licenses, secs);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "licensed-bench: load generator for the License API (every request signed, fresh "
      "nonce, current timestamp)"};
  std::string url;
  std::optional<std::string> host;
  std::optional<uint16_t> port;
  size_t connections = 64;
  size_t threads = 1;
  std::string duration_text;
  std::optional<uint64_t> requests;
  std::string warmup_text = "0s";
  std::string timeout_text = "10s";
  std::string scenario_text = "status";
  std::string key_id = "bench";
  std::string secret;
  std::string store;
  std::vector<std::string> license_keys;
  size_t licenses = 0;
  int64_t hot_max = 4;
  size_t seed_activation_count = 0;
  ActivationSeed activation_seed;
  bool json = false;
  bool quiet = false;
  uint64_t verify_every = 64;

  app.add_option("--url", url,
                 "base URL, http://HOST:PORT[/PREFIX] (default http://127.0.0.1:8080)");
  app.add_option("--host", host, "host to connect to (overrides --url's)");
  app.add_option("--port", port, "port to connect to (overrides --url's)");
  app.add_option("-c,--connections", connections, "keep-alive connections (default 64)")
      ->check(CLI::Range(1, 100000));
  app.add_option("-t,--threads", threads,
                 "client threads, each with its own io_context (default 1)")
      ->check(CLI::Range(1, 256));
  app.add_option("-d,--duration", duration_text,
                 "how long to send after the warm-up: 10s, 500ms, 2m (default 10s unless "
                 "--requests is given)");
  app.add_option("-n,--requests", requests, "requests to send at most, warm-up included");
  app.add_option("--warmup", warmup_text, "sent first and left out of the figures (default 0s)");
  app.add_option("--timeout", timeout_text, "per connect, write and read (default 10s)");
  app.add_option("-s,--scenario", scenario_text, scenario_names() + " (default status)");
  app.add_option("--key-id", key_id, "signing key id (default bench)")
      ->envname("LICENSED_BENCH_KEY_ID");
  app.add_option("--secret", secret, "signing key secret")->envname("LICENSED_BENCH_SECRET");
  app.add_option("--store", store,
                 "seed licenses into this store first (sqlite:PATH, the server's own store)");
  app.add_option("--license-key", license_keys,
                 "use these existing licenses instead of seeding (repeatable)");
  app.add_option("--licenses", licenses,
                 "licenses to seed (default: one per connection; 1000 for activate-new; 1 for "
                 "activate-hot)");
  app.add_option("--hot-max", hot_max, "activate-hot's cap (default 4)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--seed-activations", seed_activation_count,
                 "only seed: this many machines into --store, activated through the activate "
                 "operation, then exit (no load)");
  app.add_option("--machines-per-license", activation_seed.per_license,
                 "--seed-activations' machines on each license (default 10)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--verify-every", verify_every,
                 "verify every Nth answer's signature with the server's published keys; 0: "
                 "none, as against a server that does not sign (default 64)");
  app.add_flag("--json", json, "print the report as one JSON object on stdout");
  app.add_flag("-q,--quiet", quiet, "no progress lines on stderr");
  CLI11_PARSE(app, argc, argv);

  LoadConfig config;
  if (!url.empty()) {
    auto target = parse_base_url(url);
    if (!target) {
      std::cerr << "licensed-bench: --url must be http://HOST[:PORT][/PREFIX], got " << url << "\n";
      return kExitUsage;
    }
    config.target = *target;
  }
  if (host) config.target.host = *host;
  if (port) config.target.port = *port;
  const auto scenario = parse_scenario(scenario_text);
  if (!scenario) {
    std::cerr << "licensed-bench: --scenario must be one of " << scenario_names() << "\n";
    return kExitUsage;
  }
  const auto duration = parse_duration(duration_text.empty() ? "10s" : duration_text);
  const auto warmup = parse_duration(warmup_text);
  const auto timeout = parse_duration(timeout_text);
  if (!duration || !warmup || !timeout || timeout->count() == 0) {
    std::cerr << "licensed-bench: durations are like 10s, 500ms, 2m or a number of seconds\n";
    return kExitUsage;
  }
  if (seed_activation_count > 0) {
    if (store.empty()) {
      std::cerr << "licensed-bench: --seed-activations needs --store\n";
      return kExitUsage;
    }
    return seed_only(store, seed_activation_count, activation_seed, json, quiet);
  }
  if (secret.empty()) {
    std::cerr << "licensed-bench: --secret (or LICENSED_BENCH_SECRET) is required\n";
    return kExitUsage;
  }
  if (!store.empty() && !license_keys.empty()) {
    std::cerr << "licensed-bench: give --store (seed) or --license-key, not both\n";
    return kExitUsage;
  }
  config.scenario = *scenario;
  config.key_id = key_id;
  config.secret = secret;
  config.connections = connections;
  config.threads = threads;
  // --requests alone runs until they are sent; a --duration given too bounds it.
  config.duration = requests && duration_text.empty() ? std::chrono::nanoseconds(0) : *duration;
  config.requests = requests;
  config.warmup = *warmup;
  config.timeout = *timeout;
  config.run_id = random_run_id();
  config.verify_every = verify_every;

  try {
    const SeedPlan plan = seed_plan(*scenario, connections, licenses, hot_max);
    if (!store.empty()) {
      config.license_keys = seed_licenses(store, plan.licenses, plan.max);
    } else if (!license_keys.empty()) {
      config.license_keys = license_keys;
    } else {
      // Against something that is not licensed (a ceiling run against nginx), any key
      // will do; licensed itself answers these 404 1703.
      std::cerr << "licensed-bench: no --store or --license-key: sending random license keys\n";
      for (size_t i = 0; i < plan.licenses; ++i)
        config.license_keys.push_back(generate_license_key());
    }
  } catch (const std::exception& e) {
    std::cerr << "licensed-bench: " << e.what() << "\n";
    return kExitFailed;
  }
  if (!quiet) config.progress = [](const std::string& line) { std::cerr << line << std::endl; };
  signal(SIGINT, on_interrupt);
  config.interrupted = [] { return g_interrupted.load(); };

  RunSummary summary;
  try {
    summary = run_load(config);
  } catch (const std::exception& e) {
    std::cerr << "licensed-bench: " << e.what() << "\n";
    return kExitFailed;
  }
  if (json) {
    std::cout << boost::json::serialize(json_report(summary)) << std::endl;
  } else {
    std::cout << text_report(summary);
  }
  const RunStats& st = summary.stats;
  if (st.signatures_failed > 0) {
    std::cerr << "licensed-bench: " << st.signatures_failed
              << " sampled answer(s) carry a signature that does not verify\n";
    return kExitUnverified;
  }
  return st.ok + st.expected_refusals + st.warmup_answered > 0 ? 0 : kExitNothingAnswered;
}
