// The claim page, GET /claim/{storeId}/{id} (docs/protocol.md §23), against the real server: after
// a signed Stripe sale the page of its Checkout session shows the order's keys; every
// answer is uncached, sends no Referer and carries the dashboard's security headers;
// whatever finds nothing (an unknown store, an id of the wrong shape, another store's
// session, a store of another provider, an order over 30 days old) answers the same 404
// page; the page counts in the per-IP bucket. Runs on SQLite, and as scale.* on
// PostgreSQL with Redis.
#include <gtest/gtest.h>

#include <ctime>

#include "support/fixture.h"
#include "support/store_sql.h"

namespace bb {
namespace {

constexpr std::string_view kSecret = "whsec_claim_0123456789";
constexpr std::int64_t kDayMs = 86'400'000;

std::string StripeSignature(std::string_view secret, std::string_view body) {
  const std::string ts = std::to_string(static_cast<std::int64_t>(std::time(nullptr)));
  return "t=" + ts + ",v1=" + HmacSha256Hex(secret, ts + "." + std::string(body));
}

// A paid Checkout Session with its line items in the event: two units of a per-unit
// price, so two keys.
std::string PaidSession(std::string_view event_id, std::string_view session) {
  return R"({"id":")" + std::string(event_id) +
         R"(","object":"event","api_version":"2024-06-20","created":1780000000,)"
         R"("livemode":true,"type":"checkout.session.completed","data":{"object":{"id":")" +
         std::string(session) +
         R"(","object":"checkout.session","mode":"payment","payment_status":"paid",)"
         R"("payment_intent":"pi_)" +
         std::string(event_id) +
         R"(","customer_details":{"email":"ada@example.com","name":"Ada <Lovelace>"},)"
         R"("line_items":{"object":"list","has_more":false,"data":[)"
         R"({"id":"li_1","price":{"id":"price_single"},"quantity":2}]}}}})";
}

class StoresClaim : public BlackboxTest {
 protected:
  void SetUp() override {
    BlackboxTest::SetUp();
    const CommandResult r = admin().Run({"token", "create", "--name", "claim-bot", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    token_ = Str(ParseJson(r.out), "token");
  }
  void StartWithPlan(const ServerOptions& options = {}) {
    Start(options);
    const HttpResponse plan =
        Api("POST", "/products/reverb/plans", R"({"code":"pro","name":"Reverb Pro","max":2})");
    ASSERT_EQ(plan.status, 201) << plan.Describe();
  }
  HttpResponse Api(const std::string& method, const std::string& target,
                   std::optional<std::string> body = {}) {
    HttpRequest request;
    request.method = method;
    request.target = "/api/v1/admin" + target;
    request.Set("Authorization", "Bearer " + token_);
    if (body) {
      request.Set("Content-Type", "application/json");
      request.body = std::move(*body);
    }
    return Send(request);
  }
  // A store of `provider` mapping price_single per unit to reverb's pro plan: its id and
  // inbound path.
  std::pair<std::int64_t, std::string> CreateStore(std::string_view provider = "stripe") {
    const HttpResponse r = Api(
        "POST", "/stores",
        R"({"provider":")" + std::string(provider) + R"(","name":"Web shop","secret":")" +
            std::string(kSecret) +
            R"(","mapping":{"price_single":{"product":"reverb","plan":"pro","perUnit":true}}})");
    EXPECT_EQ(r.status, 201) << r.Describe();
    const json::value body = BodyJson(r);
    return {Int(body, "id"), Str(body, "inboundUrl")};
  }
  void Sell(const std::string& url, std::string_view event_id, std::string_view session) {
    const std::string body = PaidSession(event_id, session);
    HttpRequest request;
    request.target = url;
    request.Set("Content-Type", "application/json");
    request.Set("Stripe-Signature", StripeSignature(kSecret, body));
    request.body = body;
    const HttpResponse r = Send(request);
    ASSERT_EQ(r.status, 200) << r.Describe();
  }
  // The keys of the licenses a sale of `session` made, from the admin API.
  std::vector<std::string> KeysOf(std::string_view session) {
    const HttpResponse r = Api("GET", "/licenses?orderId=" + std::string(session));
    EXPECT_EQ(r.status, 200) << r.Describe();
    std::vector<std::string> keys;
    const json::value body = BodyJson(r);
    for (const auto& l : Arr(body, "items")) keys.push_back(Str(l, "licenseKey"));
    return keys;
  }
  HttpResponse Claim(const std::string& path, std::string method = "GET") {
    HttpRequest request;
    request.method = std::move(method);
    request.target = path;
    return Send(request);
  }

  std::string token_;
};

