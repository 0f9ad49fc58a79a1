// docs/protocol.md §3.5, "Order of checks": for each pair of neighbouring steps, a request that
// fails both gets the earlier step's answer. Plus the nonce consumption rule: a request
// that passes step 6 consumes its nonce, whatever happens after.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class OrderOfChecks : public BlackboxTest {};

constexpr std::size_t kTooLarge = 20 * 1024;

HttpRequest Unsigned(std::string target, std::string body) {
  HttpRequest req;
  req.target = std::move(target);
  req.body = std::move(body);
  req.Set("Content-Type", "application/json");
  return req;
}

TEST_F(OrderOfChecks, RouteBeforeSize) {
  Start();
  const std::string license = NewLicense(1);
  const std::string big = PaddedBody(license, kTooLarge);
  EXPECT_ROUTE_ERROR(Send(SignedRequest(kPluginKey, "/api/v1/license/nope", big)), 404,
                     "NOT_FOUND");
  SignOptions put;
  put.method = "PUT";
  const HttpResponse r = Send(SignedRequest(kPluginKey, Endpoint("activate"), big, put));
  EXPECT_ROUTE_ERROR(r, 405, "METHOD_NOT_ALLOWED");
  EXPECT_EQ(r.header("Allow"), "POST") << r.Describe();
}

TEST_F(OrderOfChecks, SizeBeforeIpBucket) {
  Start(WithRateLimits("1/1m", "off"));
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));  // empties the ip bucket
  EXPECT_API_ERROR(Call("activate", PaddedBody(license, kTooLarge)), 413, 1702,
                   "LICENSE_API_MALFORMED");
  EXPECT_RATE_LIMITED(Status(license), "ip", 60);
}

TEST_F(OrderOfChecks, RouteBeforeIpBucket) {
  Start(WithRateLimits("1/1m", "off"));
  const std::string license = NewLicense(1);
  // Requests stopped at step 1 never reach the ip bucket, so they do not drain it.
  for (int i = 0; i < 3; ++i) {
    EXPECT_ROUTE_ERROR(Send(SignedRequest(kPluginKey, "/api/v1/license/nope", Body(license))), 404,
                       "NOT_FOUND");
  }
  EXPECT_OK(Status(license));
  EXPECT_ROUTE_ERROR(Send(SignedRequest(kPluginKey, "/api/v1/license/nope", Body(license))), 404,
                     "NOT_FOUND");
  EXPECT_RATE_LIMITED(Status(license), "ip", 60);
}

TEST_F(OrderOfChecks, SizeBeforeSignature) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(Send(Unsigned(Endpoint("activate"), PaddedBody(license, kTooLarge))), 413, 1702,
                   "LICENSE_API_MALFORMED");
}

TEST_F(OrderOfChecks, IpBucketBeforeSignature) {
  Start(WithRateLimits("1/1m", "off"));
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  EXPECT_RATE_LIMITED(Send(Unsigned(Endpoint("status"), Body(license))), "ip", 60);
  SignOptions wrong;
  wrong.secret = "wrong";
  EXPECT_RATE_LIMITED(Call("status", Body(license), kPluginKey, wrong), "ip", 60);
}

TEST_F(OrderOfChecks, MissingHeaderBeforeTimestamp) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions stale;
  stale.timestamp = UnixNow() - 3600;
  HttpRequest req = Signed("status", Body(license), kPluginKey, stale);
  req.Remove("X-License-Nonce");
  EXPECT_BAD_SIGNATURE(Send(req), "missing_header");
}

TEST_F(OrderOfChecks, MalformedHeaderBeforeTimestamp) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions stale;
  stale.timestamp = UnixNow() - 3600;
  stale.nonce = "short";
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, stale), "malformed_header");
}

TEST_F(OrderOfChecks, UnknownKeyBeforeTimestamp) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions stale;
  stale.timestamp = UnixNow() - 3600;
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), SigningKey{"nobody", "x"}, stale),
                       "unknown_key");
}

