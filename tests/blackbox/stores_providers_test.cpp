// Store fulfilment over HTTP for every provider but Stripe (docs/protocol.md §22, issue 20),
// against the real server: Paddle, FastSpring, the FastSpring generator, Lemon Squeezy and Gumroad.
// Each store is made through the admin API with its look-ups pointed at a provider API stand-in
// (tests/support/provider_stand_in.h); each delivery is shaped like the fixtures under
// tests/fixtures/<provider>/ and signed here with the provider's own scheme
// (tests/support/stores.h). A sale makes its licenses once with customer and source; every failed
// check is an empty 400 (413 over 1 MiB), listed and counted. Then what only the FastSpring
// generator (keys as text) and FastSpring webhooks (several events per delivery, manual retries)
// do. Runs on SQLite, and as scale.* on PostgreSQL with Redis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "support/fixture.h"
#include "support/provider_stand_in.h"
#include "support/response_verifier.h"
#include "support/signer.h"
#include "support/stores.h"

namespace bb {
namespace {

constexpr std::string_view kSecret = "store_secret_blackbox_0123456789";
// Gumroad signs nothing: its pings name the seller, which the store's options.sellerId
// must equal. The fixtures' seller, as the form decodes it.
constexpr std::string_view kSellerId = "gRsFixtureSeller0001==";
constexpr std::string_view kGeneratorParams =
    R"(["name","email","company","reference","internalProductName","quantity","test"])";

std::string FormEncode(std::string_view value) {
  std::string out;
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else if (c == ' ') {
      out += '+';
    } else {
      static const char kDigits[] = "0123456789ABCDEF";
      out += '%';
      out += kDigits[u >> 4];
      out += kDigits[u & 0xf];
    }
  }
  return out;
}

HttpRequest Post(std::string content_type, std::string body) {
  HttpRequest request;
  request.Set("Content-Type", std::move(content_type));
  request.body = std::move(body);
  return request;
}

// --- Paddle: transaction.completed, its customer looked up at /customers/{id}.

std::string PaddleOrderId(int n) {
  return "txn_bb_paddle_" + std::to_string(n);
}
std::string PaddleSale(int n) {
  std::string body = Fixture("paddle/transaction_completed.json");
  body = ReplaceAll(body, "evt_01hstoresfixtureevent000001", "evt_bb_paddle_" + std::to_string(n));
  body = ReplaceAll(body, "txn_01hstoresfixturetxn00000001", PaddleOrderId(n));
  return ReplaceAll(body, "sub_01hstoresfixturesubscript01", "sub_bb_paddle_" + std::to_string(n));
}
HttpRequest PaddleDelivery(int n, const std::string& secret, std::int64_t now) {
  HttpRequest r = Post("application/json", PaddleSale(n));
  r.Set("Paddle-Signature", PaddleSignature(secret, now, r.body));
  return r;
}

// --- FastSpring webhooks: {"events": [order.completed, account.created]}.

std::string FastSpringOrderId(int n) {
  return "FsBbOrder" + std::to_string(n);
}
// The fixture's two events for order n, under event ids made of `tag` (a manual retry
// from FastSpring's app sends the same order under new ids).
std::string FastSpringEvents(int n, std::string_view tag = "") {
  std::string body = Fixture("fastspring/order_completed.json");
  const std::string suffix = std::to_string(n) + std::string(tag);
  body = ReplaceAll(body, "FsFixtureEvent0001AbCd", "FsBbEventA" + suffix);
  body = ReplaceAll(body, "FsFixtureEvent0002AbCd", "FsBbEventB" + suffix);
  body = ReplaceAll(body, "FsFixtureOrder0001aBcD", FastSpringOrderId(n));
  body = ReplaceAll(body, "LIC260302-1234-56789", "BB-FS-" + std::to_string(n));
  return ReplaceAll(body, "FsFixtureSubscr0001qRs", "FsBbSub" + std::to_string(n));
}
HttpRequest FastSpringSigned(std::string body, const std::string& secret) {
  HttpRequest r = Post("application/json", std::move(body));
  r.Set("X-FS-Signature", FastSpringSignature(secret, r.body));
  return r;
}
HttpRequest FastSpringDelivery(int n, const std::string& secret, std::int64_t) {
  return FastSpringSigned(FastSpringEvents(n), secret);
}

// --- The FastSpring generator: a form, confirmed at /orders/{reference}.

std::string GeneratorReference(int n) {
  return "BB-GEN-" + std::to_string(n);
}
// The form FastSpring posts, `params` in order, with security_request_hash: MD5 of the
// values sorted by parameter name, then the private key.
std::string GeneratorForm(std::vector<std::pair<std::string, std::string>> params,
                          const std::string& key) {
  std::string body;
  for (const auto& [name, value] : params) {
    body += name + "=" + FormEncode(value) + "&";
  }
  std::sort(params.begin(), params.end());
  std::string values;
  for (const auto& p : params) values += p.second;
  return body + "security_request_hash=" + Md5Hex(values + key);
}
std::vector<std::pair<std::string, std::string>> GeneratorParams(int n) {
  return {{"name", "Ada Lovelace"},
          {"email", "ada@example.com"},
          {"company", ""},
          {"reference", GeneratorReference(n)},
          {"internalProductName", "studio-plugin"},
          {"quantity", "2"},
          {"test", "false"}};
}
HttpRequest GeneratorDelivery(int n, const std::string& secret, std::int64_t) {
  return Post("application/x-www-form-urlencoded", GeneratorForm(GeneratorParams(n), secret));
}
void AnswerGeneratorOrder(ProviderStandIn& api, int n,
                          std::string_view fixture = "fastspring-generator/order.json") {
  StandInAnswer a;
  a.body = ReplaceAll(Fixture(fixture), "LIC260302-1234-56789", GeneratorReference(n));
  api.Answer("/orders/" + GeneratorReference(n), a);
}

// --- Lemon Squeezy: order_created, signed X-Signature (hex HMAC of the body).

std::string LemonSqueezyOrderId(int n) {
  return std::to_string(780000 + n);
}
std::string LemonSqueezyEvent(std::string_view fixture, int n) {
  std::string body = Fixture(fixture);
  body = ReplaceAll(body, "78001", LemonSqueezyOrderId(n));
  char uuid_tail[13];
  std::snprintf(uuid_tail, sizeof uuid_tail, "%012d", n);
  return ReplaceAll(body, "1c2d3e4f5a6b", uuid_tail);
}
HttpRequest LemonSqueezySigned(std::string body, const std::string& secret) {
  HttpRequest r = Post("application/json", std::move(body));
  r.Set("X-Signature", HmacSha256Hex(secret, r.body));
  return r;
}
HttpRequest LemonSqueezyDelivery(int n, const std::string& secret, std::int64_t) {
  return LemonSqueezySigned(LemonSqueezyEvent("lemonsqueezy/order_created.json", n), secret);
}

// --- Gumroad: a ping naming the seller; the sale looked up at /v2/sales/{id}.

std::string GumroadSaleId(int n) {
  return "bbSale" + std::to_string(n);
}
HttpRequest GumroadDelivery(int n, const std::string& seller, std::int64_t) {
  std::string body = Fixture("gumroad/sale_ping.txt");
  body = ReplaceAll(body, "gRsFixtureSale0001%3D%3D", GumroadSaleId(n));
  body =
      ReplaceAll(body, "seller_id=gRsFixtureSeller0001%3D%3D", "seller_id=" + FormEncode(seller));
  return Post("application/x-www-form-urlencoded", body);
}
void AnswerGumroadSale(ProviderStandIn& api, int n) {
  StandInAnswer a;
  a.body = ReplaceAll(Fixture("gumroad/sale.json"), "gRsFixtureSale0001==", GumroadSaleId(n));
  api.Answer("/v2/sales/" + GumroadSaleId(n), a);
}

// One provider as the parameterised tests drive it.
struct ProviderCase {
  std::string provider;
  std::string test_name;
  std::string mapping;  // JSON
  int licenses = 0;     // what one order makes
  std::string (*options)(const std::string& api_base) = nullptr;
  std::string (*order_id)(int n) = nullptr;
  // Order n's delivery signed with `secret` (Gumroad: naming that seller) at `now`.
  HttpRequest (*delivery)(int n, const std::string& secret, std::int64_t now) = nullptr;
  // Gives the stand-in what order n's look-ups ask (null: the events carry everything).
  void (*answer)(ProviderStandIn& api, int n) = nullptr;
  bool signs_with_a_timestamp = false;
};

std::ostream& operator<<(std::ostream& out, const ProviderCase& c) {
  return out << c.provider;
}

const std::vector<ProviderCase>& Providers() {
  static const std::vector<ProviderCase> cases = {
      {.provider = "paddle",
       .test_name = "paddle",
       .mapping =
           R"({"pri_01hstoresfixturesingle00001":{"product":"reverb","plan":"pro","perUnit":true},)"
           R"("pri_01hstoresfixturemonthly0001":{"product":"reverb","plan":"pro"}})",
       .licenses = 3,
       .options =
           [](const std::string& base) {
             return R"({"apiKey":"pdl_live_apikey_readonly","apiBase":")" + base + R"("})";
           },
       .order_id = PaddleOrderId,
       .delivery = PaddleDelivery,
       .answer =
           [](ProviderStandIn& api, int) {
             api.AnswerWithFile("/customers/ctm_01hstoresfixturecustomer001",
                                FixturePath("paddle/customer.json"));
           },
       .signs_with_a_timestamp = true},
      {.provider = "fastspring",
       .test_name = "fastspring",
       .mapping = R"({"studio-plugin":{"product":"reverb","plan":"pro","perUnit":true},)"
                  R"("studio-plugin-updates":{"product":"reverb","plan":"pro"}})",
       .licenses = 3,
       .options = [](const std::string&) { return std::string("{}"); },
       .order_id = FastSpringOrderId,
       .delivery = FastSpringDelivery},
      {.provider = "fastspring-generator",
       .test_name = "fastspring_generator",
       .mapping = R"({"studio-plugin":{"product":"reverb","plan":"pro","perUnit":true}})",
       .licenses = 2,
       .options =
           [](const std::string& base) {
             return R"({"apiKey":"api_user:api_password","apiBase":")" + base +
                    R"(","generatorParams":)" + std::string(kGeneratorParams) + "}";
           },
       .order_id = GeneratorReference,
       .delivery = GeneratorDelivery,
       .answer = [](ProviderStandIn& api, int n) { AnswerGeneratorOrder(api, n); }},
      {.provider = "lemonsqueezy",
       .test_name = "lemonsqueezy",
       .mapping = R"({"91001":{"product":"reverb","plan":"pro","perUnit":true}})",
       .licenses = 3,
       .options = [](const std::string&) { return std::string("{}"); },
       .order_id = LemonSqueezyOrderId,
       .delivery = LemonSqueezyDelivery},
      {.provider = "gumroad",
       .test_name = "gumroad",
       .mapping = R"({"gRsFixtureProduct001==":{"product":"reverb","plan":"pro","perUnit":true}})",
       .licenses = 2,
       .options =
           [](const std::string& base) {
             return R"({"apiKey":"gumroad_access_token","sellerId":")" + std::string(kSellerId) +
                    R"(","apiBase":")" + base + R"("})";
           },
       .order_id = GumroadSaleId,
       .delivery = GumroadDelivery,
       .answer = AnswerGumroadSale},
  };
  return cases;
}

