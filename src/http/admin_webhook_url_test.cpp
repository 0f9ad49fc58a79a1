// A webhook URL given to the admin API is resolved and checked on a worker before the
// call's store transaction, never inside it (docs/protocol.md §25.1): on SQLite that
// transaction would hold the one writer for as long as DNS takes. Only a caller whose token
// may write gets a look-up made. A real SQLite store, the real handler, a worker pool whose
// one thread the test holds.
#include <gtest/gtest.h>

#include <future>

#include "admin/admin_operations.h"
#include "admin/admin_tokens.h"
#include "http/admin_api_handler.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace licensed {
namespace {

constexpr UnixMillis kT0 = 1'795'000'000'000;

class AdminWebhookUrl : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = open_store("sqlite:" + (dir_.path() / "t.db").string());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(opened.value());
    auto issued = run_blocking(*store_, TxKind::kWrite, [](StoreTx& tx) {
      return create_admin_token(tx, "ops", false, kT0);
    });
    ASSERT_TRUE(issued.ok());
    token_ = issued->token;
    ASSERT_TRUE(run_blocking(*store_, TxKind::kWrite, [](StoreTx& tx) {
                  return create_product(tx, "reverb", "Reverb", AdminContext{kT0});
                }).ok());
  }

  // Holds the pool's one thread until Release().
  void HoldTheWorker() {
    auto held = std::make_shared<std::shared_future<void>>(release_.get_future().share());
    workers_.submit([held] { held->wait(); });
  }
  void Release() { release_.set_value(); }

  std::future<HttpResponse> Create(const AdminApiHandler& handler, const std::string& token) {
    auto answer = std::make_shared<std::promise<HttpResponse>>();
    auto answered = answer->get_future();
    const auto route = handler.route("POST", "/api/v1/admin/webhooks");
    EXPECT_TRUE(route.ok());
    HttpRequest req{boost::beast::http::verb::post, "/api/v1/admin/webhooks", 11};
    req.set("Authorization", "Bearer " + token);
    req.set("Content-Type", "application/json");
    req.body() = R"({"url":"http://127.0.0.1:9/hook","events":["*"]})";
    req.prepare_payload();
    handler.serve(route.value(), req,
                  RequestContext{"/api/v1/admin/webhooks", "127.0.0.1", "r1", {}},
                  [answer](HttpResponse r) { answer->set_value(std::move(r)); });
    return answered;
  }

  AdminApiHandler Handler() {
    AdminApiConfig config;
    config.store = store_.get();
    config.clock = &clock_;
    config.outgoing_policy = OutgoingPolicy{true, true, ""};
    config.workers = &workers_;
    return AdminApiHandler(config);
  }

  bb::TempDir dir_;
  std::unique_ptr<Store> store_;
  ManualClock clock_{kT0};
  std::string token_;
  std::promise<void> release_;
  RedisWorkers workers_{1};
};

TEST_F(AdminWebhookUrl, TheLookUpWaitsOnAWorkerWhileTheStoreKeepsWriting) {
  const AdminApiHandler handler = Handler();
  HoldTheWorker();
  auto created = Create(handler, token_);
  // The look-up waits behind the held worker, and the store's writer is free meanwhile.
  LicenseSpec spec;
  spec.product_slug = "reverb";
  spec.max = 1;
  const auto written = run_blocking(*store_, TxKind::kWrite, [&](StoreTx& tx) {
    return create_license(tx, spec, AdminContext{kT0});
  });
  EXPECT_TRUE(written.ok());
  EXPECT_NE(created.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "answered before its URL was checked";
  Release();
  ASSERT_EQ(created.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const HttpResponse r = created.get();
  EXPECT_EQ(r.result_int(), 201) << r.body();
  const auto listed = run_blocking(*store_, TxKind::kRead,
                                   [](StoreTx& tx) { return tx.list_webhook_endpoints(kT0); });
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1u);
}

TEST_F(AdminWebhookUrl, AnUnknownTokenIsRefusedWithNoLookUpMade) {
  const AdminApiHandler handler = Handler();
  HoldTheWorker();
  auto refused = Create(handler, "lic_admin_" + std::string(43, 'A'));
  // Answered while the only worker is held: the look-up was never queued.
  ASSERT_EQ(refused.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(refused.get().result_int(), 401);
  Release();
}

}  // namespace
}  // namespace licensed
