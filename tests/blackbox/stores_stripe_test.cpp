// Store fulfilment over HTTP with Stripe (docs/protocol.md §22), against the real server: stores
// made, shown, changed and deleted through the admin API; a delivery signed with the
// store's secret (Stripe-Signature computed here, HMAC-SHA256 over "<t>.<body>") makes
// the order's licenses once, however often and however concurrently it comes; every
// failed check answers 400 (413 for a body over 1 MiB) with an empty body, is listed by
// the store's rejections and counted in /metrics. Runs on SQLite, and as scale.* on
// PostgreSQL with Redis.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <map>
#include <thread>

#include "support/fixture.h"
#include "support/openapi_check.h"
#include "support/provider_stand_in.h"
#include "support/signer.h"
#include "support/stores.h"

namespace bb {
namespace {

constexpr std::string_view kSecret = "whsec_blackbox_0123456789";

std::int64_t Now() {
  return UnixNow();
}

// A paid Checkout Session whose line items came expanded (as `expand[]=line_items`
// gives them), so no look-up is needed: one price of two units, one of a single unit.
std::string PaidSession(std::string_view event_id, std::string_view session) {
  return StripePaidSession(event_id, session);
}

class StoresStripe : public StoresTest {
 protected:
  // A Stripe store mapping price_single (per unit) and price_site to reverb's pro plan;
  // its id and inbound path.
  std::pair<std::int64_t, std::string> CreateStore(const std::string& options = "{}") {
    return CreateStoreFrom(
        R"({"provider":"stripe","name":"Web shop","secret":")" + std::string(kSecret) +
        R"(","mapping":{"price_single":{"product":"reverb","plan":"pro","perUnit":true},)"
        R"("price_site":{"product":"reverb","plan":"pro"}},"options":)" +
        options + "}");
  }
  HttpRequest Delivery(const std::string& path, std::string body,
                       std::optional<std::string> signature) const {
    return StripeDelivery(path, std::move(body), std::move(signature));
  }
  HttpResponse Deliver(const std::string& path, const std::string& body) const {
    return Send(Delivery(path, body, StripeSignature(kSecret, Now(), body)));
  }
};

TEST_F(StoresStripe, AStoreIsCreatedShownChangedAndDeletedAndItsTokenAppearsOnlyOnce) {
  StartWithPlan();
  const auto [id, url] = CreateStore(R"({"apiKey":"rk_test_1"})");
  const std::string prefix = "/api/v1/stores/stripe/" + std::to_string(id) + "/";
  ASSERT_EQ(url.substr(0, prefix.size()), prefix) << "a path without --public-url";
  const std::string token = url.substr(prefix.size());
  EXPECT_TRUE(MatchesShape(token, std::string(32, 'x'))) << token;

  const HttpResponse list = Api("GET", "/stores");
  ASSERT_EQ(list.status, 200) << list.Describe();
  EXPECT_DOCUMENTED(OpenApi(), "get", "/api/v1/admin/stores", list);
  const json::value listed = BodyJson(list);
  ASSERT_EQ(Arr(listed, "items").size(), 1u);
  const HttpResponse one = Api("GET", "/stores/" + std::to_string(id));
  ASSERT_EQ(one.status, 200) << one.Describe();
  EXPECT_DOCUMENTED(OpenApi(), "get", "/api/v1/admin/stores/{id}", one);
  EXPECT_EQ(Str(BodyJson(one), "mapping.price_single.plan"), "pro");
  EXPECT_EQ(Int(BodyJson(one), "secrets"), 1);
  for (const HttpResponse* r : {&list, &one}) {
    EXPECT_EQ(r->body.find(token), std::string::npos) << r->Describe();
    EXPECT_EQ(r->body.find(kSecret), std::string::npos) << r->Describe();
  }

  const HttpResponse patched = Api("PATCH", "/stores/" + std::to_string(id),
                                   R"({"name":"Renamed","secret":["whsec_a","whsec_b"]})");
  ASSERT_EQ(patched.status, 200) << patched.Describe();
  EXPECT_DOCUMENTED(OpenApi(), "patch", "/api/v1/admin/stores/{id}", patched);
  EXPECT_EQ(Str(BodyJson(patched), "name"), "Renamed");
  EXPECT_EQ(Int(BodyJson(patched), "secrets"), 2);
  EXPECT_API_ERROR(Api("PATCH", "/stores/" + std::to_string(id), R"({"provider":"paddle"})"), 400,
                   1702, "LICENSE_API_MALFORMED");

  const HttpResponse deleted = Api("DELETE", "/stores/" + std::to_string(id));
  ASSERT_EQ(deleted.status, 200) << deleted.Describe();
  EXPECT_API_ERROR(Api("GET", "/stores/" + std::to_string(id)), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Api("DELETE", "/stores/" + std::to_string(id)), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
  // Its URL is now just a wrong one.
  ExpectEmptyAnswer(Deliver(url, PaidSession("evt_gone", "cs_gone")), 400);
}

TEST_F(StoresStripe, ThePublicUrlStartsTheInboundUrl) {
  ServerOptions options;
  options.args = {"--public-url", "https://licenses.example.com/"};
  StartWithPlan(options);
  const auto [id, url] = CreateStore();
  EXPECT_EQ(
      url.rfind("https://licenses.example.com/api/v1/stores/stripe/" + std::to_string(id) + "/", 0),
      0u)
      << url;
}

TEST_F(StoresStripe, ASignedSaleMakesItsLicensesOnceWithCustomerSourceAndAudit) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  const std::string body = PaidSession("evt_bb_sale_1", "cs_live_bb_1");
  const HttpResponse first = Deliver(url, body);
  ASSERT_EQ(first.status, 200) << first.Describe();
  EXPECT_EQ(Dump(BodyJson(first)), R"({"ok":true})");
  EXPECT_FALSE(first.header("X-License-Response-Signature"));

  const auto licenses = StoreLicenses();
  ASSERT_EQ(licenses.size(), 3u) << "two per-unit licenses and one for the site line";
  for (const auto& l : licenses) {
    EXPECT_EQ(Str(l, "customer.email"), "ada@example.com");
    EXPECT_EQ(Str(l, "customer.name"), "Ada Lovelace");
    EXPECT_EQ(Str(l, "source.provider"), "stripe");
    EXPECT_EQ(Int(l, "source.storeId"), id);
    EXPECT_EQ(Str(l, "source.orderId"), "cs_live_bb_1");
    EXPECT_EQ(Str(l, "plan"), "pro");
    const auto audit = AuditRecords(Str(l, "licenseKey"), "license.create");
    ASSERT_EQ(audit.size(), 1u);
    EXPECT_EQ(Str(audit[0], "actor"), "store");
    EXPECT_EQ(Str(audit[0], "actorName"), "Web shop");
    EXPECT_EQ(Str(audit[0], "source.orderId"), "cs_live_bb_1");
  }

  // Stripe delivers again (a lost 200), freshly signed: 200, nothing new.
  const HttpResponse again = Deliver(url, body);
  ASSERT_EQ(again.status, 200) << again.Describe();
  EXPECT_EQ(StoreLicenses().size(), 3u);
  // Another event of the same session (async_payment_succeeded) claims no unit twice.
  std::string other = body;
  other.replace(other.find("evt_bb_sale_1"), 13, "evt_bb_sale_2");
  other.replace(other.find("checkout.session.completed"), 26,
                "checkout.session.async_payment_succeeded");
  ASSERT_EQ(Deliver(url, other).status, 200);
  EXPECT_EQ(StoreLicenses().size(), 3u);
}

TEST_F(StoresStripe, SixtyFourConcurrentDeliveriesOfOneEventMakeOneSetOfLicenses) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  const std::string body = PaidSession("evt_bb_race", "cs_live_bb_race");
  const std::string signature = StripeSignature(kSecret, Now(), body);
  std::vector<HttpRequest> requests(64, Delivery(url, body, signature));
  for (const HttpResponse& r : SendAllAtOnce(requests)) {
    EXPECT_EQ(r.status, 200) << r.Describe();
  }
  EXPECT_EQ(StoreLicenses().size(), 3u);
  EXPECT_TRUE(Rejections(id).empty());
}