const ProviderCase& Case(std::string_view provider) {
  for (const auto& c : Providers()) {
    if (c.provider == provider) return c;
  }
  throw std::runtime_error("no case for " + std::string(provider));
}

// The stand-in is on loopback over plain HTTP: the operator's switches allow it (docs/protocol.md
// §24).
ServerOptions WithStandInAllowed() {
  ServerOptions options;
  options.args = {"--webhook-allow-private", "--webhook-allow-http"};
  return options;
}

class ProviderStoresTest : public StoresTest {
 protected:
  // The provider's store (its secret is kSecret; Gumroad's seller kSellerId).
  std::pair<std::int64_t, std::string> CreateStore(const ProviderCase& c) {
    const std::string secret =
        c.provider == "gumroad" ? "" : R"("secret":")" + std::string(kSecret) + R"(",)";
    return CreateStoreFrom(R"({"provider":")" + c.provider + R"(","name":"Shop of )" + c.provider +
                           R"(",)" + secret + R"("mapping":)" + c.mapping + R"(,"options":)" +
                           c.options(api_.base_url()) + "}");
  }
  HttpResponse Deliver(const std::string& url, HttpRequest request) const {
    request.target = url;
    return Send(request);
  }
  // Order n, correctly signed now.
  HttpResponse DeliverOrder(const ProviderCase& c, const std::string& url, int n) {
    if (c.answer != nullptr) c.answer(api_, n);
    return Deliver(url, c.delivery(n, CorrectSecret(c), UnixNow()));
  }
  static std::string CorrectSecret(const ProviderCase& c) {
    return std::string(c.provider == "gumroad" ? kSellerId : kSecret);
  }
  // The licenses of that order.
  std::vector<json::value> OrderLicenses(const std::string& order_id) {
    std::vector<json::value> out;
    for (auto& l : StoreLicenses()) {
      if (Str(l, "source.orderId") == order_id) out.push_back(std::move(l));
    }
    return out;
  }

  ProviderStandIn api_;
};

