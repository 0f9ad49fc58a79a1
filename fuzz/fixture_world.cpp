#include "fixture_world.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "admin/admin_operations.h"
#include "ratelimit/rate_spec.h"

namespace licensed::fuzz {
namespace {

constexpr UnixMillis kNowMs = kNowSeconds * 1000;
constexpr UnixMillis kMinuteMs = 60 * 1000;
constexpr UnixMillis kDayMs = 24 * 60 * kMinuteMs;

// The in-memory store keeps every audit record: reopening it now and then bounds its
// memory over a long run without changing what any input sees.
constexpr uint64_t kInputsPerStore = 20'000;

struct FixtureActivation {
  std::string_view machine_id;
  std::optional<std::string_view> name;
  UnixMillis last_seen_at;
};

struct FixtureLicense {
  std::string_view product = "reverb";
  LicenseStatus status = LicenseStatus::kActive;
  int64_t max = 3;
  std::optional<UnixMillis> expires_at;
  std::optional<int64_t> machine_ttl_seconds;
  bool deleted = false;
  std::vector<FixtureActivation> activations;
};

// Index i describes kLicenseKeys[i] (see fixture_world.h); the last key is not stored.
const std::vector<FixtureLicense>& fixture_licenses() {
  const UnixMillis recently = kNowMs - kMinuteMs;
  static const auto* licenses = new std::vector<FixtureLicense>{
      {.max = 2, .activations = {{"machine-0001", "Studio PC", recently}}},
      {.max = 0},
      {.status = LicenseStatus::kSuspended,
       .activations = {{"machine-0002", std::nullopt, recently}}},
      {.expires_at = kNowMs - kDayMs, .activations = {{"machine-0003", "Laptop", recently}}},
      {.deleted = true, .activations = {{"machine-0004", "Old PC", recently}}},
      {.max = 1,
       .machine_ttl_seconds = 60,
       .activations = {{"stale-machine-1", "CI runner", kNowMs - 60 * kMinuteMs}}},
      {.product = "other", .max = 2, .activations = {{"machine-0006", "Render node", recently}}},
  };
  return *licenses;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "fuzz fixture: %s\n", what.c_str());
  std::abort();
}

Status insert_activations(StoreTx& tx, std::string_view key, const FixtureLicense& f) {
  ASSIGN_OR_RETURN(auto locked, tx.lock_license(key));
  if (!locked) return Error::internal("a fixture license is missing");
  for (const auto& a : f.activations) {
    Activation act;
    act.machine_id = std::string(a.machine_id);
    if (a.name) act.machine_name = std::string(*a.name);
    act.activated_at = kNowMs - kDayMs;
    act.last_seen_at = a.last_seen_at;
    RETURN_IF_ERROR(tx.insert_activation(*locked, act));
  }
  return Ok{};
}

Status create_fixture(StoreTx& tx) {
  const AdminContext admin{kNowMs - 2 * kDayMs, std::string("fuzz")};
  RETURN_IF_ERROR(create_product(tx, "reverb", "Reverb Pro", admin));
  RETURN_IF_ERROR(create_product(tx, "other", "Other Plugin", admin));
  const auto& licenses = fixture_licenses();
  for (size_t i = 0; i < licenses.size(); ++i) {
    const FixtureLicense& f = licenses[i];
    // Fixed keys rather than random ones: seed requests name them.
    LicenseSpec spec;
    spec.product_slug = f.product;
    spec.max = f.max;
    spec.expires_at = f.expires_at;
    spec.machine_ttl_seconds = f.machine_ttl_seconds;
    spec.status = f.status;
    spec.key = std::string(kLicenseKeys[i]);
    ASSIGN_OR_RETURN(License l, create_license(tx, spec, admin));
    if (f.deleted) RETURN_IF_ERROR(delete_license(tx, l.key, admin));
    RETURN_IF_ERROR(insert_activations(tx, l.key, f));
  }
  return Ok{};
}

// The License API changes only activations and remembered nonces; both go back.
Status restore(StoreTx& tx) {
  RETURN_IF_ERROR(tx.purge_nonces(std::numeric_limits<UnixMillis>::max()));
  const auto& licenses = fixture_licenses();
  for (size_t i = 0; i < licenses.size(); ++i) {
    ASSIGN_OR_RETURN(auto l, tx.lock_license(kLicenseKeys[i]));
    if (!l) return Error::internal("a fixture license is missing");
    ASSIGN_OR_RETURN(const auto activations, tx.list_activations((*l)->id));
    for (const auto& a : activations) {
      // As an admin's free would (leases, if any, go with the machine).
      ASSIGN_OR_RETURN(const bool deleted,
                       tx.delete_activation(*l, a.machine_id, 0, Actor::kAdmin));
      if (!deleted) return Error::internal("a fixture activation is missing");
    }
    RETURN_IF_ERROR(insert_activations(tx, (*l)->key, licenses[i]));
  }
  return Ok{};
}

RateSpec spec_of(std::string_view text) {
  auto parsed = parse_rate_spec(text);
  if (!parsed.ok() || !parsed.value()) die("bad rate spec " + std::string(text));
  return *parsed.value();
}

}  // namespace

FixtureWorld::FixtureWorld()
    : keys_({{std::string(kKeyId), std::string(kSecret), {}},
             {std::string(kBoundKeyId), std::string(kBoundSecret), {"other"}}}) {
  // Migrations and store errors would log on every input; only errors matter here.
  spdlog::set_level(spdlog::level::err);
  open_store_with_fixture();
}

void FixtureWorld::open_store_with_fixture() {
  store_.reset();  // joins the old store's threads before the new one opens
  auto store = open_store("sqlite::memory:");
  if (!store.ok()) die("cannot open the store: " + store.error().message);
  store_ = std::make_unique<WriteCountingStore>(std::move(store.value()));
  auto created = run_blocking(store_->inner(), TxKind::kWrite, create_fixture);
  if (!created.ok()) die("cannot create the fixture: " + created.error().message);
  writes_restored_ = store_->writes();
  inputs_since_open_ = 0;
}

void FixtureWorld::restore_fixture() {
  if (++inputs_since_open_ > kInputsPerStore) return open_store_with_fixture();
  if (store_->writes() == writes_restored_) return;  // nothing could have changed
  auto restored = run_blocking(store_->inner(), TxKind::kWrite, restore);
  if (!restored.ok()) die("cannot restore the fixture: " + restored.error().message);
  writes_restored_ = store_->writes();
}

std::unique_ptr<InputServer> FixtureWorld::begin_input(bool tight_limits) {
  restore_fixture();
  auto server = std::make_unique<InputServer>();
  server->ip_limiter =
      std::make_unique<MemoryRateLimiter>(spec_of(tight_limits ? "4/1h" : "1000000/1s"), 1);
  server->key_limiter =
      std::make_unique<MemoryRateLimiter>(spec_of(tight_limits ? "2/1h" : "1000000/1s"), 1);

  LicenseHandlerConfig config;
  config.pipeline.keys = &keys_;
  config.pipeline.nonces = &server->nonces;
  config.pipeline.ip_limiter = server->ip_limiter.get();
  config.pipeline.key_limiter = server->key_limiter.get();
  config.pipeline.clock = &clock_;
  config.pipeline.timestamp_window_seconds = kWindowSeconds;
  config.pipeline.started_at_seconds = kStartedAtSeconds;
  config.store = store_.get();
  config.dashboard_url = "https://example.com/account/activations";
  server->handler = std::make_unique<LicenseHandler>(std::move(config));
  return server;
}

}  // namespace licensed::fuzz