TEST_F(StoresStripe, EventsThatChangeNothingAreAcknowledged) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  const std::string refund =
      R"({"id":"evt_bb_refund","object":"event","livemode":true,"type":"charge.refunded",)"
      R"("data":{"object":{"id":"ch_unknown","object":"charge","amount":4900,)"
      R"("amount_refunded":4900,"payment_intent":"pi_unknown"}}})";
  const std::string other =
      R"({"id":"evt_bb_customer","object":"event","livemode":true,"type":"customer.created",)"
      R"("data":{"object":{"id":"cus_1","object":"customer"}}})";
  const std::string unpaid = [] {
    std::string s = PaidSession("evt_bb_unpaid", "cs_live_bb_unpaid");
    s.replace(s.find(R"("payment_status":"paid")"), 23, R"("payment_status":"unpaid")");
    return s;
  }();
  for (const std::string* body : {&refund, &other, &unpaid, &refund}) {
    const HttpResponse r = Deliver(url, *body);
    ASSERT_EQ(r.status, 200) << r.Describe();
    EXPECT_EQ(Dump(BodyJson(r)), R"({"ok":true})");
  }
  EXPECT_TRUE(StoreLicenses().empty());
  EXPECT_TRUE(Rejections(id).empty());
}

// Webhooks never carry a session's line items: the server fetches them from Stripe's API
// (here a stand-in on loopback, reached only because --webhook-allow-private and
// --webhook-allow-http allow it) with the store's restricted key, before it writes.
TEST_F(StoresStripe, ASaleWhoseLineItemsComeFromStripesApiMakesItsLicenses) {
  ProviderStandIn stripe;
  StandInAnswer items;
  items.body = R"({"object":"list","url":"/v1/checkout/sessions/cs_live_bb_fetch/line_items",)"
               R"("has_more":false,"data":[{"id":"li_1","object":"item","quantity":3,)"
               R"("price":{"id":"price_single","object":"price"}}]})";
  stripe.Answer("/v1/checkout/sessions/cs_live_bb_fetch/line_items?limit=100", items);
  ServerOptions options;
  options.args = {"--webhook-allow-private", "--webhook-allow-http"};
  StartWithPlan(options);
  const auto [id, url] =
      CreateStore(R"({"apiKey":"rk_live_readonly","apiBase":")" + stripe.base_url() + R"("})");
  std::string body = PaidSession("evt_bb_fetch", "cs_live_bb_fetch");
  body = body.substr(0, body.find(R"(,"line_items")")) + "}}}";

  const HttpResponse r = Deliver(url, body);
  ASSERT_EQ(r.status, 200) << r.Describe();
  const auto requests = stripe.WaitFor(1);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].header("authorization"), "Bearer rk_live_readonly");
  const auto licenses = StoreLicenses();
  ASSERT_EQ(licenses.size(), 3u) << "three units of a per-unit price";
  for (const auto& l : licenses) {
    EXPECT_EQ(Str(l, "source.orderId"), "cs_live_bb_fetch");
    EXPECT_EQ(Str(l, "customer.email"), "ada@example.com");
  }
  // Stripe's retry of the same event is answered from the record: no second look-up.
  ASSERT_EQ(Deliver(url, body).status, 200);
  EXPECT_EQ(StoreLicenses().size(), 3u);
  EXPECT_EQ(stripe.Received().size(), 1u);
}

