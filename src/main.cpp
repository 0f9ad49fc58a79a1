// licensed: `licensed serve` runs the License API; `licensed admin` manages licenses.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <thread>

#include "admin/admin_cli.h"
#include "admin/cli_status.h"
#include "admin/init_cli.h"
#include "admin/store_lifecycle.h"
#include "auth/batch_signer.h"
#include "auth/memory_nonce_store.h"
#include "auth/redis_nonce_store.h"
#include "auth/response_signer.h"
#include "auth/same_second_nonces.h"
#include "auth/stored_response_key.h"
#include "auth/trial_key.h"
#include "config/serve_config.h"
#include "config/serve_settings.h"
#include "core/periodic_job.h"
#include "core/private_file.h"
#include "dashboard/brand.h"
#include "dashboard/memory_session_store.h"
#include "dashboard/redis_session_store.h"
#include "http/admin_service.h"
#include "http/api_service.h"
#include "http/descriptor_limit.h"
#include "http/http_server.h"
#include "http/license_handler.h"
#include "http/store_api_caller.h"
#include "observability/log_format.h"
#include "observability/log_output.h"
#include "observability/process_metrics.h"
#include "observability/redaction.h"
#include "observability/sentry_reporter.h"
#include "ratelimit/memory_rate_limiter.h"
#include "ratelimit/redis_rate_limiter.h"
#include "ratelimit/reloadable_rate_limiter.h"
#include "redis/redis_client.h"
#include "redis/redis_workers.h"
#include "store/lease_sweep.h"
#include "store/remembered_nonce_purge.h"
#include "store/sqlite/sqlite_serve_lock.h"
#include "store/store.h"
#include "webhooks/webhook_dispatcher.h"
#include "webhooks/webhook_sweeps.h"

