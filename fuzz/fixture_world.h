// The License API assembled as src/main.cpp assembles it, on an in-memory SQLite store
// holding a fixed set of licenses, with a manual clock that never moves. Every fuzz
// input meets the same state: the store's activations are put back and the nonce store
// and rate limiters are new for each input, so a saved crash reproduces on its own.
//
// fuzz/make_corpus.py signs seed requests with these keys, this clock and these
// licenses: change them together.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "auth/key_ring.h"
#include "auth/memory_nonce_store.h"
#include "core/clock.h"
#include "http/license_handler.h"
#include "ratelimit/memory_rate_limiter.h"
#include "store/store.h"

namespace licensed::fuzz {

inline constexpr int64_t kNowSeconds = 1'795'000'000;  // 2026-11-18T08:26:40Z
// Requests dated before the server's start are stale (docs/protocol.md §3.4, restart rule):
// started 100 s ago, so part of the 300 s window is refused for that reason alone.
inline constexpr int64_t kStartedAtSeconds = kNowSeconds - 100;
inline constexpr int64_t kWindowSeconds = 300;

inline constexpr std::string_view kKeyId = "fuzz-key";
inline constexpr std::string_view kSecret = "fuzz-secret";
// Bound to the product "other": for a license of "reverb" it answers as unknown (1703).
inline constexpr std::string_view kBoundKeyId = "bound-key";
inline constexpr std::string_view kBoundSecret = "bound-secret";

inline constexpr std::string_view kClientIp = "198.51.100.7";

// The fixture's licenses, by index:
//   0 reverb ACTIVE max 2, machine-0001 activated
//   1 reverb ACTIVE max 0 (every new machine is 1705)
//   2 reverb SUSPENDED max 3, machine-0002 activated
//   3 reverb ACTIVE but expired, machine-0003 activated
//   4 reverb deleted (answers as unknown), machine-0004 activated
//   5 reverb ACTIVE max 1, machineTtl 60 s, stale-machine-1 last seen an hour ago
//   6 other ACTIVE max 2, machine-0006 activated
//   7 not in the store
inline constexpr std::array<std::string_view, 8> kLicenseKeys = {
    "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-9222-222222222222",
    "33333333-3333-4333-a333-333333333333", "44444444-4444-4444-b444-444444444444",
    "55555555-5555-4555-8555-555555555555", "66666666-6666-4666-9666-666666666666",
    "77777777-7777-4777-a777-777777777777", "88888888-8888-4888-b888-888888888888"};

// What one input is served by: fresh nonce and rate-limit state over the shared store.
struct InputServer {
  MemoryNonceStore nonces{100'000, 1};
  std::unique_ptr<MemoryRateLimiter> ip_limiter;
  std::unique_ptr<MemoryRateLimiter> key_limiter;
  std::unique_ptr<LicenseHandler> handler;
};

class FixtureWorld {
 public:
  // Opens the store and creates the fixture; aborts if it cannot (a broken build, not a
  // finding).
  FixtureWorld();

  // Puts the fixture back and returns a server for one input. `tight_limits`: ip 4/1h
  // and key 2/1h, so a few pipelined requests reach both 429s; otherwise the limits
  // are never reached.
  std::unique_ptr<InputServer> begin_input(bool tight_limits);

 private:
  void open_store_with_fixture();
  void restore_fixture();

  // Counts the write jobs the service submits, so the fixture is restored only after an
  // input that could have changed it (most inputs never reach the store).
  class WriteCountingStore final : public Store {
   public:
    explicit WriteCountingStore(std::unique_ptr<Store> inner) : inner_(std::move(inner)) {}
    void submit(TxKind kind, StoreJob job) override {
      if (kind == TxKind::kWrite) ++writes_;
      inner_->submit(kind, std::move(job));
    }
    size_t queue_depth() const override { return inner_->queue_depth(); }
    Store& inner() { return *inner_; }
    uint64_t writes() const { return writes_; }

   private:
    std::unique_ptr<Store> inner_;
    uint64_t writes_ = 0;  // only the fuzzing thread submits
  };

  ManualClock clock_{kNowSeconds * 1000};
  KeyRing keys_;
  std::unique_ptr<WriteCountingStore> store_;
  uint64_t writes_restored_ = 0;  // store_->writes() when the fixture was last restored
  uint64_t inputs_since_open_ = 0;
};

}  // namespace licensed::fuzz
