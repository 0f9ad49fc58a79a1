// Offline activation and deactivation (docs/protocol.md §21.2 to §21.6) on a real SQLite
// store: slots until the file's end, same nonce same file, renewals, the latest file alone
// deactivates, offlineRelease, and the deactivation quota.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <cstdio>
#include <functional>

#include "admin/admin_operations.h"
#include "core/operations.h"
#include "core/timestamp.h"
#include "store/sqlite/memory_test_store.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;
constexpr int64_t kDay = 86'400'000;

std::string counter_id() {
  static int n = 0;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%032x", ++n);
  return buf;
}

class OfflineOperationsTest : public ::testing::Test {
 protected:
  template <class Fn>
  auto write(Fn&& fn) {
    return run_blocking(*store_, TxKind::kWrite, std::forward<Fn>(fn));
  }

  void SetUp() override {
    store_ = open_memory_test_store();
    ASSERT_TRUE(store_);
    ASSERT_TRUE(write([&](StoreTx& tx) {
                  return create_product(tx, "reverb", "Reverb Pro", AdminContext{kStart});
                }).ok());
  }

  // A license of `max` slots, changed by `edit` (the offline members) before use.
  std::string new_license(int64_t max, const std::function<void(License&)>& edit = {},
                          std::optional<int64_t> ttl = std::nullopt) {
    LicenseSpec spec{"reverb", max, std::nullopt, ttl, LicenseStatus::kActive, "", {}, {}, {}};
    auto l = write([&](StoreTx& tx) { return create_license(tx, spec, AdminContext{kStart}); });
    EXPECT_TRUE(l.ok());
    if (edit) {
      License changed = l.value();
      edit(changed);
      EXPECT_TRUE(write([&](StoreTx& tx) { return tx.update_license(changed); }).ok());
    }
    return l->key;
  }

  OperationContext context(Actor actor = Actor::kClient) const {
    OperationContext ctx;
    ctx.now = clock_.now_ms();
    ctx.ip = "127.0.0.1";
    ctx.key_id = "k";
    ctx.request_id = "req_test";
    ctx.dashboard_url = &dashboard_;
    ctx.actor = actor;
    ctx.new_activation_id = &counter_id;
    return ctx;
  }

  LicenseRequest request(const std::string& key, const std::string& machine,
                         const std::string& nonce, int64_t timestamp_ms,
                         std::optional<std::string> activation_id = std::nullopt) {
    LicenseRequest req;
    req.license_key = key;
    req.machine_id = machine;
    req.offline = OfflineOrigin{"k", timestamp_ms / 1000, nonce, std::move(activation_id)};
    return req;
  }

  RequestResult<boost::json::object> activate_offline(const std::string& key,
                                                      const std::string& machine,
                                                      const std::string& nonce) {
    const auto req = request(key, machine, nonce, clock_.now_ms());
    return write([&](StoreTx& tx) { return offline_activate(tx, req, context()); });
  }

  RequestResult<boost::json::object> deactivate_offline(const std::string& key,
                                                        const std::string& machine,
                                                        const std::string& activation_id) {
    const auto req =
        request(key, machine, "deact-" + activation_id, clock_.now_ms(), activation_id);
    return write([&](StoreTx& tx) { return offline_deactivate(tx, req, context()); });
  }

  RequestResult<boost::json::object> online(Endpoint e, const std::string& key,
                                            const std::string& machine) {
    LicenseRequest req;
    req.license_key = key;
    req.machine_id = machine;
    return write([&](StoreTx& tx) { return run_operation(e, tx, req, context()); });
  }

  static boost::json::object payload(const RequestResult<boost::json::object>& r) {
    return boost::json::parse(r->at("activationFile").as_string()).as_object();
  }
  static std::string file_id(const RequestResult<boost::json::object>& r) {
    return std::string(payload(r).at("id").as_string());
  }
  static int code(const RequestResult<boost::json::object>& r) {
    if (r.ok()) return 200;
    const ApiError* a = r.error().answer();
    EXPECT_NE(a, nullptr) << r.error().message();
    return a != nullptr ? static_cast<int>(a->code.value_or(ErrorCode::kInternal)) : 0;
  }

