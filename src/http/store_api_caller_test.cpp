// The server's StoreApiCaller against a provider stand-in on loopback: the body of a 2xx,
// kUnavailable otherwise, and no failure message ever carrying the API key or an
// access_token from the query.
#include "http/store_api_caller.h"

#include <gtest/gtest.h>

#include "support/provider_stand_in.h"

namespace licensed {
namespace {

using bb::ProviderStandIn;
using bb::StandInAnswer;

const OutgoingPolicy kLoopbackHttp{.allow_http = true, .allow_private = true, .ca_file = {}};
constexpr std::string_view kApiKey = "rk_live_SECRETSECRET";
constexpr std::string_view kAccessToken = "gumroadTOKEN1234";

StandInAnswer Json(std::string body, unsigned status = 200) {
  return {.status = status, .body = std::move(body), .headers = {}, .delay = {}, .chunked = false};
}

ApiLookup Lookup(const std::string& base, const std::string& path_and_query) {
  return {.base = base,
          .path_and_query = path_and_query,
          .headers = {{"Authorization", "Bearer " + std::string(kApiKey)}}};
}

void ExpectUnavailableWithoutSecrets(const Result<std::string>& r, std::string_view words) {
  ASSERT_FALSE(r.ok()) << r.value();
  EXPECT_EQ(r.error().code, StatusCode::kUnavailable) << r.error().message;
  EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find(kApiKey), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find(kAccessToken), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("Bearer"), std::string::npos) << r.error().message;
}

TEST(StoreApiCaller, TheBodyOfA2xxAnswerComesBackAndTheLookupIsSentAsGiven) {
  ProviderStandIn stripe;
  stripe.AnswerWithFile("/v1/checkout/sessions/cs_1/line_items", LICENSED_SOURCE_DIR
                        "/tests/fixtures/stripe/checkout_session_line_items.json");
  OutgoingStoreApiCaller caller(kLoopbackHttp);
  // A base with a trailing slash does not double the path's.
  const auto r = caller.call(
      Lookup(stripe.base_url() + "/", "/v1/checkout/sessions/cs_1/line_items?limit=100"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(r->find("\"object\": \"list\""), std::string::npos) << r.value();
  const auto received = stripe.Received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].method, "GET");
  EXPECT_EQ(received[0].target, "/v1/checkout/sessions/cs_1/line_items?limit=100");
  EXPECT_EQ(received[0].header("authorization"), "Bearer " + std::string(kApiKey));
}

TEST(StoreApiCaller, AnAnswerOutside2xxIsUnavailableNamingTheHostAndTheStatus) {
  ProviderStandIn api;
  api.Answer("/v2/sales/s_1", Json(R"({"error":"Bearer rk_live_SECRETSECRET is invalid"})", 401));
  const auto r =
      OutgoingStoreApiCaller(kLoopbackHttp)
          .call(Lookup(api.base_url(), "/v2/sales/s_1?access_token=" + std::string(kAccessToken)));
  ExpectUnavailableWithoutSecrets(r, "answered HTTP 401");
  EXPECT_NE(r.error().message.find("http://127.0.0.1:" + std::to_string(api.port())),
            std::string::npos);
  api.Answer("/moved", {.status = 301,
                        .body = "",
                        .headers = {{"Location", "http://169.254.169.254/latest/meta-data/"}},
                        .delay = {},
                        .chunked = false});
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(kLoopbackHttp).call(Lookup(api.base_url(), "/moved")),
      "redirects are not followed");
  EXPECT_EQ(api.Received().size(), 2u);
}

TEST(StoreApiCaller, NoFailureMessageCarriesTheAuthorizationHeaderOrAnAccessToken) {
  ProviderStandIn api;
  ProviderStandIn tls(ProviderStandIn::Tls::kSelfSigned);
  api.Answer("/slow", {.status = 200,
                       .body = "{}",
                       .headers = {},
                       .delay = std::chrono::milliseconds(3000),
                       .chunked = false});
  api.Answer("/big", Json(std::string(2 * 1024 * 1024, 'x')));
  const std::string query = "?access_token=" + std::string(kAccessToken);
  const OutgoingPolicy strict{.allow_http = true, .allow_private = false, .ca_file = {}};
  const OutgoingPolicy https_only{.allow_http = false, .allow_private = true, .ca_file = {}};
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(strict).call(Lookup(api.base_url(), "/v1/x" + query)), "loopback");
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(https_only).call(Lookup(api.base_url(), "/v1/x" + query)),
      "--webhook-allow-http");
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(kLoopbackHttp, {.connect_timeout = std::chrono::milliseconds(300),
                                             .total_timeout = std::chrono::milliseconds(300),
                                             .max_answer_bytes = 1024 * 1024})
          .call(Lookup(api.base_url(), "/slow" + query)),
      "no answer within");
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(kLoopbackHttp).call(Lookup(api.base_url(), "/big" + query)),
      "larger than");
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(kLoopbackHttp).call(Lookup(tls.base_url(), "/v1/x" + query)),
      "certificate");
  ExpectUnavailableWithoutSecrets(
      OutgoingStoreApiCaller(kLoopbackHttp)
          .call(Lookup("https://user:" + std::string(kAccessToken) + "@127.0.0.1", "/x")),
      "user name or password");
}

TEST(StoreApiCaller, ThePolicyComesFromTheServeSettings) {
  ServeConfig config;
  EXPECT_FALSE(outgoing_policy(config).allow_http);
  EXPECT_FALSE(outgoing_policy(config).allow_private);
  config.webhook_allow_http = true;
  config.webhook_allow_private = true;
  config.outgoing_ca_file = "/etc/licensed/ca.pem";
  const OutgoingPolicy p = outgoing_policy(config);
  EXPECT_TRUE(p.allow_http);
  EXPECT_TRUE(p.allow_private);
  EXPECT_EQ(p.ca_file, "/etc/licensed/ca.pem");
}

}  // namespace
}  // namespace licensed