class StoresProviders : public ProviderStoresTest,
                        public ::testing::WithParamInterface<ProviderCase> {};

TEST_P(StoresProviders, ASignedSaleMakesItsLicensesOnceWithCustomerAndSource) {
  const ProviderCase& c = GetParam();
  StartWithPlan(WithStandInAllowed());
  const auto [id, url] = CreateStore(c);
  const HttpResponse first = DeliverOrder(c, url, 1);
  ASSERT_EQ(first.status, 200) << first.Describe();
  EXPECT_FALSE(first.header("X-License-Response-Signature"));

  const auto licenses = StoreLicenses();
  ASSERT_EQ(licenses.size(), static_cast<std::size_t>(c.licenses));
  std::set<std::string> keys;
  for (const auto& l : licenses) {
    keys.insert(Str(l, "licenseKey"));
    EXPECT_EQ(Str(l, "customer.email"), "ada@example.com");
    EXPECT_EQ(Str(l, "customer.name"), "Ada Lovelace");
    EXPECT_EQ(Str(l, "source.provider"), c.provider);
    EXPECT_EQ(Int(l, "source.storeId"), id);
    EXPECT_EQ(Str(l, "source.orderId"), c.order_id(1));
    EXPECT_EQ(Str(l, "plan"), "pro");
    EXPECT_EQ(Str(l, "status"), "ACTIVE");
    const auto audit = LicenseAudit(Str(l, "licenseKey"), "license.create");
    ASSERT_EQ(audit.size(), 1u);
    EXPECT_EQ(Str(audit[0], "actor"), "store");
    EXPECT_EQ(Str(audit[0], "actorName"), "Shop of " + c.provider);
    EXPECT_EQ(Str(audit[0], "source.orderId"), c.order_id(1));
  }

  // The provider delivers again (a lost answer), freshly signed: 200, nothing new.
  const HttpResponse again = DeliverOrder(c, url, 1);
  ASSERT_EQ(again.status, 200) << again.Describe();
  const auto after = StoreLicenses();
  EXPECT_EQ(after.size(), licenses.size());
  for (const auto& l : after) EXPECT_TRUE(keys.count(Str(l, "licenseKey")));
  EXPECT_TRUE(Rejections(id).empty());
  // A provider whose events lack the buyer or the items was asked once; its duplicate,
  // recorded before, needed no look-up.
  EXPECT_EQ(api_.Received().size(), c.answer != nullptr ? 1u : 0u);
}