// Without the operator's switches the same store API on loopback is refused (docs/protocol.md
// §24): the delivery answers 503 and Stripe retries; nothing connects.
TEST_F(StoresStripe, AStoreApiOnALoopbackAddressIsNotCalledWithoutTheSwitches) {
  ProviderStandIn stripe;
  StartWithPlan();
  const auto [id, url] =
      CreateStore(R"({"apiKey":"rk_live_readonly","apiBase":")" + stripe.base_url() + R"("})");
  std::string body = PaidSession("evt_bb_ssrf", "cs_live_bb_ssrf");
  body = body.substr(0, body.find(R"(,"line_items")")) + "}}}";
  ExpectEmptyAnswer(Deliver(url, body), 503);
  EXPECT_EQ(stripe.connections(), 0u);
  EXPECT_TRUE(StoreLicenses().empty());
}

TEST_F(StoresStripe, ALookUpThatCannotBeMadeAnswers503AndMakesNothing) {
  StartWithPlan();
  // Nothing listens on port 1: the line items cannot be fetched, so Stripe must retry.
  const auto [id, url] = CreateStore(R"({"apiKey":"rk_live_1","apiBase":"http://127.0.0.1:1"})");
  std::string body = PaidSession("evt_bb_lookup", "cs_live_bb_lookup");
  const auto items = body.find(R"(,"line_items")");
  body = body.substr(0, items) + "}}}";
  const HttpResponse r = Deliver(url, body);
  ExpectEmptyAnswer(r, 503);
  EXPECT_TRUE(r.header("Retry-After")) << r.Describe();
  EXPECT_TRUE(StoreLicenses().empty());
  EXPECT_TRUE(Rejections(id).empty()) << "not a failed check: the delivery was sound";
}

TEST_F(StoresStripe, EveryFailedCheckAnswersAnEmpty400IsRecordedAndCounted) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  const auto [other_id, other_url] = CreateStore();
  const std::string body = PaidSession("evt_bb_bad", "cs_live_bb_bad");
  const std::string base = "/api/v1/stores/stripe/" + std::to_string(id) + "/";
  const std::string token = url.substr(base.size());
  const std::string wrong_token(32, '0');

  // A wrong token and a wrong id (another store's token, an id no store has) answer alike.
  ExpectEmptyAnswer(Deliver(base + wrong_token, body), 400);
  ExpectEmptyAnswer(Deliver("/api/v1/stores/stripe/999999/" + token, body), 400);
  ExpectEmptyAnswer(Deliver("/api/v1/stores/paddle/" + std::to_string(id) + "/" + token, body),
                    400);
  ExpectEmptyAnswer(Deliver("/api/v1/stores/nosuch/" + std::to_string(id) + "/" + token, body),
                    400);
  // Signed with another secret, signed 10 minutes ago, not signed, or a signed body
  // Stripe never sends.
  ExpectEmptyAnswer(Send(Delivery(url, body, StripeSignature("whsec_other", Now(), body))), 400);
  ExpectEmptyAnswer(Send(Delivery(url, body, StripeSignature(kSecret, Now() - 600, body))), 400);
  ExpectEmptyAnswer(Send(Delivery(url, body, std::nullopt)), 400);
  ExpectEmptyAnswer(Deliver(url, R"({"id":"evt_x","type":"charge.refunded"})"), 400);
  // Over 1 MiB, before any check of the provider.
  ExpectEmptyAnswer(Deliver(url, std::string(1024 * 1024 + 1, ' ')), 413);
  // 1 MiB itself is read (and refused for what it is).
  ExpectEmptyAnswer(Deliver(url, std::string(1024 * 1024, ' ')), 400);
  EXPECT_TRUE(StoreLicenses().empty());

  // The 413's record is written after its answer: wait for it.
  const std::vector<json::value> records = Rejections(id, 7);
  std::map<std::string, int> reasons;
  for (const auto& r : records) {
    EXPECT_EQ(Str(r, "action"), "store.rejected");
    EXPECT_FALSE(Has(r, "licenseKey"));
    EXPECT_EQ(Str(r, "source.provider"), "stripe");
    EXPECT_EQ(Int(r, "source.storeId"), id);
    EXPECT_EQ(r.as_object().at("id").is_int64(), true);
    ++reasons[Str(r, "reason")];
  }
  // The wrong token names the store; the wrong id, provider or path do not.
  EXPECT_EQ(reasons["unknown_store"], 1);
  EXPECT_EQ(reasons["authenticity"], 3);
  EXPECT_EQ(reasons["malformed"], 2);
  EXPECT_EQ(reasons["too_large"], 1);
  EXPECT_TRUE(Rejections(other_id).empty());
  for (const auto& r : records) {
    EXPECT_EQ(Dump(r).find(token), std::string::npos) << "no token in a record";
  }

  const std::string metrics = AdminGet("/metrics").body;
  for (const char* line :
       {R"(licensed_store_rejected_total{provider="stripe",reason="unknown_store"} 2)",
        R"(licensed_store_rejected_total{provider="paddle",reason="unknown_store"} 1)",
        R"(licensed_store_rejected_total{provider="unknown",reason="unknown_store"} 1)",
        R"(licensed_store_rejected_total{provider="stripe",reason="authenticity"} 3)",
        R"(licensed_store_rejected_total{provider="stripe",reason="malformed"} 2)",
        R"(licensed_store_rejected_total{provider="stripe",reason="too_large"} 1)"}) {
    EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
  }
  // The token never reaches the log.
  EXPECT_EQ(server().log().find(token), std::string::npos);
}

