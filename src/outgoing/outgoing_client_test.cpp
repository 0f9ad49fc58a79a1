// The outgoing client against real sockets: a provider stand-in on loopback (plain and
// with a self-signed certificate), a second one posing as the environment's proxy. Each
// rule of docs/protocol.md §24 for outgoing connections, refused and allowed.
#include "outgoing/outgoing_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>
#include <vector>

#include "support/provider_stand_in.h"

namespace licensed {
namespace {

using bb::ProviderStandIn;
using bb::StandInAnswer;

const OutgoingPolicy kLoopbackHttp{.allow_http = true, .allow_private = true, .ca_file = {}};

StandInAnswer Json(std::string body, unsigned status = 200) {
  return {.status = status, .body = std::move(body), .headers = {}, .delay = {}, .chunked = false};
}

OutgoingRequest Get(std::string url) {
  OutgoingRequest r;
  r.url = std::move(url);
  return r;
}

void ExpectRefusal(const Result<OutgoingAnswer>& r, StatusCode code, std::string_view words) {
  ASSERT_FALSE(r.ok()) << "answered " << r->status;
  EXPECT_EQ(r.error().code, code) << r.error().message;
  EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
}

// Sets proxy variables for one test and puts the old values back.
class ProxyEnvironment {
 public:
  explicit ProxyEnvironment(const std::string& proxy) {
    for (const char* name :
         {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"}) {
      Set(name, proxy.c_str());
    }
    for (const char* name : {"NO_PROXY", "no_proxy"}) Set(name, nullptr);
  }
  ~ProxyEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  ProxyEnvironment(const ProxyEnvironment&) = delete;
  ProxyEnvironment& operator=(const ProxyEnvironment&) = delete;

 private:
  void Set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST(OutgoingClient, ALoopbackStandInIsReachedWithAllowPrivateAndGetsTheHeaders) {
  ProviderStandIn api;
  api.Answer("/v1/customers/ctm_1", Json(R"({"email":"a@example.com"})"));
  OutgoingRequest request = Get(api.base_url() + "/v1/customers/ctm_1?include=x");
  request.headers = {{"Authorization", "Bearer pdl_key"}, {"Paddle-Version", "1"}};
  const auto r = OutgoingClient(kLoopbackHttp).send(request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"email":"a@example.com"})");
  EXPECT_EQ(r->connected_to, "127.0.0.1");
  EXPECT_EQ(r->header("content-type"), "application/json");
  const auto received = api.Received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].method, "GET");
  EXPECT_EQ(received[0].target, "/v1/customers/ctm_1?include=x");
  EXPECT_EQ(received[0].header("authorization"), "Bearer pdl_key");
  EXPECT_EQ(received[0].header("paddle-version"), "1");
}

TEST(OutgoingClient, ALoopbackStandInIsRefusedWithoutAllowPrivateAndNeverConnected) {
  ProviderStandIn api;
  const auto r = OutgoingClient({.allow_http = true, .allow_private = false, .ca_file = {}})
                     .send(Get(api.base_url() + "/v1/x"));
  ExpectRefusal(r, StatusCode::kInvalidArgument, "127.0.0.1 is in 127.0.0.0/8 (loopback)");
  EXPECT_NE(r.error().message.find("--webhook-allow-private"), std::string::npos);
  EXPECT_EQ(api.connections(), 0u);
}

TEST(OutgoingClient, AHostNameThatResolvesToLoopbackIsRefusedOnItsAddress) {
  ProviderStandIn api;
  const auto r = OutgoingClient({.allow_http = true, .allow_private = false, .ca_file = {}})
                     .send(Get("http://localhost:" + std::to_string(api.port()) + "/v1/x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StatusCode::kInvalidArgument) << r.error().message;
  // Whichever address of localhost libcurl tried first, it was judged as an address.
  EXPECT_TRUE(r.error().message.find("127.0.0.0/8 (loopback)") != std::string::npos ||
              r.error().message.find("::1/128 (loopback)") != std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("http://localhost:"), std::string::npos) << r.error().message;
  EXPECT_EQ(api.connections(), 0u);
}

// However the URL writes the address (decimal, hex, IPv6, IPv4-mapped), what is judged is
// the socket address libcurl is about to connect to.
TEST(OutgoingClient, AddressLiteralsInAnyNotationAreJudgedOnTheSocketAddress) {
  ProviderStandIn api;
  const std::string port = std::to_string(api.port());
  const OutgoingClient strict({.allow_http = true, .allow_private = false, .ca_file = {}});
  for (const std::string host : {"2130706433", "0x7f000001", "127.1", "[::1]", "[::ffff:127.0.0.1]",
                                 "[64:ff9b::7f00:1]", "0.0.0.0"}) {
    const auto r = strict.send(Get("http://" + host + ":" + port + "/v1/x"));
    ASSERT_FALSE(r.ok()) << host << " answered " << r->status;
    EXPECT_EQ(r.error().code, StatusCode::kInvalidArgument) << host << ": " << r.error().message;
  }
  EXPECT_EQ(api.connections(), 0u);
}

TEST(OutgoingClient, PlainHttpIsRefusedWithoutAllowHttpBeforeAnyConnection) {
  ProviderStandIn api;
  const auto r = OutgoingClient({.allow_http = false, .allow_private = true, .ca_file = {}})
                     .send(Get(api.base_url() + "/v1/x"));
  ExpectRefusal(r, StatusCode::kInvalidArgument, "--webhook-allow-http");
  EXPECT_EQ(api.connections(), 0u);
}

TEST(OutgoingClient, OnlyHttpAndHttpsUrlsWithoutUserinfoAreAccepted) {
  const OutgoingPolicy open{.allow_http = true, .allow_private = true, .ca_file = {}};
  for (const char* url : {"ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/",
                          "dict://127.0.0.1:11211/", "127.0.0.1/x", "https://", "not a url"}) {
    const Status s = check_outgoing_url(url, open);
    ASSERT_FALSE(s.ok()) << url;
    EXPECT_EQ(s.error().subject, "url") << url;
    EXPECT_FALSE(OutgoingClient(open).send(Get(url)).ok()) << url;
  }
  for (const char* url : {"https://user:pw@api.example.com/x", "https://user@api.example.com/x"}) {
    const Status s = check_outgoing_url(url, open);
    ASSERT_FALSE(s.ok()) << url;
    EXPECT_NE(s.error().message.find("user name or password"), std::string::npos);
    EXPECT_EQ(s.error().message.find("pw"), std::string::npos) << s.error().message;
  }
  EXPECT_TRUE(check_outgoing_url("https://api.stripe.com/v1/x?limit=100", {}).ok());
  EXPECT_TRUE(check_outgoing_url("http://127.0.0.1:8080/x", open).ok());
}

TEST(OutgoingClient, AProxyFromTheEnvironmentIsNotUsed) {
  ProviderStandIn api;
  api.Answer("/v1/x", Json("{}"));
  ProviderStandIn proxy;
  proxy.Answer("/v1/x", Json(R"({"from":"the proxy"})"));
  const ProxyEnvironment env("http://127.0.0.1:" + std::to_string(proxy.port()));
  const auto reached = OutgoingClient(kLoopbackHttp).send(Get(api.base_url() + "/v1/x"));
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(reached->body, "{}");
  // Nor to get around the address check: a private host stays refused, proxy or not.
  const auto refused = OutgoingClient({.allow_http = true, .allow_private = false, .ca_file = {}})
                           .send(Get("http://10.1.2.3/v1/x"));
  ExpectRefusal(refused, StatusCode::kInvalidArgument, "10.0.0.0/8 (private)");
  EXPECT_EQ(proxy.connections(), 0u);
  EXPECT_EQ(api.connections(), 1u);
}

TEST(OutgoingClient, ARedirectIsAnAnswerAndIsNotFollowed) {
  ProviderStandIn api;
  api.Answer("/v1/a", {.status = 302,
                       .body = "{}",
                       .headers = {{"Location", api.base_url() + "/v1/b"}},
                       .delay = {},
                       .chunked = false});
  api.Answer("/v1/b", Json(R"({"followed":true})"));
  const auto r = OutgoingClient(kLoopbackHttp).send(Get(api.base_url() + "/v1/a"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 302);
  EXPECT_EQ(r->header("location"), api.base_url() + "/v1/b");
  ASSERT_EQ(api.Received().size(), 1u);
  EXPECT_EQ(api.Received()[0].target, "/v1/a");
}

TEST(OutgoingClient, AnAnswerOverTheSizeLimitIsRefusedWithOrWithoutItsLength) {
  ProviderStandIn api;
  OutgoingRequest request = Get(api.base_url() + "/declared");
  request.limits.max_answer_bytes = 1000;
  api.Answer("/declared", Json(std::string(1001, 'x')));
  api.Answer(
      "/chunked",
      {.status = 200, .body = std::string(1001, 'x'), .headers = {}, .delay = {}, .chunked = true});
  api.Answer("/exact", Json(std::string(1000, 'x')));
  const OutgoingClient client(kLoopbackHttp);
  ExpectRefusal(client.send(request), StatusCode::kUnavailable, "larger than 1000 bytes");
  request.url = api.base_url() + "/chunked";
  ExpectRefusal(client.send(request), StatusCode::kUnavailable, "larger than 1000 bytes");
  request.url = api.base_url() + "/exact";
  const auto exact = client.send(request);
  ASSERT_TRUE(exact.ok()) << exact.error().message;
  EXPECT_EQ(exact->body.size(), 1000u);
}

TEST(OutgoingClient, ACutAnswerStandsWithItsStatusAndTheBodyReadUpToTheLimit) {
  ProviderStandIn api;
  api.Answer("/declared", Json(std::string(100 * 1024, 'x'), 202));
  api.Answer("/chunked", {.status = 500,
                          .body = std::string(100 * 1024, 'y'),
                          .headers = {},
                          .delay = {},
                          .chunked = true});
  OutgoingRequest request = Get(api.base_url() + "/declared");
  request.limits.max_answer_bytes = 64 * 1024;
  request.limits.cut_long_answers = true;
  const OutgoingClient client(kLoopbackHttp);
  const auto declared = client.send(request);
  ASSERT_TRUE(declared.ok()) << declared.error().message;
  EXPECT_EQ(declared->status, 202);
  EXPECT_EQ(declared->body, std::string(64 * 1024, 'x'));
  request.url = api.base_url() + "/chunked";
  const auto chunked = client.send(request);
  ASSERT_TRUE(chunked.ok()) << chunked.error().message;
  EXPECT_EQ(chunked->status, 500);
  EXPECT_EQ(chunked->body.size(), 64u * 1024);
}

TEST(OutgoingClient, TheDefaultSizeLimitIsOneMebibyte) {
  ProviderStandIn api;
  api.Answer("/big", Json(std::string(1024 * 1024 + 1, 'x')));
  ExpectRefusal(OutgoingClient(kLoopbackHttp).send(Get(api.base_url() + "/big")),
                StatusCode::kUnavailable, "larger than 1048576 bytes");
}

TEST(OutgoingClient, TheTotalTimeoutBoundsASlowAnswer) {
  ProviderStandIn api;
  api.Answer("/slow", {.status = 200,
                       .body = "{}",
                       .headers = {},
                       .delay = std::chrono::milliseconds(3000),
                       .chunked = false});
  OutgoingRequest request = Get(api.base_url() + "/slow");
  request.limits.total_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  ExpectRefusal(OutgoingClient(kLoopbackHttp).send(request), StatusCode::kUnavailable,
                "no answer within 300 ms");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2000));
}

TEST(OutgoingClient, ASelfSignedCertificateIsRefused) {
  ProviderStandIn api(ProviderStandIn::Tls::kSelfSigned);
  api.Answer("/v1/x", Json("{}"));
  const auto r = OutgoingClient({.allow_http = false, .allow_private = true, .ca_file = {}})
                     .send(Get(api.base_url() + "/v1/x"));
  ExpectRefusal(r, StatusCode::kUnavailable, "certificate was not verified");
  EXPECT_TRUE(api.Received().empty());
}

TEST(OutgoingClient, ASelfSignedCertificateIsAcceptedOnlyThroughTheOperatorsCaFile) {
  ProviderStandIn api(ProviderStandIn::Tls::kSelfSigned);
  api.Answer("/v1/x", Json(R"({"tls":true})"));
  const OutgoingPolicy trusting{
      .allow_http = false, .allow_private = true, .ca_file = api.ca_file()};
  const auto r = OutgoingClient(trusting).send(Get(api.base_url() + "/v1/x"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, R"({"tls":true})");
  // The CA file vouches for the certificate, not for the address: loopback stays refused.
  const OutgoingPolicy strict{
      .allow_http = false, .allow_private = false, .ca_file = api.ca_file()};
  ExpectRefusal(OutgoingClient(strict).send(Get(api.base_url() + "/v1/x")),
                StatusCode::kInvalidArgument, "loopback");
}

TEST(OutgoingClient, AnAddressOutsideTheRangesPassesTheCheckAndIsConnectedTo) {
  // 192.0.2.1 (TEST-NET-1) is outside docs/protocol.md §24's ranges and routes nowhere: the check
  // lets it through, so the failure is the connection's (kUnavailable), not a refusal.
  OutgoingRequest request = Get("https://192.0.2.1/v1/x");
  request.limits.connect_timeout = std::chrono::milliseconds(200);
  request.limits.total_timeout = std::chrono::milliseconds(300);
  const auto r = OutgoingClient({}).send(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StatusCode::kUnavailable) << r.error().message;
  EXPECT_NE(r.error().message.find("https://192.0.2.1"), std::string::npos) << r.error().message;
}

TEST(OutgoingClient, AHeaderThatCouldEndItsLineIsRefused) {
  ProviderStandIn api;
  OutgoingRequest request = Get(api.base_url() + "/v1/x");
  request.headers = {{"Authorization", "Bearer k\r\nX-Injected: 1"}};
  const auto r = OutgoingClient(kLoopbackHttp).send(request);
  ExpectRefusal(r, StatusCode::kInvalidArgument, "line break");
  EXPECT_EQ(r.error().message.find("Bearer"), std::string::npos);
  EXPECT_EQ(api.connections(), 0u);
}

TEST(OutgoingClient, APostCarriesItsBody) {
  ProviderStandIn api;
  api.Answer("/hook", Json("", 204));
  OutgoingRequest request = Get(api.base_url() + "/hook");
  request.method = "POST";
  request.body = R"({"type":"license.created"})";
  request.headers = {{"Content-Type", "application/json"}};
  const auto r = OutgoingClient(kLoopbackHttp).send(request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 204);
  ASSERT_EQ(api.Received().size(), 1u);
  EXPECT_EQ(api.Received()[0].method, "POST");
  EXPECT_EQ(api.Received()[0].body, request.body);
}

// One client serves the blocking pool's threads at once: each call has its own handle.
TEST(OutgoingClient, ConcurrentCallsFromManyThreadsEachGetTheirAnswer) {
  ProviderStandIn api;
  for (int i = 0; i < 16; ++i) {
    api.Answer("/v1/o/" + std::to_string(i), Json(R"({"i":)" + std::to_string(i) + "}"));
  }
  const OutgoingClient client(kLoopbackHttp);
  std::vector<std::string> bodies(16);
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&client, &bodies, &api, i] {
      const auto r = client.send(Get(api.base_url() + "/v1/o/" + std::to_string(i)));
      bodies[i] = r.ok() ? r->body : r.error().message;
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(bodies[i], R"({"i":)" + std::to_string(i) + "}");
  EXPECT_EQ(api.Received().size(), 16u);
}

}  // namespace
}  // namespace licensed