TEST_P(StoresProviders, EveryFailedCheckAnswersAnEmptyAnswerIsListedAndCounted) {
  const ProviderCase& c = GetParam();
  StartWithPlan(WithStandInAllowed());
  const auto [id, url] = CreateStore(c);
  if (c.answer != nullptr) c.answer(api_, 1);
  const std::string base = "/api/v1/stores/" + c.provider + "/" + std::to_string(id) + "/";
  const std::string token = url.substr(base.size());

  // Signed with another secret (Gumroad: naming another seller).
  ExpectEmptyAnswer(Deliver(url, c.delivery(1, "another_secret_9876543210", UnixNow())), 400);
  int authenticity = 1;
  if (c.signs_with_a_timestamp) {
    // Signed correctly, ten minutes ago.
    ExpectEmptyAnswer(Deliver(url, c.delivery(1, CorrectSecret(c), UnixNow() - 600)), 400);
    ++authenticity;
  }
  // The right delivery at a wrong token.
  ExpectEmptyAnswer(
      Deliver(base + std::string(32, '0'), c.delivery(1, CorrectSecret(c), UnixNow())), 400);
  // Over 1 MiB, before the provider's checks.
  HttpRequest huge = c.delivery(1, CorrectSecret(c), UnixNow());
  huge.body.append(1024 * 1024, ' ');
  ExpectEmptyAnswer(Deliver(url, huge), 413);
  EXPECT_TRUE(StoreLicenses().empty());

  const auto records = Rejections(id, static_cast<std::size_t>(authenticity) + 2);
  std::map<std::string, int> reasons;
  for (const auto& r : records) {
    EXPECT_EQ(Str(r, "action"), "store.rejected");
    EXPECT_FALSE(Has(r, "licenseKey"));
    EXPECT_EQ(Str(r, "source.provider"), c.provider);
    EXPECT_EQ(Int(r, "source.storeId"), id);
    EXPECT_EQ(Dump(r).find(token), std::string::npos) << "no token in a record";
    ++reasons[Str(r, "reason")];
  }
  EXPECT_EQ(reasons["authenticity"], authenticity);
  EXPECT_EQ(reasons["unknown_store"], 1);
  EXPECT_EQ(reasons["too_large"], 1);
  EXPECT_EQ(records.size(), static_cast<std::size_t>(authenticity + 2));

  const std::string metrics = AdminGet("/metrics").body;
  const std::string series = R"(licensed_store_rejected_total{provider=")" + c.provider;
  EXPECT_EQ(MetricSample(metrics, series + R"(",reason="authenticity"})"), authenticity) << metrics;
  EXPECT_EQ(MetricSample(metrics, series + R"(",reason="unknown_store"})"), 1) << metrics;
  EXPECT_EQ(MetricSample(metrics, series + R"(",reason="too_large"})"), 1) << metrics;
  EXPECT_EQ(server().log().find(token), std::string::npos) << "no token in the log";
}

