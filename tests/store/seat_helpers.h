// What the seat tests on every Store share (leases_conformance_test.cpp,
// lease_sweep_conformance_test.cpp, lease_release_conformance_test.cpp): a license of seats
// with activated machines, checkout and checkin run as the License API runs them, at a given
// time, the minute sweep, and the lease.released events the store holds.
#pragma once

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/operations.h"
#include "http/license_api_error.h"
#include "store/lease_sweep.h"
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
                    boost::json::object* answer = nullptr, std::optional<std::string> borrow = {},
                    std::optional<std::string> session = {}) {
  licensed::LicenseRequest req;
  req.license_key = kKey;
  req.machine_id = machine;
  req.session_id = std::move(session);
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

// Adds an endpoint taking lease.released, so the store keeps those events.
inline void AddReleasedEndpoint(licensed::Store& store) {
  licensed::WebhookEndpoint w;
  w.url = "https://hooks.example.com/in";
  w.events = {"lease.released"};
  w.created_at = kT0;
  w.secrets = {{"whsec_one", kT0, std::nullopt}};
  auto made = licensed::run_blocking(store, licensed::TxKind::kWrite, [&](licensed::StoreTx& tx) {
    return tx.insert_webhook_endpoint(w);
  });
  ASSERT_TRUE(made.ok()) << made.error().message;
}

// The `data` of every lease.released the store holds, oldest first.
inline std::vector<boost::json::object> Released(licensed::Store& store) {
  auto bodies = licensed::run_blocking(
      store, licensed::TxKind::kRead,
      [](licensed::StoreTx& tx) -> licensed::Result<std::vector<std::string>> {
        std::vector<std::string> out;
        ASSIGN_OR_RETURN(const auto endpoints, tx.list_webhook_endpoints(kT0));
        if (endpoints.empty()) return out;
        ASSIGN_OR_RETURN(const auto deliveries,
                         tx.list_webhook_deliveries(endpoints.front().id, 0, 1000));
        for (auto d = deliveries.rbegin(); d != deliveries.rend(); ++d) {
          ASSIGN_OR_RETURN(const auto event, tx.find_webhook_event(d->event_id));
          if (event) out.push_back(event->body);
        }
        return out;
      });
  EXPECT_TRUE(bodies.ok()) << bodies.error().message;
  std::vector<boost::json::object> out;
  if (!bodies.ok()) return out;
  for (const auto& body : bodies.value()) {
    const auto parsed = boost::json::parse(body).as_object();
    EXPECT_EQ(parsed.at("type").as_string(), "lease.released");
    out.push_back(parsed.at("data").as_object());
  }
  return out;
}

inline std::string MachineOf(const boost::json::object& data) {
  return std::string(data.at("machine").at("id").as_string());
}
inline std::string ReasonOf(const boost::json::object& data) {
  return std::string(data.at("reason").as_string());
}
inline std::string ActorOf(const boost::json::object& data) {
  return std::string(data.at("actor").as_string());
}
inline std::string SessionOf(const boost::json::object& data) {
  return std::string(data.at("lease").at("sessionId").as_string());
}

// The minute sweep's round at `now`: how many ended leases it released.
inline int64_t Sweep(licensed::Store& store, licensed::UnixMillis now) {
  auto swept = licensed::sweep_ended_leases(store, now);
  EXPECT_TRUE(swept.ok()) << swept.error().message;
  return swept.ok() ? swept.value() : -1;
}

}  // namespace bb