void ExpectPageHeaders(const HttpResponse& r) {
  EXPECT_EQ(r.header("Content-Type"), "text/html; charset=utf-8") << r.Describe();
  EXPECT_EQ(r.header("Cache-Control"), "no-store") << r.Describe();
  EXPECT_EQ(r.header("Referrer-Policy"), "no-referrer") << r.Describe();
  EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff") << r.Describe();
  EXPECT_EQ(r.header("X-Frame-Options"), "DENY") << r.Describe();
  const std::string csp = r.header("Content-Security-Policy").value_or("");
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("style-src 'self'"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
  EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
  EXPECT_FALSE(r.header("X-License-Response-Signature")) << "the page is not signed";
}

TEST_F(StoresClaim, AfterASignedSaleThePageOfItsCheckoutSessionShowsTheOrdersKeys) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  const std::string session = "cs_live_a1B2c3D4e5F6claim";
  Sell(url, "evt_claim_1", session);
  const auto keys = KeysOf(session);
  ASSERT_EQ(keys.size(), 2u);

  const HttpResponse page = Claim("/claim/" + std::to_string(id) + "/" + session);
  ASSERT_EQ(page.status, 200) << page.Describe();
  ExpectPageHeaders(page);
  for (const auto& key : keys) {
    EXPECT_NE(page.body.find("value=\"" + key + "\""), std::string::npos) << key << page.body;
  }
  EXPECT_NE(page.body.find("Reverb Pro"), std::string::npos) << "the plan's name";
  EXPECT_NE(page.body.find("Ada &lt;Lovelace&gt;"), std::string::npos) << "escaped buyer text";
  EXPECT_EQ(page.body.find("Ada <Lovelace>"), std::string::npos);
  EXPECT_NE(page.body.find("/dashboard/assets/app.css"), std::string::npos);
}

TEST_F(StoresClaim, EverythingThatFindsNothingAnswersTheSame404Page) {
  StartWithPlan();
  const auto [id, url] = CreateStore();
  const auto [other_id, other_url] = CreateStore();
  const auto [lemon_id, lemon_url] = CreateStore("lemonsqueezy");
  const std::string sold = "cs_live_soldhere";
  const std::string old = "cs_live_soldlongago";
  Sell(url, "evt_claim_sold", sold);
  Sell(url, "evt_claim_old", old);
  Sell(other_url, "evt_claim_other", "cs_live_soldthere");
  const std::string s = "/claim/" + std::to_string(id) + "/";
  ASSERT_EQ(Claim(s + sold).status, 200);
  ASSERT_EQ(Claim(s + old).status, 200);
  // The old sale was made 31 days ago, as far as the store knows.
  ASSERT_EQ(StoreSql(store(), "UPDATE licenses SET created_at = created_at - " +
                                  std::to_string(31 * kDayMs) + " WHERE source_order_id = '" + old +
                                  "' RETURNING 1"),
            "1");

  const HttpResponse first = Claim(s + "cs_live_notsoldyet");
  ASSERT_EQ(first.status, 404) << first.Describe();
  ExpectPageHeaders(first);
  EXPECT_NE(first.body.find("being prepared"), std::string::npos) << first.body;
  EXPECT_NE(first.body.find(R"(<meta http-equiv="refresh" content="5; url=?try=2">)"),
            std::string::npos)
      << first.body;
  for (const std::string& path :
       {s + old,                                            // over 30 days
        s + "cs_live_soldthere",                            // another store's session
        "/claim/" + std::to_string(other_id) + "/" + sold,  // ... and the other way
        "/claim/" + std::to_string(lemon_id) + "/" + sold,  // a store of another provider
        "/claim/" + std::to_string(id + 100) + "/" + sold,  // an unknown store
        "/claim/x" + std::to_string(id) + "/" + sold,       // a store id that is no number
        s + "pi_evt_claim_sold",                            // a reference of another shape
        s + "ada@example.com",                              // not an id at all
        s + "104e18a2-d755-4d4b-80c4-a6c1dcbe1c10",         // a UUID on a Stripe store
        s + sold + "/more",                                 // a segment too many
        "/claim/" + std::to_string(id)}) {                  // one too few
    const HttpResponse r = Claim(path);
    EXPECT_EQ(r.status, 404) << path << r.Describe();
    EXPECT_EQ(r.body, first.body) << path;
    EXPECT_EQ(r.header("Cache-Control"), "no-store") << path;
    EXPECT_EQ(r.header("Referrer-Policy"), "no-referrer") << path;
  }
  // The page's reloads are counted, and stop.
  const HttpResponse last = Claim(s + "cs_live_notsoldyet?try=60");
  EXPECT_EQ(last.status, 404);
  EXPECT_EQ(last.body.find("http-equiv=\"refresh\""), std::string::npos) << last.body;
  const HttpResponse post = Claim(s + sold, "POST");
  EXPECT_EQ(post.status, 405) << post.Describe();
  EXPECT_EQ(post.header("Allow"), "GET");
}

TEST_F(StoresClaim, ThePageCountsInThePerIpBucket) {
  StartWithPlan(WithRateLimits("3/1m", "off"));
  const std::string path = "/claim/1/cs_live_guess";
  for (int i = 0; i < 3; ++i) {
    const HttpResponse r = Claim(path);
    ASSERT_EQ(r.status, 404) << i << r.Describe();
  }
  const HttpResponse refused = Claim(path);
  ASSERT_EQ(refused.status, 429) << refused.Describe();
  ExpectPageHeaders(refused);
  EXPECT_TRUE(refused.header("Retry-After")) << refused.Describe();
  EXPECT_NE(refused.body.find("Too many requests"), std::string::npos) << refused.body;
}

}  // namespace
}  // namespace bb