INSTANTIATE_TEST_SUITE_P(Stores, StoresProviders, ::testing::ValuesIn(Providers()),
                         [](const auto& info) { return info.param.test_name; });

// --- The FastSpring generator: what it answers is printed on the receipt.

class StoresFastSpringGenerator : public ProviderStoresTest {
 protected:
  void SetUp() override {
    ProviderStoresTest::SetUp();
    StartWithPlan(WithStandInAllowed());
    std::tie(id_, url_) = CreateStore(Case("fastspring-generator"));
  }
  std::int64_t id_ = 0;
  std::string url_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST_F(StoresFastSpringGenerator, TheKeysAreAnsweredAsPlainTextOnePerLineAndAgainForADuplicate) {
  const ProviderCase& c = Case("fastspring-generator");
  const HttpResponse first = DeliverOrder(c, url_, 7);
  ASSERT_EQ(first.status, 200) << first.Describe();
  EXPECT_EQ(first.header("Content-Type").value_or("").rfind("text/plain", 0), 0u)
      << first.Describe();
  const auto keys = Lines(first.body);
  ASSERT_EQ(keys.size(), 2u) << first.body;
  std::set<std::string> made;
  for (const auto& l : OrderLicenses(GeneratorReference(7))) made.insert(Str(l, "licenseKey"));
  EXPECT_EQ(made, std::set<std::string>(keys.begin(), keys.end()));
  const auto requests = api_.WaitFor(1);
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].target, "/orders/" + GeneratorReference(7));
  EXPECT_EQ(requests[0].header("authorization"), "Basic " + Base64Encode("api_user:api_password"));

  // FastSpring asks again (its request timed out): the same keys, nothing new.
  const HttpResponse again = DeliverOrder(c, url_, 7);
  ASSERT_EQ(again.status, 200) << again.Describe();
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(StoreLicenses().size(), 2u);
}

