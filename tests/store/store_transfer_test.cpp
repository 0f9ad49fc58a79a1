// export/import moves a deployment SQLite -> PostgreSQL -> SQLite without losing a row:
// the three exports (each every row of every table in key order) are identical.
#include "admin/store_transfer.h"

#include <gtest/gtest.h>

#include "admin/admin_operations.h"
#include "admin/plan_operations.h"
#include "admin/store_fulfilment.h"
#include "admin/store_lifecycle.h"
#include "admin/storefront_operations.h"
#include "auth/trial_key.h"
#include "core/clock.h"
#include "core/operations.h"
#include "store/store_harness.h"

namespace bb {
namespace {

using licensed::Result;
using licensed::StoreTx;
using licensed::TxKind;

constexpr licensed::UnixMillis kT0 = 1'780'000'000'000;

// An activation the population needs, refused: the test's own mistake.
licensed::Error refused(const licensed::RequestError& e) {
  return licensed::Error::internal("activate refused: " + e.message());
}

// A deployment with something in every table and every nullable column both ways.
void Populate(licensed::Store& store) {
  auto done = licensed::run_blocking(store, TxKind::kWrite, [](StoreTx& tx) -> licensed::Status {
    const licensed::AdminContext admin{kT0, std::string("ops")};
    // Webhook endpoints first, so every change below writes its event: one taking every
    // type with a secret retiring after a rotation, one disabled after failing.
    licensed::WebhookEndpoint hook;
    hook.url = "https://hooks.example.com/in";
    hook.description = "CRM";
    hook.created_at = kT0;
    hook.secrets = {{"whsec_old", kT0, kT0 + 86'400'000}, {"whsec_new", kT0 + 1, std::nullopt}};
    auto made_hook = tx.insert_webhook_endpoint(hook);
    if (!made_hook.ok()) return made_hook.error();
    licensed::WebhookEndpoint down = hook;
    down.url = "https://down.example.com/in";
    down.events = {"license.created", "activation.created"};
    down.secrets = {{"whsec_down", kT0, std::nullopt}};
    auto made_down = tx.insert_webhook_endpoint(down);
    if (!made_down.ok()) return made_down.error();
    down = made_down.value();
    down.enabled = false;
    down.failing_since = kT0;
    down.disabled_reason = "410";
    if (auto s = tx.update_webhook_endpoint(down); !s.ok()) return s;
    if (auto m = tx.take_webhook_mark("license.expired:k:1", kT0, std::nullopt); !m.ok()) {
      return m.error();
    }
    if (auto p = licensed::create_product(tx, "reverb", "Reverb Pro", admin); !p.ok())
      return p.error();
    if (auto p = licensed::create_product(tx, "delay", "Delay \xc3\xa9", admin); !p.ok())
      return p.error();
    // A plan with entitlements, the product's default and trial plan, and one trial.
    const boost::json::object plan{
        {"code", "pro"},
        {"name", "Pro"},
        {"max", 3},
        {"validFor", "365d"},
        {"entitlements",
         boost::json::array{boost::json::object{{"code", "updates"}, {"validFor", "365d"}},
                            boost::json::object{{"code", "voices"}, {"value", 64}}}}};
    if (auto p = licensed::create_plan(tx, "reverb", plan, admin); !p.ok()) return p.error();
    const boost::json::object offer{{"defaultPlan", "pro"},
                                    {"trial", boost::json::object{{"plan", "pro"}, {"days", 14}}}};
    if (auto p = licensed::patch_product(tx, "reverb", offer); !p.ok()) return p.error();
    auto trial_key = licensed::stored_trial_key(tx, kT0);
    if (!trial_key.ok()) return trial_key.error();
    licensed::LicenseRequest trial_req;
    trial_req.product = "reverb";
    trial_req.machine_id = "trial-machine-1";
    trial_req.email = "ann@example.com";
    licensed::OperationContext trial_ctx;
    trial_ctx.now = kT0;
    trial_ctx.trial_identity = trial_key.value().get();
    trial_ctx.new_license_key = &licensed::generate_license_key;
    if (auto r = licensed::trial(tx, trial_req, trial_ctx, licensed::TrialMode::kCreate); !r.ok()) {
      return refused(r.error());
    }
    std::vector<std::string> keys;
    for (int i = 0; i < 3; ++i) {
      licensed::LicenseSpec spec;
      spec.product_slug = i == 2 ? "delay" : "reverb";
      spec.max = 2 + i;
      if (i == 1) spec.expires_at = kT0 + 86'400'000;
      if (i == 2) spec.machine_ttl_seconds = 3600;
      auto l = licensed::create_license(tx, spec, admin);
      if (!l.ok()) return l.error();
      keys.push_back(l->key);
    }
    for (int i = 0; i < 4; ++i) {
      licensed::LicenseRequest req;
      req.license_key = keys[static_cast<size_t>(i % 3)];
      req.machine_id = "machine-" + std::to_string(i);
      if (i != 0) req.machine_name = "Studio " + std::to_string(i);
      // OperationContext holds views: the request id must outlive the call.
      const std::string request_id = "req-" + std::to_string(i);
      licensed::OperationContext ctx;
      ctx.now = kT0 + 1000 * i;
      ctx.ip = "203.0.113.9";
      ctx.key_id = "plugin-2026";
      ctx.request_id = request_id;
      if (auto r = licensed::activate(tx, req, ctx); !r.ok()) return refused(r.error());
    }
    licensed::LicenseRequest again;
    again.license_key = keys[0];
    again.machine_id = "machine-0";
    licensed::OperationContext later;
    later.now = kT0 + 9000;
    if (auto r = licensed::activate(tx, again, later); !r.ok())
      return refused(r.error());  // a refresh
    if (auto r = licensed::delete_license(tx, keys[1], admin); !r.ok()) return r.error();
    if (auto s = tx.remember_nonce("plugin-2026", "abcdef0123456789", kT0 + 60'000); !s.ok()) {
      return s;
    }
    licensed::AdminToken token;
    token.name = "shop-backend";
    token.token_sha256_hex = std::string(64, 'a');
    token.read_only = true;
    token.created_at = kT0;
    token.last_used_at = kT0 + 5000;
    if (auto s = tx.insert_admin_token(token); !s.ok()) return s;
    // A store with two secrets and a mapping, and an order it fulfilled: licenses with a
    // customer (one without a name) and a source, units, an event, audit with a source.
    const boost::json::object store_body{
        {"provider", "stripe"},
        {"name", "Main shop"},
        {"secret", boost::json::array{"whsec_a", "whsec_b"}},
        {"mapping", {{"price_1", {{"product", "reverb"}, {"plan", "pro"}, {"perUnit", true}}}}}};
    auto shop = licensed::create_storefront(tx, store_body, "https://lic.example", admin);
    if (!shop.ok()) return shop.error();
    licensed::VerifiedOrder order;
    order.event_key = "evt_1";
    order.event_type = "checkout.session.completed";
    order.order_id = "cs_1";
    order.customer = {std::string("ann@example.com"), std::nullopt};
    order.lines = {{"price_1", 2}};
    order.references = {"pi_1", "sub_1"};
    if (auto f = licensed::fulfil_order(tx, shop->storefront, order, kT0); !f.ok()) {
      return f.error();
    }
    // Its lifecycle: a dispute (a status cause), a renewal (a period), a failed payment.
    for (auto action : {licensed::StoreAction::kDispute, licensed::StoreAction::kRenewal,
                        licensed::StoreAction::kPaymentFailed}) {
      licensed::StoreEvent e;
      e.event_key = "evt_life_" + std::to_string(static_cast<int>(action));
      e.event_type = "lifecycle";
      e.action = action;
      e.reference = "sub_1";
      e.dispute_id = "dp_1";
      e.period_start = kT0;
      e.period_end = kT0 + 30LL * 86400 * 1000;
      if (auto a = licensed::apply_store_event(tx, shop->storefront, e, kT0 + 1000); !a.ok()) {
        return a.error();
      }
    }
    // One delivery attempted and failed, with its status and error, another delivered.
    auto claimed = tx.claim_webhook_deliveries(kT0 + 5000, kT0 + 65'000, 2);
    if (!claimed.ok()) return claimed.error();
    if (claimed->size() != 2) return licensed::Error::internal("two deliveries expected");
    licensed::WebhookDelivery failed = claimed.value()[0];
    failed.attempts = 1;
    failed.next_attempt_at = kT0 + 10'000;
    failed.last_status = 503;
    failed.last_error = "HTTP 503";
    if (auto s = tx.record_webhook_attempt(failed); !s.ok()) return s;
    licensed::WebhookDelivery delivered = claimed.value()[1];
    delivered.attempts = 1;
    delivered.next_attempt_at.reset();
    delivered.last_status = 200;
    delivered.delivered_at = kT0 + 5000;
    if (auto s = tx.record_webhook_attempt(delivered); !s.ok()) return s;
    return tx.insert_response_key("-----BEGIN PRIVATE KEY-----\nnot a real key\n", kT0);
  });
  ASSERT_TRUE(done.ok()) << done.error().message << " " << done.error().message;
}

std::string Export(licensed::Store& store) {
  auto text = licensed::export_store(store);
  EXPECT_TRUE(text.ok()) << text.error().message;
  return text.ok() ? text.value() : "";
}

size_t Lines(const std::string& text, const std::string& table) {
  size_t n = 0;
  for (size_t pos = 0; (pos = text.find("{\"table\":\"" + table + "\"", pos)) != std::string::npos;
       ++pos) {
    ++n;
  }
  return n;
}

TEST(StoreTransfer, SqliteToPostgresAndBackLosesNoRow) {
  if (!StoreKindAvailable("postgresql")) GTEST_SKIP() << "no test PostgreSQL server";
  StoreHarness sqlite("sqlite");
  Populate(sqlite.store());
  const std::string first = Export(sqlite.store());
  EXPECT_EQ(Lines(first, "products"), 2u);
  EXPECT_EQ(Lines(first, "plans"), 1u);
  EXPECT_EQ(Lines(first, "licenses"), 6u);  // 3, a trial and 2 from a sale
  EXPECT_EQ(Lines(first, "storefronts"), 1u);
  EXPECT_EQ(Lines(first, "storefront_secrets"), 2u);
  EXPECT_EQ(Lines(first, "storefront_skus"), 1u);
  EXPECT_EQ(Lines(first, "storefront_units"), 2u);
  EXPECT_EQ(Lines(first, "storefront_order_refs"), 3u);  // cs_1, pi_1, sub_1
  EXPECT_EQ(Lines(first, "storefront_status_causes"), 2u);
  EXPECT_EQ(Lines(first, "storefront_order_periods"), 1u);
  EXPECT_EQ(Lines(first, "storefront_payment_failures"), 1u);
  EXPECT_EQ(Lines(first, "storefront_events"), 4u);
  EXPECT_EQ(Lines(first, "activations"), 5u);
  EXPECT_EQ(Lines(first, "trials"), 1u);
  EXPECT_EQ(Lines(first, "trial_emails"), 1u);
  EXPECT_EQ(Lines(first, "server_secrets"), 1u);
  EXPECT_GE(Lines(first, "audit_log"), 9u);  // 3 creates, 5 activations, 1 delete
  EXPECT_EQ(Lines(first, "remembered_nonces"), 1u);
  EXPECT_EQ(Lines(first, "response_keys"), 1u);
  EXPECT_EQ(Lines(first, "admin_tokens"), 1u);
  EXPECT_EQ(Lines(first, "webhook_endpoints"), 2u);
  EXPECT_EQ(Lines(first, "webhook_secrets"), 3u);
  EXPECT_GE(Lines(first, "webhook_events"), 9u);  // beside the audit records
  EXPECT_GE(Lines(first, "webhook_deliveries"), Lines(first, "webhook_events"));
  EXPECT_EQ(Lines(first, "webhook_marks"), 1u);
  EXPECT_NE(first.find("whsec_old"), std::string::npos) << "secrets move";

  StoreHarness pg("postgresql");
  auto imported = licensed::import_store(pg.store(), first);
  ASSERT_TRUE(imported.ok()) << imported.error().message << " " << imported.error().message;
  const std::string second = Export(pg.store());
  EXPECT_EQ(second, first);

  StoreHarness back("sqlite");
  ASSERT_TRUE(licensed::import_store(back.store(), second).ok());
  EXPECT_EQ(Export(back.store()), first);

  // New rows get ids after the imported ones, on both stores.
  for (licensed::Store* s : {&pg.store(), &back.store()}) {
    auto product = licensed::run_blocking(
        *s, TxKind::kWrite, [](StoreTx& tx) { return tx.insert_product("new", "New", kT0); });
    ASSERT_TRUE(product.ok()) << product.error().message;
    EXPECT_EQ(product->id, 3);
  }
}

TEST(StoreTransfer, ImportRefusesAStoreWithRowsAndWritesNothing) {
  StoreHarness source("sqlite");
  Populate(source.store());
  const std::string text = Export(source.store());
  StoreHarness target("sqlite");
  auto product = licensed::run_blocking(target.store(), TxKind::kWrite, [](StoreTx& tx) {
    return tx.insert_product("already", "Already here", kT0);
  });
  ASSERT_TRUE(product.ok());
  const std::string before = Export(target.store());
  auto refused = licensed::import_store(target.store(), text);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("not empty"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(Export(target.store()), before);
}

TEST(StoreTransfer, ImportRefusesWhatIsNotAnExport) {
  StoreHarness target("sqlite");
  for (const char* bad :
       {"", "{\"table\":\"products\",\"row\":{}}\n", "{\"licensedExport\":1}\nnope\n",
        "{\"licensedExport\":1}\n{\"table\":\"users\",\"row\":{}}\n",
        "{\"licensedExport\":1}\n{\"table\":\"products\",\"row\":{\"id\":\"x\"}}\n"}) {
    EXPECT_FALSE(licensed::import_store(target.store(), bad).ok()) << bad;
  }
}

// docs/protocol.md §27: leases move only while live, on export and again on import.
TEST(StoreTransfer, ExportAndImportCarryOnlyLiveLeases) {
  StoreHarness source("sqlite");
  const licensed::UnixMillis now = licensed::SystemClock().now_ms();
  auto made = licensed::run_blocking(
      source.store(), TxKind::kWrite, [&](StoreTx& tx) -> Result<licensed::Ok> {
        ASSIGN_OR_RETURN(const auto product, tx.insert_product("reverb", "Reverb Pro", kT0));
        licensed::NewLicense n;
        n.key = "0b9f6ad2-3c1e-4b8a-9d2f-5e6a7b8c9d01";
        n.product_id = product.id;
        n.max = 3;
        n.max_concurrent = 2;
        n.created_at = kT0;
        ASSIGN_OR_RETURN(const licensed::License license, tx.insert_license(n));
        ASSIGN_OR_RETURN(auto locked, tx.lock_license(license.key));
        for (const char* machine : {"machine-live", "machine-over"}) {
          RETURN_IF_ERROR(
              tx.insert_activation(*locked, licensed::Activation(machine, {}, kT0, kT0)));
        }
        RETURN_IF_ERROR(
            tx.put_lease(*locked, {"machine-live", "machine-live", now, now + 3'600'000}));
        RETURN_IF_ERROR(tx.put_lease(*locked, {"machine-over", "machine-over", kT0, kT0 + 60'000}));
        return licensed::Ok{};
      });
  ASSERT_TRUE(made.ok()) << made.error().message;
  const std::string text = Export(source.store());
  EXPECT_EQ(Lines(text, "leases"), 1u);
  EXPECT_NE(text.find("machine-live\",\"session_id\""), std::string::npos);

  // A lease still live when exported but over by the import is left out there.
  std::string stale = text;
  const std::string line =
      "{\"table\":\"leases\",\"row\":{\"license_id\":1,\"machine_id\":\"machine-over\","
      "\"session_id\":\"s-over-0001\",\"created_at\":1,\"expires_at\":2,\"borrowed\":false}}\n";
  stale += line;
  StoreHarness target("sqlite");
  ASSERT_TRUE(licensed::import_store(target.store(), stale).ok());
  EXPECT_EQ(Lines(Export(target.store()), "leases"), 1u);
}

}  // namespace
}  // namespace bb