  ManualClock clock_{kStart};
  std::optional<std::string> dashboard_ = std::string("https://example.com/activations");
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(OfflineOperationsTest, TheFileEndsAtTheLeaseOrTheLicenseExpiryWhicheverComesFirst) {
  const std::string key = new_license(2);
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  ASSERT_TRUE(first.ok()) << first.error().message();
  const auto p = payload(first);
  EXPECT_EQ(p.at("expiresAt").as_string(), format_timestamp(kStart + 90 * kDay));
  EXPECT_EQ(p.at("issuedAt").as_string(), format_timestamp(kStart));
  EXPECT_EQ(p.at("licenseKey").as_string(), key);
  EXPECT_EQ(p.at("machine").as_object().at("id").as_string(), "studio-mac-01");
  EXPECT_EQ(p.at("requestNonce").as_string(), "nonce-a");
  EXPECT_EQ(first->at("machine").as_object().at("offline").as_bool(), true);

  const std::string soon = new_license(1, [](License& l) { l.expires_at = kStart + 10 * kDay; });
  auto capped = activate_offline(soon, "studio-mac-01", "nonce-b");
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(payload(capped).at("expiresAt").as_string(), format_timestamp(kStart + 10 * kDay));
}

TEST_F(OfflineOperationsTest, AnOfflineSlotCountsUntilItsEndWhateverMachineTtlThenIsReclaimed) {
  const std::string key = new_license(1, {}, /*ttl=*/3600);
  ASSERT_TRUE(activate_offline(key, "studio-mac-01", "nonce-a").ok());
  clock_.advance_ms(30 * kDay);  // far past machineTtl
  EXPECT_EQ(code(online(Endpoint::kActivate, key, "other-machine")), 1705);
  clock_.advance_ms(61 * kDay);  // past the file's end
  EXPECT_EQ(code(online(Endpoint::kActivate, key, "other-machine")), 200);
}

TEST_F(OfflineOperationsTest, TheSameNonceAnswersTheSameFileAndANewNonceRenews) {
  const std::string key = new_license(1);
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  clock_.advance_ms(kDay);
  auto again = activate_offline(key, "studio-mac-01", "nonce-a");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(file_id(again), file_id(first));
  EXPECT_EQ(payload(again).at("expiresAt"), payload(first).at("expiresAt"));
  auto renewed = activate_offline(key, "studio-mac-01", "nonce-b");
  ASSERT_TRUE(renewed.ok());
  EXPECT_NE(file_id(renewed), file_id(first));
  EXPECT_EQ(payload(renewed).at("expiresAt").as_string(),
            format_timestamp(kStart + kDay + 90 * kDay));
  EXPECT_EQ(renewed->at("activations").as_int64(), 1) << "a renewal takes no new slot";
  EXPECT_EQ(code(deactivate_offline(key, "studio-mac-01", file_id(first))), 1707)
      << "an older file no longer deactivates";
}

TEST_F(OfflineOperationsTest, OnlineCallsServeAnOfflineActivationButDeactivateAnswers1707) {
  const std::string key = new_license(1);
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  EXPECT_EQ(code(online(Endpoint::kHeartbeat, key, "studio-mac-01")), 200);
  auto refreshed = online(Endpoint::kActivate, key, "studio-mac-01");
  ASSERT_TRUE(refreshed.ok());
  EXPECT_EQ(refreshed->at("machine").as_object().at("offlineUntil"),
            payload(first).at("expiresAt"));
  EXPECT_EQ(code(online(Endpoint::kDeactivate, key, "studio-mac-01")), 1707);
}

TEST_F(OfflineOperationsTest, UnderExpiryADeactivationKeepsTheSlotUntilTheFilesEnd) {
  const std::string key = new_license(1);
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  auto done = deactivate_offline(key, "studio-mac-01", file_id(first));
  ASSERT_TRUE(done.ok()) << done.error().message();
  EXPECT_EQ(done->at("activations").as_int64(), 1);
  EXPECT_EQ(code(online(Endpoint::kHeartbeat, key, "studio-mac-01")), 1707);
  EXPECT_EQ(code(online(Endpoint::kActivate, key, "other-machine")), 1705);
  EXPECT_EQ(code(deactivate_offline(key, "studio-mac-01", file_id(first))), 1707)
      << "submitted again";
}

TEST_F(OfflineOperationsTest, UnderDeactivationTheSlotIsFreedAtOnce) {
  const std::string key =
      new_license(1, [](License& l) { l.offline_release = OfflineRelease::kDeactivation; });
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  auto done = deactivate_offline(key, "studio-mac-01", file_id(first));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->at("activations").as_int64(), 0);
  EXPECT_EQ(code(online(Endpoint::kActivate, key, "other-machine")), 200);
}