TEST_F(StoresFastSpringGenerator, AFormWithAParameterTheStoreDoesNotListFailsTheCheck) {
  AnswerGeneratorOrder(api_, 8);
  auto params = GeneratorParams(8);
  params.emplace_back("subscriptionReference", "sub-1");
  const std::string hashed_too = GeneratorForm(params, std::string(kSecret));
  ExpectEmptyAnswer(Deliver(url_, Post("application/x-www-form-urlencoded", hashed_too)), 400);
  // A listed name missing is refused too.
  params = GeneratorParams(8);
  params.pop_back();
  ExpectEmptyAnswer(Deliver(url_, Post("application/x-www-form-urlencoded",
                                       GeneratorForm(params, std::string(kSecret)))),
                    400);
  EXPECT_TRUE(StoreLicenses().empty());
  EXPECT_EQ(api_.connections(), 0u) << "nothing is looked up for a form that fails the check";
  const auto records = Rejections(id_, 2);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) EXPECT_EQ(Str(r, "reason"), "authenticity");
}

TEST_F(StoresFastSpringGenerator, AnOrderFastSpringDoesNotConfirmIssuesNothing) {
  const ProviderCase& c = Case("fastspring-generator");
  // FastSpring knows the order but it is not completed: the request is refused.
  AnswerGeneratorOrder(api_, 9, "fastspring-generator/order_not_completed.json");
  const HttpResponse pending = Deliver(url_, c.delivery(9, std::string(kSecret), UnixNow()));
  EXPECT_EQ(pending.status, 400) << pending.Describe();
  EXPECT_TRUE(pending.body.empty()) << "no keys on the receipt";
  // FastSpring does not know the reference (the stand-in answers 404): nothing is issued,
  // and the generator may ask again later.
  const HttpResponse unknown = Deliver(url_, c.delivery(10, std::string(kSecret), UnixNow()));
  EXPECT_EQ(unknown.status, 503) << unknown.Describe();
  EXPECT_NE(unknown.header("Content-Type").value_or("").rfind("text/plain", 0), 0u);
  EXPECT_TRUE(StoreLicenses().empty());
  EXPECT_EQ(api_.WaitFor(2).size(), 2u);
}

// --- FastSpring webhooks: several events per delivery.