namespace {

using namespace licensed;

// How long SIGTERM waits for queued error reports to reach Sentry.
constexpr std::chrono::seconds kErrorReportFlush{2};
// Wrong admin API tokens answered 401 per client IP and minute before 429.
constexpr int64_t kFailedAdminAuthPerMinute = 20;
// Dashboard sign-ins per client IP a minute (every attempt counts): a person needs a
// few; a v4 UUID cannot be guessed, and this bounds the work a client can cause.
constexpr int64_t kDashboardSignInsPerMinute = 20;
constexpr int64_t kDashboardSessionMs = 3600'000;
// Sign-ins of one license per session lifetime, with Redis (whose memory the nonces share).
constexpr int64_t kDashboardSignInsPerLicense = 100;
constexpr size_t kDashboardMaxSessions = 100'000;
// Dashboard reads (the license view, a page of its history) per session and per client
// IP a minute: a person clicks "Show older" a few times; a loop is refused with 429
// long before it costs the License API anything. The IP bucket allows an office behind
// one address several people at once.
constexpr int64_t kDashboardReadsPerSessionMinute = 60;
constexpr int64_t kDashboardReadsPerIpMinute = 300;
// Every key this server writes in Redis starts with this.
// Failed store payments are swept this often: a store's paymentGrace is counted in days
// (default 7d), so a suspension comes at most a minute after its grace ends.
constexpr std::chrono::minutes kPaymentGraceSweepInterval{1};
constexpr std::chrono::minutes kWebhookSweepInterval{1};  // docs/protocol.md §25.4
constexpr std::string_view kRedisPrefix = "licensed:";
// Threads that make the Redis calls of parked requests, per network thread. A worker
// mostly waits for Redis' answer; two per network thread make as many calls at once as
// before, when each network thread made them itself, with room for one slow answer.
constexpr size_t kRedisWorkersPerNetworkThread = 2;
// Store API look-ups at once (Stripe's line items): deliveries are rare, and one waiting
// on a slow provider holds only its worker.
constexpr size_t kStoreApiWorkers = 4;

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

// docs/protocol.md §22.7: once a store's paymentGrace has passed since a failed payment with no
// payment since, the order's licenses are SUSPENDED. Every instance sweeps; the store decides
// between them (the first to delete a failure acts on it).
void sweep_store_payment_grace(Store& store, const Clock& clock) {
  auto swept = run_payment_grace_sweep(store, clock.now_ms());
  if (!swept.ok()) {
    // Nothing is lost: the failures stay due, and the next round tries again.
    spdlog::warn("store payment grace not swept: {}", swept.error().message);
  } else if (swept.value() > 0) {
    spdlog::info("store payment grace: {} licenses suspended", swept.value());
  }
}

// docs/protocol.md §25.4: the sweep's events (expiring soon, expired, entitlement expired), once
// each whichever instance sweeps first, and the outbox's pruning.
void sweep_webhooks(Store& store, const Clock& clock) {
  auto swept = run_webhook_sweeps(store, clock.now_ms());
  if (!swept.ok()) spdlog::warn("webhook sweep not finished: {}", swept.error().message);
  auto pruned = prune_webhook_outbox(store, clock.now_ms());
  if (!pruned.ok()) spdlog::warn("webhook outbox not pruned: {}", pruned.error().message);
}

// /metrics: deliveries by outcome, pending deliveries, the age of the oldest pending one.
void add_webhook_metrics(ServerMetrics& metrics, const WebhookCounters& c, const Clock& clock) {
  const std::pair<const char*, const std::atomic<int64_t>*> outcomes[] = {
      {"delivered", &c.delivered}, {"retried", &c.retried}, {"failed", &c.failed}};
  for (const auto& [outcome, counter] : outcomes) {
    const std::atomic<int64_t>* value = counter;
    metrics.add_gauge(
        {std::string("licensed_webhook_deliveries_total{outcome=\"") + outcome + "\"}",
         "Webhook delivery attempts by outcome since start.",
         [value] { return static_cast<double>(value->load()); }, "counter"});
  }
  metrics.add_gauge({"licensed_webhook_endpoints_disabled_total",
                     "Webhook endpoints disabled since start (410, or 5 days of failures).",
                     [&c] { return static_cast<double>(c.disabled.load()); }, "counter"});
  metrics.add_gauge({"licensed_webhook_pending_deliveries",
                     "Webhook deliveries neither delivered nor failed yet.",
                     [&c] { return static_cast<double>(c.pending.load()); }});
  metrics.add_gauge({"licensed_webhook_oldest_pending_age_seconds",
                     "Age of the event of the oldest pending webhook delivery (0: none).",
                     [&c, &clock] {
                       const int64_t at = c.oldest_pending_at.load();
                       return at == 0 ? 0.0 : static_cast<double>(clock.now_ms() - at) / 1000.0;
                     }});
}

// /metrics: store jobs failed by kind (counted by submit_call), and the PostgreSQL pool's
// figures; SQLite has no pool to watch (one writer, fixed readers), so it shows none.
void add_store_failure_and_pool_metrics(ServerMetrics& metrics, const Store& store) {
  for (size_t i = 0; i < kStoreFailureKindNames.size(); ++i) {
    const auto kind = static_cast<StoreFailureKind>(i);
    metrics.add_gauge({std::string("licensed_store_errors_total{kind=\"") +
                           std::string(kStoreFailureKindNames[i]) + "\"}",
                       "Store jobs that failed since start: unavailable (1708), internal (1709), "
                       "queue_full (refused at once, --max-queue).",
                       [&store, kind] { return static_cast<double>(store.failures(kind)); },
                       "counter"});
  }
  const auto figures = store.pool_figures();
  if (!figures) return;
  const auto read = [&store](size_t StorePoolFigures::*member) {
    return [&store, member] {
      const auto now = store.pool_figures();
      return now ? static_cast<double>((*now).*member) : 0.0;
    };
  };
  metrics.add_gauge({"licensed_store_pool_size", "PostgreSQL connections at most.",
                     read(&StorePoolFigures::size)});
  metrics.add_gauge({"licensed_store_pool_connections_open", "PostgreSQL connections open now.",
                     read(&StorePoolFigures::open)});
  metrics.add_gauge({"licensed_store_pool_connections_in_use",
                     "PostgreSQL connections running a transaction now.",
                     read(&StorePoolFigures::in_use)});
  metrics.add_gauge({"licensed_store_pool_connections_idle",
                     "PostgreSQL connections open and waiting for a job.", [&store] {
                       const auto now = store.pool_figures();
                       return now && now->open > now->in_use
                                  ? static_cast<double>(now->open - now->in_use)
                                  : 0.0;
                     }});
}

// Nonces of requests dated ahead of the clock, kept in the store by an earlier run,
// are loaded so the restart rule and the store together refuse every replay. Loading
// must succeed; purging expired ones may fail (a read-only file) and waits for the next
// start.
Status load_remembered_nonces(Store& store, NonceStore& nonces, const Clock& clock) {
  const UnixMillis now = clock.now_ms();
  auto purged = run_blocking(store, TxKind::kWrite,
                             [&](StoreTx& tx) -> Status { return tx.purge_nonces(now); });
  if (!purged.ok()) spdlog::warn("expired remembered nonces not purged; they are ignored");
  auto loaded = run_blocking(store, TxKind::kRead,
                             [&](StoreTx& tx) -> Result<std::vector<StoreTx::RememberedNonce>> {
                               return tx.load_nonces(now);
                             });
  if (!loaded.ok()) return loaded.error();
  for (const auto& n : loaded.value()) {
    // kReused and kStale are fine (already known, or older than what the store forgot);
    // a nonce that could not be put back would reopen a replay: refuse to start.
    const NonceVerdict v = nonces.check_and_insert(n.key_id, n.nonce, now, n.expires_at);
    if (v == NonceVerdict::kFull || v == NonceVerdict::kUnavailable) {
      return Error::unavailable("remembered nonces could not be loaded into the nonce store");
    }
  }
  if (!loaded->empty()) spdlog::info("loaded {} remembered nonces", loaded->size());
  return Ok{};
}

// At a graceful stop: the nonces of requests dated in this very second, which neither the
// restart rule nor the kept ahead-dated nonces cover, go to the store for the next start.
void keep_same_second_nonces(Store& store, SameSecondNonces& same_second, const Clock& clock) {
  const auto entries = same_second.take(clock.now_seconds());
  if (entries.empty()) return;
  auto kept = run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) -> Status {
    for (const auto& e : entries)
      RETURN_IF_ERROR(tx.remember_nonce(e.key_id, e.nonce, e.expires_at));
    return Ok{};
  });
  if (kept.ok()) {
    spdlog::info("kept {} nonces of requests dated this second for the next start", entries.size());
  } else {
    spdlog::warn(
        "could not keep the nonces of requests dated this second ({}): a restart "
        "within this second would accept their replay",
        kept.error().message);
  }
}

