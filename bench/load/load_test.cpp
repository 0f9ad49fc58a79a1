// Unit tests of the load generator's pieces that are not the network: the histogram's
// bounds, the signer against the server's reference signer, bodies, and arguments.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <set>

#include "auth/request_signature.h"
#include "core/request_body.h"
#include "load/bench_args.h"
#include "load/latency_histogram.h"
#include "load/request_signer.h"
#include "load/scenario.h"

namespace licensed::bench {
namespace {

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.percentile(50), 50u);
  EXPECT_EQ(h.percentile(99), 99u);
  EXPECT_EQ(h.percentile(100), 100u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(LatencyHistogram, BucketsHoldTheirValueWithinOneSixtyFourth) {
  for (uint64_t v : std::initializer_list<uint64_t>{128, 129, 1000, 123'456, 5'000'000, 1ull << 40,
                                                    (1ull << 63) + 12345, UINT64_MAX}) {
    const size_t b = LatencyHistogram::bucket_of(v);
    const uint64_t high = LatencyHistogram::highest_in_bucket(b);
    EXPECT_GE(high, v) << v;
    EXPECT_LE(static_cast<double>(high - v), static_cast<double>(v) / 64.0) << v;
    if (b > 0) {
      EXPECT_LT(LatencyHistogram::highest_in_bucket(b - 1), v) << v;
    }
  }
}

TEST(LatencyHistogram, PercentilesOfMergedHistogramsAreCappedByTheMaximum) {
  LatencyHistogram a, b;
  for (int i = 0; i < 990; ++i) a.record(1'000'000);  // 1 ms
  for (int i = 0; i < 10; ++i) b.record(9'000'000);   // 9 ms
  a.merge(b);
  EXPECT_EQ(a.count(), 1000u);
  EXPECT_NEAR(static_cast<double>(a.percentile(50)), 1e6, 1e6 / 64);
  EXPECT_NEAR(static_cast<double>(a.percentile(99)), 1e6, 1e6 / 64);
  EXPECT_EQ(a.percentile(99.9), 9'000'000u);
  EXPECT_EQ(a.max(), 9'000'000u);
  EXPECT_EQ(LatencyHistogram().percentile(99), 0u);
}

TEST(RequestSigner, MatchesTheReferenceSigner) {
  RequestSigner signer("bench", "s3cret");
  const std::string body_hash = sha256_hex("{}");
  SignedHeaders h, again;
  ASSERT_TRUE(signer.sign("POST", "/api/v1/license/status", body_hash, 1'795'000'000, h));
  ASSERT_TRUE(signer.sign("POST", "/api/v1/license/status", body_hash, 1'795'000'000, again));
  EXPECT_EQ(h.key_id, "bench");
  EXPECT_EQ(h.timestamp, "1795000000");
  EXPECT_EQ(h.nonce.size(), 32u);
  EXPECT_NE(h.nonce, again.nonce);
  EXPECT_EQ(h.signature, sign_request("s3cret", {"POST", "/api/v1/license/status", "bench",
                                                 h.timestamp, h.nonce, body_hash}));
}

TEST(Scenario, BodiesPassTheServersSchema) {
  const std::vector<std::string> keys = {"6f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f"};
  for (const auto scenario : {Scenario::kStatus, Scenario::kHeartbeat, Scenario::kActivateRepeat,
                              Scenario::kActivateNew, Scenario::kActivateHot, Scenario::kMix}) {
    RequestSource source(scenario, keys, 3, 64, "abcd1234");
    for (int i = 0; i < 50; ++i) {
      const PlannedRequest& r = source.next();
      EXPECT_TRUE(parse_license_request(r.endpoint, r.body).ok()) << r.body;
      EXPECT_EQ(r.body_sha256_hex, sha256_hex(r.body));
    }
  }
}

TEST(Scenario, ActivateNewSendsDistinctMachinesAcrossLicenses) {
  const std::vector<std::string> keys = {"6f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f",
                                         "7f1c1b1e-8a57-4d5c-9b1e-0a2b3c4d5e6f"};
  RequestSource source(Scenario::kActivateNew, keys, 0, 1, "run");
  std::set<std::string> machines, licenses;
  for (int i = 0; i < 10; ++i) {
    const auto body = boost::json::parse(source.next().body).as_object();
    machines.insert(std::string(body.at("machineId").as_string()));
    licenses.insert(std::string(body.at("licenseKey").as_string()));
  }
  EXPECT_EQ(machines.size(), 10u);
  EXPECT_EQ(licenses.size(), 2u);
  EXPECT_FALSE(source.preparation().has_value());
  EXPECT_TRUE(RequestSource(Scenario::kHeartbeat, keys, 0, 1, "run").preparation().has_value());
}

TEST(Scenario, SeedPlans) {
  EXPECT_EQ(seed_plan(Scenario::kStatus, 64, 0, 4).licenses, 64u);
  EXPECT_EQ(seed_plan(Scenario::kActivateHot, 64, 0, 4).licenses, 1u);
  EXPECT_EQ(seed_plan(Scenario::kActivateHot, 64, 0, 4).max, 4);
  EXPECT_EQ(seed_plan(Scenario::kActivateNew, 64, 0, 4).licenses, 1000u);
  EXPECT_EQ(seed_plan(Scenario::kActivateNew, 64, 10, 4).licenses, 10u);
  EXPECT_EQ(parse_scenario("activate-hot"), Scenario::kActivateHot);
  EXPECT_FALSE(parse_scenario("nope"));
}

TEST(BenchArgs, BaseUrls) {
  auto t = parse_base_url("http://127.0.0.1:8080");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->host, "127.0.0.1");
  EXPECT_EQ(t->port, 8080);
  EXPECT_EQ(t->path_prefix, "");
  t = parse_base_url("http://localhost/licensing/");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->port, 80);
  EXPECT_EQ(t->path_prefix, "/licensing");
  t = parse_base_url("http://[::1]:9000/x");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->host, "::1");
  EXPECT_EQ(t->port, 9000);
  EXPECT_FALSE(parse_base_url("https://example.com"));
  EXPECT_FALSE(parse_base_url("http://host:0"));
  EXPECT_FALSE(parse_base_url("http://:80"));
}

TEST(BenchArgs, Durations) {
  EXPECT_EQ(parse_duration("10s"), std::chrono::seconds(10));
  EXPECT_EQ(parse_duration("500ms"), std::chrono::milliseconds(500));
  EXPECT_EQ(parse_duration("2m"), std::chrono::minutes(2));
  EXPECT_EQ(parse_duration("1.5"), std::chrono::milliseconds(1500));
  EXPECT_FALSE(parse_duration("-1s"));
  EXPECT_FALSE(parse_duration("s"));
  EXPECT_FALSE(parse_duration("ten"));
}

}  // namespace
}  // namespace licensed::bench