TEST_F(StoresStripe, OnlyPostIsAnsweredOnAnInboundUrl) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  HttpRequest get;
  get.method = "GET";
  get.target = url;
  EXPECT_EQ(Send(get).status, 405);
  HttpRequest short_path;
  short_path.target = "/api/v1/stores/stripe/" + std::to_string(id);
  EXPECT_EQ(Send(short_path).status, 404);
}

TEST_F(StoresStripe, TheCliCreatesListsAndDeletesAStoreAsTheApiDoes) {
  auto run = [this](const std::vector<std::string>& args) {
    CommandResult r = admin().Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.Describe();
    return r;
  };
  run({"plan", "create", "--product", "reverb", "--code", "pro", "--name", "Pro", "--max", "2"});
  const CommandResult made =
      run({"store", "create", "--provider", "stripe", "--name", "Cli shop", "--secret", "whsec_1",
           "--secret", "whsec_2", "--map", "price_single=reverb:pro:per-unit", "--option",
           "apiKey=rk_1", "--option", "testMode=true", "--public-url", "https://lic.example.com",
           "--json"});
  const json::value store = ParseJson(made.out);
  const std::string id = std::to_string(Int(store, "id"));
  EXPECT_EQ(
      Str(store, "inboundUrl").rfind("https://lic.example.com/api/v1/stores/stripe/" + id + "/", 0),
      0u);
  EXPECT_EQ(Int(store, "secrets"), 2);
  EXPECT_TRUE(Bool(store, "mapping.price_single.perUnit"));
  EXPECT_TRUE(Bool(store, "options.testMode"));

  const CommandResult listed = run({"store", "list", "--json"});
  EXPECT_EQ(listed.out.find("whsec_1"), std::string::npos) << listed.out;
  EXPECT_EQ(ParseJson(listed.out).as_array().size(), 1u);
  // A refused flag exits 1 (a refused operation) saying which; nothing is made.
  const CommandResult bad = admin().Run({"store", "create", "--provider", "stripe", "--name", "Bad",
                                         "--secret", "s", "--map", "price_x=reverb"});
  EXPECT_EQ(bad.exit_code, 1) << bad.Describe();
  EXPECT_NE(bad.err.find("--map price_x=reverb"), std::string::npos) << bad.Describe();
  EXPECT_EQ(ParseJson(run({"store", "list", "--json"}).out).as_array().size(), 1u);

  run({"store", "delete", id});
  EXPECT_EQ(ParseJson(run({"store", "list", "--json"}).out).as_array().size(), 0u);
  EXPECT_NE(admin().Run({"store", "delete", id}).exit_code, 0);
}

}  // namespace
}  // namespace bb