// A SQLite store holds the response key in clear (unless --response-key gives it) and
// every license: files made before this process, or by another, may be open to others.
void warn_if_store_open_to_others(const std::string& store_url) {
  const auto path = sqlite_path_of(store_url);
  if (!path) return;
  for (const auto& f : files_open_to_others({*path, *path + "-wal", *path + "-shm"})) {
    spdlog::warn(
        "store file {} is open to other users (mode {:04o}): it holds the response key and "
        "every license; chmod 600 it, or keep the key apart with --response-key FILE",
        f.path, f.mode);
  }
}

// Sleeps until the clock reaches `second` (Unix seconds).
void wait_until_second(const Clock& clock, int64_t second) {
  for (UnixMillis now = clock.now_ms(); unix_seconds(now) < second; now = clock.now_ms()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1000 - now % 1000));
  }
}

// The configuration read again from the same flags, environment and files (SIGHUP).
using ServeReread = std::function<Result<ServeConfig>()>;

// What is kept outside the store (nonces, rate-limit buckets, dashboard sessions): in this
// process, or with --redis in Redis, shared by every instance of a deployment. Their
// metrics are registered here.
struct VolatileState {
  std::unique_ptr<RedisClient> redis;
  std::unique_ptr<NonceStore> nonces;
  std::unique_ptr<SessionStore> dashboard_sessions;
  // In-memory nonce store only: see same_second_nonces.h.
  std::unique_ptr<SameSecondNonces> same_second_nonces;
  // The configured limits, which SIGHUP may change (and turn off or on).
  std::unique_ptr<ReloadableRateLimiter> ip_limiter;
  std::unique_ptr<ReloadableRateLimiter> key_limiter;
  std::unique_ptr<ReloadableRateLimiter> trial_ip_limiter;
  std::unique_ptr<ReloadableRateLimiter> trial_product_limiter;
  std::unique_ptr<RateLimiter> dashboard_session_reads;
  std::unique_ptr<RateLimiter> dashboard_ip_reads;
};

