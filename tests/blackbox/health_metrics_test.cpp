// /healthz, /readyz and /metrics on the admin listener, apart from the public API.
#include <gtest/gtest.h>

#include <regex>

#include "support/fixture.h"

namespace bb {
namespace {

class HealthMetrics : public BlackboxTest {};

TEST_F(HealthMetrics, HealthAndReadinessAnswerOnTheAdminAddress) {
  Start();
  EXPECT_NE(admin_port(), port());
  const HttpResponse health = AdminGet("/healthz");
  EXPECT_EQ(health.status, 200) << health.Describe();
  EXPECT_TRUE(Bool(BodyJson(health), "ok"));
  const HttpResponse ready = AdminGet("/readyz");
  EXPECT_EQ(ready.status, 200) << ready.Describe();
  EXPECT_ROUTE_ERROR(AdminGet("/nope"), 404, "NOT_FOUND");
}

TEST_F(HealthMetrics, OperatorEndpointsAreNotOnThePublicPort) {
  Start();
  for (const char* path : {"/metrics", "/healthz", "/readyz"}) {
    HttpRequest r;
    r.method = "GET";
    r.target = path;
    EXPECT_NE(Send(r).status, 200) << path;
  }
}

TEST_F(HealthMetrics, MetricsCountRequestsByRouteAndCodeWithLatency) {
  Start(WithRateLimits("off", "2/1m"));
  const std::string license = NewLicense(1);
  const std::string machine = NewMachineId();
  ASSERT_OK(Activate(license, machine));
  ASSERT_OK(Status(license));
  EXPECT_RATE_LIMITED(Status(license), "key", 60);
  EXPECT_API_ERROR(Status("2f4b7b4e-8a9c-4c3d-9e7f-0a1b2c3d4e5f"), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
  const HttpResponse m = AdminGet("/metrics");
  ASSERT_EQ(m.status, 200) << m.Describe();
  EXPECT_NE(m.header("Content-Type").value_or("").find("text/plain"), std::string::npos);
  const std::string& text = m.body;
  EXPECT_EQ(MetricSample(text, R"(licensed_http_requests_total{route="activate",code="200"})"), 1);
  EXPECT_EQ(MetricSample(text, R"(licensed_http_requests_total{route="status",code="200"})"), 1);
  EXPECT_EQ(MetricSample(text, R"(licensed_http_requests_total{route="status",code="429"})"), 1);
  EXPECT_EQ(MetricSample(text, R"(licensed_http_requests_total{route="status",code="404"})"), 1);
  EXPECT_EQ(MetricSample(text, R"(licensed_rate_limited_total{bucket="key"})"), 1);
  EXPECT_EQ(MetricSample(text, R"(licensed_rate_limited_total{bucket="ip"})"), 0);
  EXPECT_EQ(MetricSample(text, R"(licensed_http_request_duration_seconds_count{route="status"})"),
            3);
  EXPECT_EQ(MetricSample(
                text, R"(licensed_http_request_duration_seconds_bucket{route="status",le="+Inf"})"),
            3);
  EXPECT_GE(MetricSample(text, "licensed_store_queue_depth"), 0);
  if (on_redis()) {
    // Nonces are in Redis; what is counted is Redis failing, and it has not.
    EXPECT_EQ(MetricSample(text, "licensed_nonce_store_entries"), -1);
    EXPECT_EQ(MetricSample(text, "licensed_nonce_store_bytes"), -1);
    EXPECT_EQ(MetricSample(text, "licensed_redis_nonce_unavailable_total"), 0);
    EXPECT_EQ(MetricSample(text, "licensed_redis_rate_limit_fail_open_total"), 0);
  } else {
    // Three status requests and one activation each left a nonce.
    EXPECT_EQ(MetricSample(text, "licensed_nonce_store_entries"), 4);
    // Their shards' first tables, 16 slots of 8 bytes each: at least one, at most four.
    EXPECT_GE(MetricSample(text, "licensed_nonce_store_bytes"), 128);
    EXPECT_LE(MetricSample(text, "licensed_nonce_store_bytes"), 4 * 128);
  }
  // Every sample line is NAME{labels} VALUE or NAME VALUE.
  const std::regex sample(R"([a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+)");
  size_t pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.empty() || line[0] == '#') continue;
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
  }
}

TEST_F(HealthMetrics, AdminListenerCanBeTurnedOff) {
  ServerOptions options;
  options.args = {"--admin-listen", "off"};
  Start(options);
  EXPECT_NE(server().ready_line().find("health and metrics on off"), std::string::npos)
      << server().ready_line();
}

}  // namespace
}  // namespace bb
