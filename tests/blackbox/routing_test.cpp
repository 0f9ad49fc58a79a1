// docs/protocol.md §2 (paths and methods) and the headers every response carries.
#include <gtest/gtest.h>

#include <ctime>
#include <set>

#include "support/fixture.h"

namespace bb {
namespace {

class Routing : public BlackboxTest {};
class Responses : public BlackboxTest {};

const char* const kEndpoints[] = {"activate", "heartbeat", "status", "deactivate"};

TEST_F(Routing, OtherApiPathsAre404NotFound) {
  Start();
  const std::string license = NewLicense(1);
  for (const char* path :
       {"/api/v1/license/nope", "/api/v1/license", "/api/v1/license/", "/api/v2/license/activate",
        "/api/", "/api/v1/license/activate/extra", "/api/v1/LICENSE/activate"}) {
    SCOPED_TRACE(path);
    EXPECT_ROUTE_ERROR(Send(SignedRequest(kPluginKey, path, Body(license, "machine-0001"))), 404,
                       "NOT_FOUND");
  }
  HttpRequest get;  // unsigned, another method: still the route's answer
  get.method = "GET";
  get.target = "/api/v1/nothing-here";
  EXPECT_ROUTE_ERROR(Send(get), 404, "NOT_FOUND");
}

TEST_F(Routing, GetOnTheEndpointsIs405WithAllowPost) {
  Start();
  for (const char* endpoint : kEndpoints) {
    SCOPED_TRACE(endpoint);
    HttpRequest req;
    req.method = "GET";
    req.target = Endpoint(endpoint);
    const HttpResponse r = Send(req);
    EXPECT_ROUTE_ERROR(r, 405, "METHOD_NOT_ALLOWED");
    EXPECT_EQ(r.header("Allow"), "POST") << r.Describe();
  }
}

TEST_F(Routing, OtherMethodsOnTheEndpointsAre405WithAllowPost) {
  Start();
  const std::string license = NewLicense(1);
  for (const char* method : {"PUT", "DELETE", "PATCH"}) {
    SCOPED_TRACE(method);
    SignOptions o;
    o.method = method;
    const HttpResponse r =
        Send(SignedRequest(kPluginKey, Endpoint("activate"), Body(license, "machine-0001"), o));
    EXPECT_ROUTE_ERROR(r, 405, "METHOD_NOT_ALLOWED");
    EXPECT_EQ(r.header("Allow"), "POST") << r.Describe();
  }
}

TEST_F(Routing, QueryStringIsNotPartOfTheSignedPath) {
  Start();
  const std::string license = NewLicense(1);
  const HttpResponse r =
      Send(SignedRequest(kPluginKey, Endpoint("status") + "?from=plugin", Body(license)));
  EXPECT_OK(r);
}

// Every kind of answer: success, API errors at several steps, routing errors.
TEST_F(Responses, EveryResponseCarriesRequestIdAndDate) {
  Start();
  const std::string license = NewLicense(1);
  HttpRequest get;
  get.method = "GET";
  get.target = Endpoint("status");
  HttpRequest unsigned_req;
  unsigned_req.target = Endpoint("status");
  unsigned_req.body = Body(license);
  unsigned_req.Set("Content-Type", "application/json");
  const std::vector<HttpResponse> responses = {
      Activate(license, "machine-0001"),
      Status(license),
      Heartbeat(license, "machine-0001"),
      Deactivate(license, "machine-0001"),
      Status(RandomUuidV4()),
      Send(unsigned_req),
      Call("activate", "{"),
      Call("activate", PaddedBody(license, 17 * 1024)),
      Send(SignedRequest(kPluginKey, "/api/v1/license/nope", Body(license))),
      Send(get),
  };
  std::set<std::string> ids;
  for (const auto& r : responses) {
    SCOPED_TRACE(r.Describe());
    EXPECT_NE(r.status, 0);
    ExpectCommonHeaders(r);
    const auto ct = r.header("Content-Type");
    EXPECT_TRUE(ct && ct->rfind("application/json", 0) == 0);
    if (const auto id = r.header("X-Request-Id")) ids.insert(*id);
    if (r.status != 200) {
      const json::value body = BodyJson(r);  // Find points into it: keep it alive
      const json::value* id = Find(body, "requestId");
      EXPECT_TRUE(id && *id == json::value(r.header("X-Request-Id").value_or("")))
          << "error bodies carry requestId, equal to X-Request-Id";
    }
  }
  EXPECT_EQ(ids.size(), responses.size()) << "request ids must be distinct";
}

TEST_F(Responses, DateHeaderIsTheServersClock) {
  Start();
  const std::string license = NewLicense(1);
  for (const HttpResponse& r : {Status(license), Status(RandomUuidV4())}) {
    const std::optional<std::int64_t> t = DateSeconds(r);
    ASSERT_TRUE(t) << "no IMF-fixdate Date header\n" << r.Describe();
    EXPECT_LE(std::llabs(*t - UnixNow()), 5) << r.Describe();
  }
}

}  // namespace
}  // namespace bb