// Every rate limiter of the state, made one way: in this process's memory, or with
// Redis as buckets under licensed:ratelimit:NAME: shared by the deployment, counted in
// the fail-open gauge.
void make_rate_limiters(VolatileState& s, const ServeConfig& config, const Clock& clock,
                        ServerMetrics& metrics) {
  RedisClient* redis = s.redis.get();
  auto factory = [redis, &clock](std::string_view bucket) -> ReloadableRateLimiter::Factory {
    return [redis, &clock, bucket](const RateSpec& spec) -> std::unique_ptr<RateLimiter> {
      if (redis == nullptr) return std::make_unique<MemoryRateLimiter>(spec);
      return std::make_unique<RedisRateLimiter>(
          *redis, spec, std::string(kRedisPrefix) + "ratelimit:" + std::string(bucket) + ":",
          clock);
    };
  };
  auto limiter = [&](const std::optional<RateSpec>& spec, std::string_view bucket) {
    return std::make_unique<ReloadableRateLimiter>(spec, factory(bucket));
  };
  s.ip_limiter = limiter(config.rate_limit_ip, "ip");
  s.key_limiter = limiter(config.rate_limit_key, "key");
  s.trial_ip_limiter = limiter(config.rate_limit_trial, "trial");
  s.trial_product_limiter = limiter(config.rate_limit_trial_product, "trial-product");
  s.dashboard_session_reads =
      limiter(RateSpec{kDashboardReadsPerSessionMinute, 60'000}, "dashboard-session");
  s.dashboard_ip_reads = limiter(RateSpec{kDashboardReadsPerIpMinute, 60'000}, "dashboard-ip");
  if (!s.redis) return;
  std::vector<const ReloadableRateLimiter*> all{s.ip_limiter.get(), s.key_limiter.get(),
                                                s.trial_ip_limiter.get(),
                                                s.trial_product_limiter.get()};
  for (const auto& l : {s.dashboard_session_reads.get(), s.dashboard_ip_reads.get()}) {
    all.push_back(static_cast<const ReloadableRateLimiter*>(l));
  }
  metrics.add_gauge({"licensed_redis_rate_limit_fail_open_total",
                     "Requests admitted unchecked by a rate limit because Redis did not answer.",
                     [all] {
                       double n = 0;
                       for (const auto* l : all) {
                         n += l->sum([](const RateLimiter& r) {
                           return static_cast<double>(
                               static_cast<const RedisRateLimiter&>(r).failed_open_count());
                         });
                       }
                       return n;
                     },
                     "counter"});
}

Result<VolatileState> make_volatile_state(const ServeConfig& config, const Clock& clock,
                                          ServerMetrics& metrics) {
  VolatileState s;
  if (!config.redis) {
    auto nonces = std::make_unique<MemoryNonceStore>(config.max_nonces);
    metrics.add_gauge({"licensed_nonce_store_entries", "Nonces remembered in memory.",
                       [n = nonces.get()] { return static_cast<double>(n->size()); }});
    metrics.add_gauge({"licensed_nonce_store_bytes", "Bytes of the in-memory nonce tables.",
                       [n = nonces.get()] { return static_cast<double>(n->table_bytes()); }});
    s.nonces = std::move(nonces);
    s.dashboard_sessions =
        std::make_unique<MemorySessionStore>(clock, kDashboardSessionMs, kDashboardMaxSessions);
    s.same_second_nonces = std::make_unique<SameSecondNonces>();
    make_rate_limiters(s, config, clock, metrics);
    return s;
  }
  s.redis = std::make_unique<RedisClient>(
      RedisClientOptions{*config.redis, std::chrono::milliseconds(config.redis_timeout_ms),
                         kRedisWorkersPerNetworkThread * network_thread_count(config.threads)});
  auto nonces = std::make_unique<RedisNonceStore>(*s.redis, std::string(kRedisPrefix), clock);
  // The first call: a wrong URL or password shows at start-up; later outages are
  // survived.
  if (auto marked = nonces->start_remembering(); !marked.ok()) return marked.error();
  metrics.add_gauge({"licensed_redis_nonce_unavailable_total",
                     "Nonce checks refused with 503 because Redis did not answer.",
                     [n = nonces.get()] { return static_cast<double>(n->unavailable_count()); },
                     "counter"});
  s.nonces = std::move(nonces);
  s.dashboard_sessions = std::make_unique<RedisSessionStore>(
      *s.redis, std::string(kRedisPrefix), clock, kDashboardSessionMs, kDashboardSignInsPerLicense);
  make_rate_limiters(s, config, clock, metrics);
  return s;
}

// Without a --response-key of `algorithm` the store's own key of it signs: read it, and
// make it on the first start (in a write transaction, so servers starting together on
// one store agree).
Result<ResponseKey> store_response_key(Store& store, const Clock& clock,
                                       ResponseAlgorithm algorithm) {
  auto found = run_blocking(store, TxKind::kRead, [algorithm](StoreTx& tx) {
    return find_stored_response_key(tx, algorithm);
  });
  if (!found.ok()) return found.error();
  if (found.value()) return std::move(*found.value());
  auto made = run_blocking(store, TxKind::kWrite, [&](StoreTx& tx) {
    return stored_response_key(tx, algorithm, clock.now_ms());
  });
  if (made.ok()) spdlog::info("made response key {} and kept it in the store", made->kid());
  return made;
}

bool has_key_of(const std::vector<ResponseKey>& keys, ResponseAlgorithm algorithm) {
  return std::any_of(keys.begin(), keys.end(),
                     [algorithm](const ResponseKey& k) { return k.algorithm() == algorithm; });
}

// The configured keys, then the store's key of each algorithm none of them has, so that
// the server always signs in both (docs/protocol.md §13.4).
Status add_store_response_keys(std::vector<ResponseKey>& keys, Store& store, const Clock& clock) {
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    if (has_key_of(keys, a)) continue;
    auto key = store_response_key(store, clock, a);
    if (!key.ok()) return key.error();
    keys.push_back(std::move(key.value()));
  }
  return Ok{};
}

// "ed25519-... (Ed25519), es256-... (ES256)": the keys that sign, for the start-up log.
std::string signing_kids(const ResponseSigner& signer) {
  std::string out;
  for (const ResponseAlgorithm a : signer.algorithms()) {
    if (!out.empty()) out += ", ";
    out += signer.signing_key(a)->kid() + " (" + std::string(algorithm_name(a)) + ")";
  }
  return out;
}

// The connection cap the descriptors allow, after raising their soft limit to the hard
// one; a cap lowered from the configured one is said at start, with the way to raise it.
size_t connection_cap(const ServeConfig& config) {
  const auto descriptors = raise_descriptor_limit();
  if (!descriptors) return config.max_connections;
  const size_t kept =
      descriptors_kept_aside(network_thread_count(config.threads), config.store_pool_size);
  const size_t cap = connections_within(*descriptors, kept, config.max_connections);
  if (cap < config.max_connections) {
    spdlog::warn(
        "at most {} open connections, not {} (--max-connections): the process may open {} "
        "descriptors (RLIMIT_NOFILE) and keeps {} of them for the store, Redis, logs and the "
        "admin listener; raise the hard limit (systemd: LimitNOFILE=) to allow more",
        cap, config.max_connections, *descriptors, *descriptors - cap);
  }
  return cap;
}

Result<std::vector<CidrBlock>> parse_trusted_proxies(const std::vector<std::string>& texts) {
  std::vector<CidrBlock> blocks;
  for (const auto& p : texts) {
    ASSIGN_OR_RETURN(auto block, CidrBlock::parse(p));
    blocks.push_back(block);
  }
  return blocks;
}

// What serve (and --check-config) refuses to start without, read before anything starts:
// signing keys, usable response key files (the messages name the file, never its
// contents), trusted proxies that parse, the dashboard's brand with its logo file.
struct StartupChecks {
  std::vector<ResponseKey> response_keys;
  TrustedProxies proxies;
  DashboardBrandAssets brand;
};
Result<StartupChecks> check_startup(const ServeConfig& config) {
  if (config.signing_keys.empty()) {
    return config_error("no signing keys: give " + where_to_set(*find_setting("signing-key")));
  }
  StartupChecks checked;
  for (const auto& path : config.response_keys) {
    auto key = ResponseKey::load_file(path);
    if (!key.ok()) {
      Error e = key.error();
      e.message = "response key " + e.message;
      return e;
    }
    checked.response_keys.push_back(std::move(key.value()));
  }
  // The dashboard's logo is read once, here: a missing or unusable file is a
  // configuration error, told before anything starts.
  ASSIGN_OR_RETURN(checked.brand, load_dashboard_brand(config.dashboard_brand.name,
                                                       config.dashboard_brand.logo_file,
                                                       config.dashboard_brand.support_url));
  ASSIGN_OR_RETURN(auto blocks, parse_trusted_proxies(config.trusted_proxies));
  checked.proxies = TrustedProxies(std::move(blocks));
  return checked;
}

std::string describe_rate(const std::optional<RateSpec>& spec) {
  if (!spec) return "off";
  return std::to_string(spec->count) + "/" + std::to_string(spec->period_ms / 1000) + "s";
}

// SIGHUP (docs/configuration.md, "Reloading"): the log file is reopened, and the
// configuration read again; signing keys, rate limits, trusted proxies and the log level
// take the new values. A configuration that does not resolve changes nothing.
void reload(const ServeReread& reread, KeyRing& keys, VolatileState& state,
            const TrustedProxies& proxies) {
  if (auto reopened = reopen_log_file(); !reopened.ok()) {
    spdlog::error("SIGHUP: {}", reopened.error().message);
  }
  auto config = reread();
  Result<std::vector<CidrBlock>> blocks = config.ok()
                                              ? parse_trusted_proxies(config->trusted_proxies)
                                              : Result<std::vector<CidrBlock>>(config.error());
  if (config.ok() && config->signing_keys.empty()) {
    blocks = config_error("no signing keys: give " + where_to_set(*find_setting("signing-key")));
  }
  if (!blocks.ok()) {
    spdlog::error("SIGHUP: the configuration in force stays: {}", blocks.error().message);
    return;
  }
  keys.replace(config->signing_keys);
  proxies.replace(std::move(blocks.value()));
  state.key_limiter->set_spec(config->rate_limit_key);
  state.ip_limiter->set_spec(config->rate_limit_ip);
  state.trial_ip_limiter->set_spec(config->rate_limit_trial);
  state.trial_product_limiter->set_spec(config->rate_limit_trial_product);
  use_log_level(config->log_level);
  spdlog::info(
      "SIGHUP: reloaded {} signing key(s), {} trusted proxy block(s), rate limits key {} ip {} "
      "trial {} trial-product {}",
      keys.size(), config->trusted_proxies.size(), describe_rate(config->rate_limit_key),
      describe_rate(config->rate_limit_ip), describe_rate(config->rate_limit_trial),
      describe_rate(config->rate_limit_trial_product));
}

int serve(const ServeConfig& config, const ServeReread& reread, bool create_store) {
  auto checked = check_startup(config);
  if (!checked.ok()) {
    std::cerr << "licensed: " << checked.error().message << "\n";
    return exit_code_of(checked.error().code, CliStage::kConfiguration);
  }
  std::vector<ResponseKey> response_keys = std::move(checked->response_keys);
  const TrustedProxies proxies = checked->proxies;

  // hiredis writes with write(), which raises SIGPIPE on a connection Redis has closed;
  // the failed write is handled as an error (reconnect), so the signal must not kill us.
  signal(SIGPIPE, SIG_IGN);
  // Block the signals before any thread starts, so only sigwait below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  warn_if_store_open_to_others(config.store);
  // Before anything opens descriptors, so that the store and Redis get the raised limit.
  const size_t max_connections = connection_cap(config);
  SystemClock clock;
  // With the in-memory nonce store, the restart rule of docs/protocol.md §3.4 refuses requests
  // dated before this second. The process before this one may have accepted requests
  // dated up to the second this one begins in, and after a crash (SIGKILL, power loss)
  // their nonces are nowhere; those dated later were ahead of its clock and are in the
  // store. So the rule counts from the next second, and the listener waits for it: a
  // client whose clock matches ours is never told it is dated before our start.
  const int64_t first_second_served = clock.now_seconds() + 1;
  // A store that does not exist is made only when asked (--create, or `licensed init`).
  auto store = open_store(config.store, StoreLimits{config.max_queue, config.store_pool_size},
                          StoreOpening{create_store, true});
  if (!store.ok()) {
    std::cerr << "licensed: " << store.error().message << "\n";
    return exit_code_of(store.error().code, CliStage::kRunning);
  }
  ServerMetrics metrics;
  add_process_metrics(metrics);
  metrics.set_build_version(LICENSED_VERSION);
  auto shared_state = make_volatile_state(config, clock, metrics);
  if (!shared_state.ok()) {
    std::cerr << "licensed: cannot use redis at " << config.redis->host << ":" << config.redis->port
              << ": " << shared_state.error().message << "\n";
    return exit_code_of(shared_state.error().code, CliStage::kRunning);
  }
  VolatileState& state = shared_state.value();
  // Held until exit; only its verdict is read.
  const auto serve_lock = state.redis ? nullptr : SqliteServeLock::take(config.store);
  if (serve_lock && serve_lock->held_elsewhere()) {
    spdlog::warn(
        "another licensed serve without --redis serves {}: each instance remembers only its "
        "own nonces and counts its own rate limits, so a request one accepted could be "
        "replayed once to the other; run several instances with --redis",
        redact_url_credentials(config.store));
  }
  if (auto loaded = load_remembered_nonces(*store.value(), *state.nonces, clock); !loaded.ok()) {
    std::cerr << "licensed: cannot read the store " << redact_url_credentials(config.store) << ": "
              << loaded.error().message << "\n";
    return exit_code_of(loaded.error().code, CliStage::kRunning);
  }
  // Expired ones are dropped every timestamp window: a nonce is kept two windows, so a
  // row outlives its expiry by at most one.
  auto nonce_purge = std::make_unique<RememberedNoncePurge>(
      *store.value(), clock, std::chrono::seconds(config.timestamp_window));
  Store& sweep_store = *store.value();
  auto payment_grace_sweep = std::make_unique<PeriodicJob>(
      kPaymentGraceSweepInterval,
      [&sweep_store, &clock] { sweep_store_payment_grace(sweep_store, clock); });
  auto webhook_dispatcher =
      std::make_unique<WebhookDispatcher>(sweep_store, clock, outgoing_policy(config));
  add_webhook_metrics(metrics, webhook_dispatcher->counters(), clock);
  auto webhook_sweep = std::make_unique<PeriodicJob>(
      kWebhookSweepInterval, [&sweep_store, &clock] { sweep_webhooks(sweep_store, clock); });
  // docs/protocol.md §27: ended leases released with lease.released, once whichever instance
  // (or checkout) takes them first; a first round now, for those that ended while none ran.
  auto lease_sweep = std::make_unique<LeaseSweep>(sweep_store, clock, kLeaseSweepInterval);

  if (auto kept = add_store_response_keys(response_keys, *store.value(), clock); !kept.ok()) {
    std::cerr << "licensed: cannot keep a response key in the store "
              << redact_url_credentials(config.store) << ": " << kept.error().message
              << "; give one of each algorithm with --response-key FILE\n";
    return exit_code_of(kept.error().code, CliStage::kRunning);
  }
  const ResponseSigner response_signer(std::move(response_keys));
  // Answers waiting for a signature are signed together (docs/protocol.md §13.3), on the
  // threads that made them (no thread of its own); stopped below, once no store thread can
  // hand it an answer any more, so that what a held signer queued is signed.
  BatchSigner batch_signer(response_signer);
  auto trial_key = run_blocking(*store.value(), TxKind::kWrite, [&clock](StoreTx& tx) {
    return stored_trial_key(tx, clock.now_ms());
  });
  // A store that cannot be written now (read-only) serves without trials: the trial
  // endpoint answers 1703 until a restart finds the store writable.
  if (!trial_key.ok()) {
    spdlog::warn("trial key not available ({}); trials answer 1703 until a restart",
                 trial_key.error().message);
  }
  spdlog::info("answers are signed with response keys {} ({} key(s) published)",
               signing_kids(response_signer), response_signer.keys().size());
  KeyRing keys(config.signing_keys);
  Store* store_ptr = store.value().get();
  metrics.add_gauge({"licensed_store_queue_depth", "Store jobs queued or running.",
                     [store_ptr] { return static_cast<double>(store_ptr->queue_depth()); }});
  add_store_failure_and_pool_metrics(metrics, *store_ptr);
  metrics.add_gauge(
      {"licensed_response_signatures_total", "Signatures made over answers (one per batch).",
       [&batch_signer] { return static_cast<double>(batch_signer.stats().signatures); },
       "counter"});
  metrics.add_gauge(
      {"licensed_response_signed_answers_total", "Answers signed, alone or in a batch.",
       [&batch_signer] { return static_cast<double>(batch_signer.stats().answers); }, "counter"});
  metrics.add_gauge(
      {"licensed_response_largest_batch", "The most answers one signature covered.",
       [&batch_signer] { return static_cast<double>(batch_signer.stats().largest_batch); }});
  // Started after the signals are blocked, so its thread never takes SIGTERM.
  std::unique_ptr<SentryReporter> reporter;
  if (config.sentry_dsn) {
    SentryReporterOptions options;
    options.dsn = *config.sentry_dsn;
    options.client.version = LICENSED_VERSION;
    options.client.server_name = host_name();
    reporter = std::make_unique<SentryReporter>(std::move(options));
  }

  LicenseHandlerConfig handler_config;
  handler_config.pipeline.keys = &keys;
  handler_config.pipeline.nonces = state.nonces.get();
  handler_config.pipeline.ip_limiter = state.ip_limiter.get();
  handler_config.pipeline.key_limiter = state.key_limiter.get();
  handler_config.pipeline.clock = &clock;
  handler_config.pipeline.timestamp_window_seconds = config.timestamp_window;
  handler_config.pipeline.offline_limits = {config.offline_request_max_age,
                                            config.offline_request_max_skew};
  handler_config.pipeline.same_second_nonces = state.same_second_nonces.get();
  // The restart rule covers what an in-memory nonce store forgets at a restart. Redis
  // keeps nonces across restarts of this process, and the Redis store applies the same
  // rule to Redis losing its data, so a fresh instance of a deployment (a rolling
  // restart) need not refuse requests signed just before it started.
  handler_config.pipeline.started_at_seconds = state.redis ? 0 : first_second_served;
  handler_config.store = store.value().get();
  handler_config.dashboard_url = config.dashboard_url;
  handler_config.metrics = &metrics;
  handler_config.error_reporter = reporter.get();
  handler_config.response_signer = &response_signer;
  handler_config.batch_signer = &batch_signer;
  handler_config.trial_identity = trial_key.ok() ? trial_key.value().get() : nullptr;
  handler_config.trial_ip_limiter = state.trial_ip_limiter.get();
  handler_config.trial_product_limiter = state.trial_product_limiter.get();
  handler_config.sign_in_links = state.dashboard_sessions.get();
  const LicenseHandler handler(std::move(handler_config));
  // Admin tokens are 256-bit, so guessing is hopeless; this bounds the work a client
  // can cause with wrong tokens (docs/protocol.md §18), apart from the License API's buckets.
  MemoryRateLimiter failed_admin_auth(RateSpec{kFailedAdminAuthPerMinute, 60'000});
  // Store deliveries' look-ups wait on a provider's API, and a webhook URL given to the
  // admin API is resolved: on workers of their own, never a network or store thread.
  RedisWorkers store_api_workers(kStoreApiWorkers);
  const AdminApiHandler admin_api(
      {store_ptr, &clock, &failed_admin_auth, reporter.get(), config.public_url.value_or(""),
       outgoing_policy(config), &store_api_workers,
       OfflineSubmission{&keys,
                         {config.offline_request_max_age, config.offline_request_max_skew},
                         &response_signer},
       trial_key.ok() ? trial_key.value().get() : nullptr});
  MemoryRateLimiter dashboard_sign_ins(RateSpec{kDashboardSignInsPerMinute, 60'000});
  DashboardConfig dashboard_config;
  dashboard_config.store = store_ptr;
  dashboard_config.clock = &clock;
  dashboard_config.sessions = state.dashboard_sessions.get();
  dashboard_config.sign_in_limiter = &dashboard_sign_ins;
  dashboard_config.error_reporter = reporter.get();
  dashboard_config.session_read_limiter = state.dashboard_session_reads.get();
  dashboard_config.ip_read_limiter = state.dashboard_ip_reads.get();
  dashboard_config.public_url_is_https =
      config.dashboard_url && config.dashboard_url->starts_with("https://");
  // Offline files from the dashboard: the License API's keys, limits and response key.
  dashboard_config.keys = &keys;
  dashboard_config.offline_limits = {config.offline_request_max_age,
                                     config.offline_request_max_skew};
  dashboard_config.response_signer = &response_signer;
  dashboard_config.dashboard_url = config.dashboard_url;
  dashboard_config.brand = std::move(checked->brand);
  const DashboardHandler dashboard(dashboard_config);
  OutgoingStoreApiCaller store_api_caller(outgoing_policy(config));
  StoreInboundConfig inbound_config;
  inbound_config.store = store_ptr;
  inbound_config.clock = &clock;
  inbound_config.ip_limiter = state.ip_limiter.get();
  inbound_config.metrics = &metrics;
  inbound_config.api_caller = &store_api_caller;
  inbound_config.workers = &store_api_workers;
  inbound_config.error_reporter = reporter.get();
  const StoreInboundHandler inbound(inbound_config);
  const ClaimHandler claim({store_ptr, &clock, state.ip_limiter.get(), &metrics, reporter.get()});
  const ApiService api(handler, admin_api, dashboard, inbound, claim);

  HttpServerConfig http_config;
  http_config.host = config.listen_host;
  http_config.port = config.listen_port;
  http_config.threads = config.threads;
  http_config.trusted_proxies = proxies;
  http_config.max_connections = max_connections;
  http_config.max_connections_per_address = config.max_connections_per_ip;
  http_config.header_timeout = std::chrono::seconds(config.header_timeout);
  http_config.idle_timeout = std::chrono::seconds(config.idle_timeout);
  http_config.access_log = config.access_log;
  HttpServer server(http_config, api, &metrics);
  metrics.add_gauge({"licensed_store_queue_limit", "Store jobs queued or running at most.",
                     [limit = config.max_queue] { return static_cast<double>(limit); }});
  metrics.add_gauge({"licensed_connections_open", "Open client connections.",
                     [&server] { return static_cast<double>(server.open_connections()); }});
  metrics.add_gauge({"licensed_connections_limit", "Open client connections at most.",
                     [max_connections] { return static_cast<double>(max_connections); }});

  const AdminService admin_service({&metrics, store_ptr, [&server] { return !server.draining(); }});
  std::unique_ptr<HttpServer> admin_server;
  std::string admin_address = "off";
  if (config.admin_listen) {
    HttpServerConfig admin_config;
    admin_config.host = config.admin_listen->first;
    admin_config.port = config.admin_listen->second;
    admin_config.threads = 1;
    admin_config.max_connections = 64;
    admin_server = std::make_unique<HttpServer>(admin_config, admin_service, nullptr);
    auto admin_bound = admin_server->start();
    if (!admin_bound.ok()) {
      std::cerr << "licensed: admin listener: " << admin_bound.error().message << "\n";
      return exit_code_of(admin_bound.error().code, CliStage::kRunning);
    }
    admin_address = endpoint_text(admin_bound.value());
  }
  if (!state.redis) wait_until_second(clock, first_second_served);
  auto bound = server.start();
  if (!bound.ok()) {
    std::cerr << "licensed: " << bound.error().message << "\n";
    return exit_code_of(bound.error().code, CliStage::kRunning);
  }
  // The API address comes first: scripts and tests take the first HOST:PORT of this line.
  spdlog::info(
      "licensed ready: listening on {} (store {}, {} signing key(s), health and metrics on "
      "{}, nonces and rate limits {})",
      endpoint_text(bound.value()), redact_url_credentials(config.store), keys.size(),
      admin_address, state.redis ? "in redis " + state.redis->describe() : "in memory");
  if (config.sentry_dsn) {
    // describe() leaves the DSN's key out.
    spdlog::info("internal errors are reported to sentry at {}", config.sentry_dsn->describe());
  }
  // Only now: the lines up to the ready line, which scripts wait for, are written at any
  // --log-level.
  use_log_level(config.log_level);

  int sig = 0;
  while (sigwait(&signals, &sig) == 0 && sig == SIGHUP) reload(reread, keys, state, proxies);
  spdlog::info("received {}, draining in-flight requests", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  server.stop(std::chrono::seconds(10));
  // A Redis call still running answers a request whose thread has stopped: it must end
  // before the server, whose io_contexts its answer is handed to.
  if (state.redis) state.redis->stop_workers();
  store_api_workers.stop();
  if (admin_server) admin_server->stop(std::chrono::milliseconds(500));
  if (state.same_second_nonces) {
    keep_same_second_nonces(*store.value(), *state.same_second_nonces, clock);
  }
  lease_sweep.reset();
  webhook_sweep.reset();
  webhook_dispatcher.reset();
  payment_grace_sweep.reset();
  nonce_purge.reset();
  store.value().reset();
  // After the store threads: the last answers they made are signed, and handed to the
  // sessions while the server's contexts still exist.
  batch_signer.stop();
  if (reporter) {
    // Last: requests drained above may still have reported.
    reporter->shutdown(kErrorReportFlush);
    spdlog::info("error reports: {} sent to sentry, {} dropped", reporter->sent(),
                 reporter->dropped());
  }
  spdlog::info("stopped");
  return 0;
}

// `serve --check-config`: the checks serve makes before it starts anything, then a line
// that says what would be served; exit 0, or the exit status serve would have.
int check_config_only(const ServeConfig& config) {
  auto checked = check_startup(config);
  if (!checked.ok()) {
    std::cerr << "licensed: " << checked.error().message << "\n";
    return exit_code_of(checked.error().code, CliStage::kConfiguration);
  }
  std::cout << "configuration OK: would listen on " << config.listen_host << ":"
            << config.listen_port << ", store " << redact_url_credentials(config.store) << ", "
            << config.signing_keys.size() << " signing key(s)\n";
  return kExitOk;
}

// The log's format, level and file, before the first line of serve.
Status use_logging(const ServeConfig& config) {
  use_log_format(config.log_format);
  if (config.log_file.empty()) return Ok{};
  return log_to_file(config.log_file);
}

}  // namespace

int main(int argc, char** argv) {
  // Before any command creates a file: the store, its -wal and -shm files, exports.
  make_created_files_private();
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  CLI::App app{"licensed: license activation server for software plugins"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("licensed ") + LICENSED_VERSION);
  ServeFlags flags;
  auto* serve_cmd = app.add_subcommand("serve", "run the License API server");
  add_serve_flags(*serve_cmd, flags);
  bool check_config = false;
  serve_cmd->add_flag("--check-config", check_config,
                      "check the configuration (flags, environment, file and the files they name) "
                      "and exit: 0 when serve would start with it; the store and Redis are not "
                      "contacted");
  bool create_store = false;
  serve_cmd->add_flag("--create", create_store,
                      "create the store when it does not exist (else it is refused; see init)");
  auto run_init = add_init_command(app);
  auto* admin_cmd = app.add_subcommand("admin", "manage products, licenses and audit records");
  auto run_admin = add_admin_commands(*admin_cmd);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (admin_cmd->parsed()) {
    // Standard output is the command's answer (`--json | jq`); log lines go beside it.
    log_to_stderr();
    return run_admin();
  }
  if (app.got_subcommand("init")) {
    log_to_stderr();
    return run_init();
  }
  const ServeReread reread = [&flags] {
    return resolve_serve_config(flags, process_environment());
  };
  Result<ServeConfig> config = reread();
  if (auto env = check_environment_names(process_environment_names()); !env.ok()) {
    config = env.error();
  }
  if (config.ok()) {
    if (auto logging = use_logging(config.value()); !logging.ok()) config = logging.error();
  }
  if (!config.ok()) {
    std::cerr << "licensed: " << config.error().message << "\n";
    return exit_code_of(config.error().code, CliStage::kConfiguration);
  }
  if (check_config) return check_config_only(config.value());
  return serve(config.value(), reread, create_store);
}