class StoresFastSpring : public ProviderStoresTest {
 protected:
  void SetUp() override {
    ProviderStoresTest::SetUp();
    StartWithPlan();
    std::tie(id_, url_) = CreateStore(Case("fastspring"));
  }
  // One delivery carrying the events of each of `bodies` (each {"events": [...]}).
  static std::string Combined(const std::vector<std::string>& bodies) {
    json::array events;
    for (const auto& b : bodies) {
      const json::value parsed = ParseJson(b);
      for (const auto& e : Arr(parsed, "events")) events.push_back(e);
    }
    return Dump(json::object{{"events", std::move(events)}});
  }
  std::int64_t id_ = 0;
  std::string url_;
};

TEST_F(StoresFastSpring, OneDeliveryOfTwoOrdersMakesBoth) {
  const std::string body = Combined({FastSpringEvents(21), FastSpringEvents(22)});
  const HttpResponse r = Deliver(url_, FastSpringSigned(body, std::string(kSecret)));
  ASSERT_EQ(r.status, 200) << r.Describe();
  EXPECT_EQ(OrderLicenses(FastSpringOrderId(21)).size(), 3u);
  EXPECT_EQ(OrderLicenses(FastSpringOrderId(22)).size(), 3u);
  EXPECT_EQ(StoreLicenses().size(), 6u);
  // Delivered again: every event a duplicate.
  ASSERT_EQ(Deliver(url_, FastSpringSigned(body, std::string(kSecret))).status, 200);
  EXPECT_EQ(StoreLicenses().size(), 6u);
}

TEST_F(StoresFastSpring, AManualRetryWithNewEventIdsMakesNoSecondSetOfLicenses) {
  ASSERT_EQ(Deliver(url_, FastSpringSigned(FastSpringEvents(23), std::string(kSecret))).status,
            200);
  const auto first = OrderLicenses(FastSpringOrderId(23));
  ASSERT_EQ(first.size(), 3u);
  // The vendor resends the order from FastSpring's app: new event ids, the same order.
  const std::string retry = FastSpringEvents(23, "retry");
  ASSERT_NE(retry, FastSpringEvents(23));
  const HttpResponse r = Deliver(url_, FastSpringSigned(retry, std::string(kSecret)));
  ASSERT_EQ(r.status, 200) << r.Describe();
  const auto after = OrderLicenses(FastSpringOrderId(23));
  ASSERT_EQ(after.size(), 3u);
  std::set<std::string> keys;
  for (const auto& l : first) keys.insert(Str(l, "licenseKey"));
  for (const auto& l : after) EXPECT_TRUE(keys.count(Str(l, "licenseKey")));
}

// --- Refunds of Lemon Squeezy and Gumroad sales over HTTP (the lifecycle; Stripe's are in
// stores_lifecycle_test.cpp).

class StoresRefunds : public ProviderStoresTest {
 protected:
  std::map<std::string, std::string> Statuses(const std::string& order_id) {
    std::map<std::string, std::string> out;
    for (const auto& l : OrderLicenses(order_id)) out[Str(l, "licenseKey")] = Str(l, "status");
    return out;
  }
  static std::set<std::string> StatusSet(const std::map<std::string, std::string>& statuses) {
    std::set<std::string> out;
    for (const auto& entry : statuses) out.insert(entry.second);
    return out;
  }
  void ExpectRefundAudited(const std::map<std::string, std::string>& statuses,
                           const std::string& provider, const std::string& order_id) {
    for (const auto& entry : statuses) {
      const auto records = LicenseAudit(entry.first, "license.status");
      ASSERT_EQ(records.size(), 1u) << entry.first;
      EXPECT_EQ(Str(records[0], "actor"), "store");
      EXPECT_EQ(Str(records[0], "source.provider"), provider);
      EXPECT_EQ(Str(records[0], "source.orderId"), order_id);
      EXPECT_EQ(Str(records[0], "changes.status.to"), "REFUNDED");
    }
  }
};