TEST_F(OfflineOperationsTest, ARequestOlderThanTheMachinesLatestDeactivationIsTooOld) {
  const std::string key =
      new_license(1, [](License& l) { l.offline_release = OfflineRelease::kDeactivation; });
  const UnixMillis written = clock_.now_ms();
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  clock_.advance_ms(60'000);
  ASSERT_TRUE(deactivate_offline(key, "studio-mac-01", file_id(first)).ok());
  const auto stale = request(key, "studio-mac-01", "nonce-a", written);
  auto replayed = write([&](StoreTx& tx) { return offline_activate(tx, stale, context()); });
  ASSERT_EQ(code(replayed), 1702);
  EXPECT_EQ(replayed.error().answer()->extra.at("reason").as_string(), "too_old");
  EXPECT_EQ(code(activate_offline(key, "studio-mac-01", "nonce-new")), 200);
}

TEST_F(OfflineOperationsTest, TheQuotaRefusesBeyondMaxDeactivationsUntilTheOldestLeaves) {
  const std::string key = new_license(5, [](License& l) { l.max_deactivations = 2; });
  for (const char* m : {"machine-01", "machine-02", "machine-03"}) {
    ASSERT_EQ(code(online(Endpoint::kActivate, key, m)), 200);
  }
  EXPECT_EQ(code(online(Endpoint::kDeactivate, key, "machine-01")), 200);
  clock_.advance_ms(kDay);
  EXPECT_EQ(code(online(Endpoint::kDeactivate, key, "machine-02")), 200);
  auto refused = online(Endpoint::kDeactivate, key, "machine-03");
  ASSERT_EQ(code(refused), 1711);
  const ApiError& e = *refused.error().answer();
  EXPECT_EQ(e.http_status, 409);
  EXPECT_EQ(e.extra.at("deactivations").as_int64(), 2);
  EXPECT_EQ(e.extra.at("maxDeactivations").as_int64(), 2);
  EXPECT_EQ(e.retry_after_seconds, 29 * 86'400);
  EXPECT_EQ(code(online(Endpoint::kDeactivate, key, "unknown-machine")), 1707) << "1707 first";
  // An admin free is never counted nor refused.
  ASSERT_TRUE(write([&](StoreTx& tx) {
                return remove_activation(tx, key, "machine-03", AdminContext{clock_.now_ms()});
              }).ok());
  ASSERT_EQ(code(online(Endpoint::kActivate, key, "machine-04")), 200);
  clock_.advance_ms(29 * kDay);
  EXPECT_EQ(code(online(Endpoint::kDeactivate, key, "machine-04")), 200) << "the oldest left";
}

TEST_F(OfflineOperationsTest, ACustomerCannotFreeAnOfflineMachineButAnAdminCan) {
  const std::string key = new_license(1);
  ASSERT_TRUE(activate_offline(key, "studio-mac-01", "nonce-a").ok());
  AdminContext customer{clock_.now_ms(), std::nullopt, Actor::kCustomer};
  auto refused =
      write([&](StoreTx& tx) { return remove_activation(tx, key, "studio-mac-01", customer); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StatusCode::kConflict);
  EXPECT_TRUE(write([&](StoreTx& tx) {
                return remove_activation(tx, key, "studio-mac-01", AdminContext{clock_.now_ms()});
              }).ok());
}

TEST_F(OfflineOperationsTest, AuditRecordsOfFilesSayOffline) {
  const std::string key = new_license(1);
  auto first = activate_offline(key, "studio-mac-01", "nonce-a");
  ASSERT_TRUE(deactivate_offline(key, "studio-mac-01", file_id(first)).ok());
  auto audit = write([&](StoreTx& tx) { return license_audit(tx, key); });
  ASSERT_TRUE(audit.ok());
  int offline = 0;
  for (const auto& v : audit.value()) {
    const auto& o = v.as_object();
    if (o.contains("offline")) {
      ++offline;
      EXPECT_TRUE(o.at("action") == "license.activate" || o.at("action") == "license.deactivate");
    }
  }
  EXPECT_EQ(offline, 2);
}

}  // namespace
}  // namespace licensed
