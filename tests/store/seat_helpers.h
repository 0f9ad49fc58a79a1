// What the seat tests on every Store share (leases_conformance_test.cpp,
// lease_sweep_conformance_test.cpp): a license of seats with activated machines, and checkout
// and checkin run as the License API runs them, at a given time.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/operations.h"
#include "http/license_api_error.h"
#include "store/store.h"

namespace bb {

inline constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;
inline constexpr const char* kKey = "0b9f6ad2-3c1e-4b8a-9d2f-5e6a7b8c9d01";

inline licensed::License MakeSeatLicense(licensed::Store& store, int64_t max,
                                         int64_t max_concurrent, int64_t machines) {
  auto made = licensed::run_blocking(
      store, licensed::TxKind::kWrite,
      [&](licensed::StoreTx& tx) -> licensed::Result<licensed::License> {
        auto p = tx.insert_product("reverb", "Reverb Pro", kT0);
        if (!p.ok()) return p.error();
        licensed::NewLicense n;
        n.key = kKey;
        n.product_id = p->id;
        n.max = max;
        n.max_concurrent = max_concurrent;
        n.lease_ttl_seconds = 600;
        n.max_borrow_seconds = 7 * 86400;
        n.created_at = kT0;
        auto l = tx.insert_license(n);
        if (!l.ok()) return l.error();
        auto locked = tx.lock_license(kKey);
        if (!locked.ok()) return locked.error();
        for (int64_t i = 0; i < machines; ++i) {
          const licensed::Activation a("machine-" + std::to_string(i), std::nullopt, kT0, kT0);
          if (auto s = tx.insert_activation(*locked.value(), a); !s.ok()) return s.error();
        }
        return std::move(l.value());
      });
  EXPECT_TRUE(made.ok()) << made.error().message;
  return made.ok() ? made.value() : licensed::License{};
}

// The code the client would see (0 for 200) of a checkout of `machine` at `now`.
inline int Checkout(licensed::Store& store, const std::string& machine, licensed::UnixMillis now,
                    boost::json::object* answer = nullptr, std::optional<std::string> borrow = {}) {
  licensed::LicenseRequest req;
  req.license_key = kKey;
  req.machine_id = machine;
  req.borrow_for = std::move(borrow);
  auto outcome =
      licensed::run_blocking(store, licensed::TxKind::kWrite, [&](licensed::StoreTx& tx) {
        licensed::OperationContext ctx;
        ctx.now = now;
        ctx.new_activation_id = [] { return std::string(32, 'a'); };
        return licensed::checkout(tx, req, ctx);
      });
  if (outcome.ok()) {
    if (answer) *answer = outcome.value();
    return 0;
  }
  const licensed::ApiError e = outcome.error().answer_or(licensed::to_api_error);
  if (answer) *answer = e.extra;
  return e.code ? static_cast<int>(*e.code) : -1;
}

inline bool Checkin(licensed::Store& store, const std::string& machine, licensed::UnixMillis now) {
  licensed::LicenseRequest req;
  req.license_key = kKey;
  req.machine_id = machine;
  auto outcome =
      licensed::run_blocking(store, licensed::TxKind::kWrite, [&](licensed::StoreTx& tx) {
        licensed::OperationContext ctx;
        ctx.now = now;
        return licensed::checkin(tx, req, ctx);
      });
  EXPECT_TRUE(outcome.ok());
  return outcome.ok() && outcome.value().at("released").as_bool();
}

}  // namespace bb