TEST_F(StoresRefunds, ALemonSqueezyOrderRefundedMakesTheOrdersLicensesRefunded) {
  const ProviderCase& c = Case("lemonsqueezy");
  StartWithPlan();
  const auto [id, url] = CreateStore(c);
  ASSERT_EQ(DeliverOrder(c, url, 41).status, 200);
  ASSERT_EQ(DeliverOrder(c, url, 42).status, 200);
  ASSERT_EQ(Statuses(LemonSqueezyOrderId(41)).size(), 3u);

  // Part of it refunded: nothing changes.
  const HttpResponse partial = Deliver(
      url, LemonSqueezySigned(LemonSqueezyEvent("lemonsqueezy/order_refunded_partial.json", 41),
                              std::string(kSecret)));
  ASSERT_EQ(partial.status, 200) << partial.Describe();
  EXPECT_EQ(StatusSet(Statuses(LemonSqueezyOrderId(41))), std::set<std::string>{"ACTIVE"});

  const HttpResponse full =
      Deliver(url, LemonSqueezySigned(LemonSqueezyEvent("lemonsqueezy/order_refunded.json", 41),
                                      std::string(kSecret)));
  ASSERT_EQ(full.status, 200) << full.Describe();
  const auto refunded = Statuses(LemonSqueezyOrderId(41));
  EXPECT_EQ(StatusSet(refunded), std::set<std::string>{"REFUNDED"});
  ExpectRefundAudited(refunded, "lemonsqueezy", LemonSqueezyOrderId(41));
  EXPECT_EQ(StatusSet(Statuses(LemonSqueezyOrderId(42))), std::set<std::string>{"ACTIVE"});
}

// Gumroad signs nothing, so a ping only triggers a look-up: what Gumroad's API answers
// about the sale decides, never what the ping says.
TEST_F(StoresRefunds, AGumroadRefundPingRefundsOnlyWhenGumroadsApiSaysTheSaleIsRefunded) {
  const ProviderCase& c = Case("gumroad");
  StartWithPlan(WithStandInAllowed());
  const auto [id, url] = CreateStore(c);
  ASSERT_EQ(DeliverOrder(c, url, 51).status, 200);
  ASSERT_EQ(DeliverOrder(c, url, 52).status, 200);
  ASSERT_EQ(Statuses(GumroadSaleId(51)).size(), 2u);
  const auto refund_ping = [](int n) {
    std::string body = ReplaceAll(Fixture("gumroad/refund_ping.txt"), "gRsFixtureSale0001%3D%3D",
                                  GumroadSaleId(n));
    return Post("application/x-www-form-urlencoded", body);
  };

  // The ping says refunded, Gumroad's API does not (the stand-in still answers the sale).
  const HttpResponse claimed = Deliver(url, refund_ping(51));
  ASSERT_EQ(claimed.status, 200) << claimed.Describe();
  EXPECT_EQ(StatusSet(Statuses(GumroadSaleId(51))), std::set<std::string>{"ACTIVE"});

  StandInAnswer refunded_sale;
  refunded_sale.body =
      ReplaceAll(Fixture("gumroad/sale_refunded.json"), "gRsFixtureSale0001==", GumroadSaleId(52));
  api_.Answer("/v2/sales/" + GumroadSaleId(52), refunded_sale);
  const HttpResponse confirmed = Deliver(url, refund_ping(52));
  ASSERT_EQ(confirmed.status, 200) << confirmed.Describe();
  const auto refunded = Statuses(GumroadSaleId(52));
  EXPECT_EQ(StatusSet(refunded), std::set<std::string>{"REFUNDED"});
  ExpectRefundAudited(refunded, "gumroad", GumroadSaleId(52));
  EXPECT_EQ(StatusSet(Statuses(GumroadSaleId(51))), std::set<std::string>{"ACTIVE"});
  const auto asked = api_.Received();
  EXPECT_EQ(asked.back().target.rfind("/v2/sales/" + GumroadSaleId(52) + "?access_token=", 0), 0u)
      << asked.back().target;
}

}  // namespace
}  // namespace bb