TEST_F(OrderOfChecks, TimestampBeforeSignatureMismatch) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.timestamp = UnixNow() - 3600;
  o.secret = "wrong";
  EXPECT_API_ERROR(Call("status", Body(license), kPluginKey, o), 401, 1701, "STALE_TIMESTAMP");
}

TEST_F(OrderOfChecks, StaleTimestampDoesNotConsumeNonce) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.nonce = RandomNonce();
  o.timestamp = UnixNow() - 3600;
  EXPECT_API_ERROR(Call("status", Body(license), kPluginKey, o), 401, 1701, "STALE_TIMESTAMP");
  o.timestamp.reset();
  EXPECT_OK(Call("status", Body(license), kPluginKey, o));
}

TEST_F(OrderOfChecks, SignatureBeforeNonce) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.nonce = RandomNonce();
  EXPECT_OK(Call("status", Body(license), kPluginKey, o));
  o.secret = "wrong";
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, o), "signature_mismatch");
}

TEST_F(OrderOfChecks, FailedSignatureDoesNotConsumeNonce) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.nonce = RandomNonce();
  o.secret = "wrong";
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, o), "signature_mismatch");
  o.secret.reset();
  EXPECT_OK(Call("status", Body(license), kPluginKey, o));
}

TEST_F(OrderOfChecks, SignatureBeforeSchema) {
  Start();
  SignOptions o;
  o.secret = "wrong";
  EXPECT_BAD_SIGNATURE(Call("activate", "{not json", kPluginKey, o), "signature_mismatch");
  o.secret.reset();
  o.content_type = "text/plain";
  o.timestamp = UnixNow();
  HttpRequest req = Signed("activate", "{not json", kPluginKey, o);
  req.Set("X-License-Signature", "v1=" + std::string(64, '0'));
  EXPECT_BAD_SIGNATURE(Send(req), "signature_mismatch");
}

TEST_F(OrderOfChecks, NonceBeforeSchema) {
  Start();
  SignOptions o;
  o.nonce = RandomNonce();
  const HttpResponse first = Call("activate", "{not json", kPluginKey, o);
  EXPECT_API_ERROR(first, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_BAD_SIGNATURE(Call("activate", "[1, 2, 3]", kPluginKey, o), "nonce_reused");
}

TEST_F(OrderOfChecks, NonceConsumedEvenWhenBodyRejected) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.nonce = RandomNonce();
  EXPECT_API_ERROR(Call("activate", Body(license), kPluginKey, o), 400, 1702,
                   "LICENSE_API_MALFORMED");
  EXPECT_BAD_SIGNATURE(Call("activate", Body(license, "machine-0001"), kPluginKey, o),
                       "nonce_reused");
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 0u);
}

TEST_F(OrderOfChecks, NonceConsumedEvenWhenOperationRefused) {
  Start();
  const std::string license = NewLicense(1);
  SignOptions o;
  o.nonce = RandomNonce();
  EXPECT_API_ERROR(Call("heartbeat", Body(license, "machine-0001"), kPluginKey, o), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_BAD_SIGNATURE(Call("activate", Body(license, "machine-0001"), kPluginKey, o),
                       "nonce_reused");
}

TEST_F(OrderOfChecks, SchemaBeforeKeyBucket) {
  Start(WithRateLimits("off", "1/1m"));
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));  // empties this license's bucket
  const HttpResponse r = Call("heartbeat", Body(license, "short"));
  EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(r), "field"), "machineId") << r.Describe();
  EXPECT_RATE_LIMITED(Status(license), "key", 60);
}

TEST_F(OrderOfChecks, KeyBucketBeforeOperation) {
  Start(WithRateLimits("off", "1/1m"));
  const std::string unknown = RandomUuidV4();
  EXPECT_API_ERROR(Status(unknown), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_RATE_LIMITED(Status(unknown), "key", 60);
  const std::string license = NewLicense(0);
  ASSERT_EQ(Activate(license, "machine-0001").status, 409);
  EXPECT_RATE_LIMITED(Activate(license, "machine-0001"), "key", 60);
}

}  // namespace
}  // namespace bb
