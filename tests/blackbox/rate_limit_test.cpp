// docs/protocol.md §11: the per-IP and per-license-key buckets.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/fixture.h"

namespace bb {
namespace {

class RateLimits : public BlackboxTest {};

TEST_F(RateLimits, IpBucketCountsEveryRequestThatReachesIt) {
  Start(WithRateLimits("2/1m", "off"));
  const std::string license = NewLicense(1);
  HttpRequest unsigned_req;
  unsigned_req.target = Endpoint("status");
  unsigned_req.body = Body(license);
  unsigned_req.Set("Content-Type", "application/json");
  EXPECT_BAD_SIGNATURE(Send(unsigned_req), "missing_header");
  EXPECT_API_ERROR(Call("status", "{"), 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_RATE_LIMITED(Status(license), "ip", 60);
}

TEST_F(RateLimits, KeyBucketIsPerLicenseKey) {
  Start(WithRateLimits("off", "2/1m"));
  const std::string first = NewLicense(1);
  const std::string second = NewLicense(1);
  EXPECT_OK(Status(first));
  EXPECT_OK(Activate(first, "machine-0001"));
  EXPECT_RATE_LIMITED(Heartbeat(first, "machine-0001"), "key", 60);
  EXPECT_OK(Status(second));
  EXPECT_OK(Status(second));
  EXPECT_RATE_LIMITED(Status(second), "key", 60);
}

TEST_F(RateLimits, KeyBucketIgnoresUnsignedAndMalformedRequests) {
  Start(WithRateLimits("off", "1/1m"));
  const std::string license = NewLicense(1);
  SignOptions wrong;
  wrong.secret = "wrong";
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, wrong), "signature_mismatch");
  EXPECT_API_ERROR(Call("heartbeat", Body(license, "short")), 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_OK(Status(license));
  EXPECT_RATE_LIMITED(Status(license), "key", 60);
}

TEST_F(RateLimits, KeyBucketCountsUppercaseAndLowercaseKeyAsOne) {
  Start(WithRateLimits("off", "1/1m"));
  const std::string license = NewLicense(1);
  std::string upper = license;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_OK(Status(license));
  EXPECT_RATE_LIMITED(Status(upper), "key", 60);
}

TEST_F(RateLimits, BucketRefillsAfterRetryAfter) {
  Start(WithRateLimits("off", "1/1s"));
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  const HttpResponse limited = Status(license);
  EXPECT_RATE_LIMITED(limited, "key", 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  HttpResponse r;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r = Status(license);
  } while (r.status == 429 && std::chrono::steady_clock::now() < deadline);
  EXPECT_OK(r);
}

TEST_F(RateLimits, OffDisablesBothBuckets) {
  Start(WithRateLimits("off", "off"));
  const std::string license = NewLicense(1);
  for (int i = 0; i < 150; ++i) {
    const HttpResponse r = Status(license);
    ASSERT_EQ(r.status, 200) << "request " << i << "\n" << r.Describe();
  }
}

}  // namespace
}  // namespace bb
