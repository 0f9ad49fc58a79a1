// docs/protocol.md §5, the error table: one test per code 1700-1707, each checking the
// members that code carries besides ok/error/code/message/requestId.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class Errors : public BlackboxTest {};

TEST_F(Errors, Code1700ReasonMissingHeader) {
  Start();
  const std::string license = NewLicense(1);
  for (const char* header :
       {"X-License-Key-Id", "X-License-Timestamp", "X-License-Nonce", "X-License-Signature"}) {
    SCOPED_TRACE(header);
    HttpRequest req = Signed("status", Body(license));
    req.Remove(header);
    EXPECT_BAD_SIGNATURE(Send(req), "missing_header");
  }
  HttpRequest none = Signed("status", Body(license));
  for (const char* header :
       {"X-License-Key-Id", "X-License-Timestamp", "X-License-Nonce", "X-License-Signature"}) {
    none.Remove(header);
  }
  EXPECT_BAD_SIGNATURE(Send(none), "missing_header");
}

TEST_F(Errors, Code1700ReasonMalformedHeader) {
  Start();
  const std::string license = NewLicense(1);
  const std::string now = std::to_string(UnixNow());
  const std::string hex64 = std::string(64, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"X-License-Key-Id", "plugin 2026"},
      {"X-License-Key-Id", "plugin/2026"},
      {"X-License-Key-Id", std::string(65, 'k')},
      {"X-License-Timestamp", "0" + now},
      {"X-License-Timestamp", "+" + now},
      {"X-License-Timestamp", "-" + now},
      {"X-License-Timestamp", now + ".0"},
      {"X-License-Timestamp", now + "x"},
      {"X-License-Timestamp", "1e9"},
      {"X-License-Nonce", std::string(15, 'n')},
      {"X-License-Nonce", std::string(129, 'n')},
      {"X-License-Nonce", "nonce.with.dots.0123"},
      {"X-License-Nonce", "nonce with spaces 0123"},
      {"X-License-Signature", hex64},
      {"X-License-Signature", "v2=" + hex64},
      {"X-License-Signature", "v1=" + std::string(63, 'a')},
      {"X-License-Signature", "v1=" + std::string(65, 'a')},
      {"X-License-Signature", "v1=" + std::string(64, 'g')},
  };
  for (const auto& [header, value] : cases) {
    SCOPED_TRACE(header + ": " + value);
    HttpRequest req = Signed("status", Body(license));
    req.Set(header, value);
    EXPECT_BAD_SIGNATURE(Send(req), "malformed_header");
  }
}

TEST_F(Errors, Code1700ReasonUnknownKey) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), SigningKey{"nobody", kPluginKey.secret}),
                       "unknown_key");
  // A configured secret under another id is still an unknown key.
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), SigningKey{"ci", kPluginKey.secret}),
                       "unknown_key");
}

TEST_F(Errors, Code1700ReasonSignatureMismatch) {
  Start();
  const std::string license = NewLicense(1);
  {
    SCOPED_TRACE("wrong secret");
    SignOptions o;
    o.secret = "not the secret";
    EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, o), "signature_mismatch");
  }
  {
    SCOPED_TRACE("body changed after signing");
    SignOptions o;
    o.signed_body = Body(RandomUuidV4());
    EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, o), "signature_mismatch");
  }
  {
    SCOPED_TRACE("signed for another path");
    SignOptions o;
    o.signed_path = Endpoint("activate");
    EXPECT_BAD_SIGNATURE(Call("status", Body(license), kPluginKey, o), "signature_mismatch");
  }
  {
    SCOPED_TRACE("timestamp header changed after signing");
    HttpRequest req = Signed("status", Body(license));
    // Ahead rather than behind: a fresh server refuses anything dated before its start.
    req.Set("X-License-Timestamp", std::to_string(UnixNow() + 2));
    EXPECT_BAD_SIGNATURE(Send(req), "signature_mismatch");
  }
  {
    SCOPED_TRACE("nonce header changed after signing");
    HttpRequest req = Signed("status", Body(license));
    req.Set("X-License-Nonce", RandomNonce());
    EXPECT_BAD_SIGNATURE(Send(req), "signature_mismatch");
  }
}

TEST_F(Errors, Code1700ReasonNonceReused) {
  Start();
  const std::string license = NewLicense(1);
  const HttpRequest req = Signed("status", Body(license));
  EXPECT_OK(Send(req));
  EXPECT_BAD_SIGNATURE(Send(req), "nonce_reused");
  // Same nonce, different request: still reused.
  SignOptions o;
  o.nonce = req.Get("X-License-Nonce");
  EXPECT_BAD_SIGNATURE(Call("heartbeat", Body(license, "machine-0001"), kPluginKey, o),
                       "nonce_reused");
}

TEST_F(Errors, Code1701StaleTimestampCarriesServerTime) {
  Start();
  const std::string license = NewLicense(1);
  const std::int64_t before = UnixNow();
  SignOptions o;
  o.timestamp = before - 1000;
  const HttpResponse r = Call("status", Body(license), kPluginKey, o);
  const std::int64_t after = UnixNow();
  EXPECT_API_ERROR(r, 401, 1701, "STALE_TIMESTAMP");
  const json::value v = BodyJson(r);
  ASSERT_TRUE(Has(v, "serverTime")) << r.Describe();
  const std::int64_t server_time = Int(v, "serverTime");
  EXPECT_GE(server_time, before - 1);
  EXPECT_LE(server_time, after + 1);
}

TEST_F(Errors, Code1702MalformedBodyCarriesField) {
  Start();
  const std::string license = NewLicense(1);
  {
    const HttpResponse r = Call("activate", Body(license));
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), "machineId") << r.Describe();
  }
  {
    const HttpResponse r = Call("activate", Body("not-a-license-key", "machine-0001"));
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), "licenseKey") << r.Describe();
  }
  {
    const HttpResponse r = Call("activate", Body(license, "machine-0001", std::string(101, 'n')));
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), "machineName") << r.Describe();
  }
}

TEST_F(Errors, Code1702BodyLargerThan16KiBIs413) {
  Start();
  const std::string license = NewLicense(1);
  const std::string body = PaddedBody(license, 16 * 1024 + 1);
  ASSERT_EQ(body.size(), 16385u);
  const HttpResponse r = Call("activate", body);
  EXPECT_API_ERROR(r, 413, 1702, "LICENSE_API_MALFORMED");
}

TEST_F(Errors, Code1703UnknownLicenseKeyOnAllEndpoints) {
  Start();
  const std::string unknown = RandomUuidV4();
  EXPECT_API_ERROR(Activate(unknown, "machine-0001"), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Heartbeat(unknown, "machine-0001"), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Status(unknown, "machine-0001"), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Status(unknown), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Deactivate(unknown, "machine-0001"), 404, 1703, "LICENSE_API_NOT_FOUND");
}

TEST_F(Errors, Code1704InactiveCarriesStatus) {
  Start();
  const std::string license = NewLicense(1);
  admin().SetStatus(license, "SUSPENDED");
  const HttpResponse r = Activate(license, "machine-0001");
  EXPECT_API_ERROR(r, 403, 1704, "LICENSE_API_INACTIVE");
  EXPECT_EQ(Str(BodyJson(r), "status"), "SUSPENDED") << r.Describe();
}

TEST_F(Errors, Code1705LimitReachedCarriesActivationsMaxDashboardUrl) {
  ServerOptions o;
  o.args = {"--dashboard-url", "https://example.com/account/activations"};
  Start(o);
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001"));
  ASSERT_OK(Activate(license, "machine-0002"));
  const HttpResponse r = Activate(license, "machine-0003");
  EXPECT_API_ERROR(r, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  const json::value v = BodyJson(r);
  EXPECT_EQ(Int(v, "activations"), 2) << r.Describe();
  EXPECT_EQ(Int(v, "max"), 2) << r.Describe();
  // A vendor's own page: the URL exactly as configured (no sign-in link: that page cannot
  // take one).
  EXPECT_EQ(Str(v, "dashboardUrl"), "https://example.com/account/activations") << r.Describe();
}

TEST_F(Errors, Code1705DashboardUrlOfThisServersDashboardCarriesAOneTimeSignInLink) {
  ServerOptions o;
  o.args = {"--dashboard-url", "https://licenses.example.com/dashboard"};
  Start(o);
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));
  const HttpResponse r = Activate(license, "machine-0002");
  EXPECT_API_ERROR(r, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  ExpectSignInLink(Str(BodyJson(r), "dashboardUrl"), "https://licenses.example.com/dashboard");
}

TEST_F(Errors, Code1705DashboardUrlIsNullWhenNotConfigured) {
  Start();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));
  const HttpResponse r = Activate(license, "machine-0002");
  EXPECT_API_ERROR(r, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  const json::value v = BodyJson(r);
  EXPECT_EQ(Int(v, "activations"), 1) << r.Describe();
  EXPECT_EQ(Int(v, "max"), 1) << r.Describe();
  EXPECT_TRUE(IsNull(v, "dashboardUrl")) << "dashboardUrl must be present and null\n"
                                         << r.Describe();
}

TEST_F(Errors, Code1706IpBucketCarriesBucketRetryAfterAndHeader) {
  Start(WithRateLimits("1/1m", "off"));
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  EXPECT_RATE_LIMITED(Status(license), "ip", 60);
}

TEST_F(Errors, Code1706KeyBucketCarriesBucketRetryAfterAndHeader) {
  Start(WithRateLimits("off", "1/1m"));
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
  EXPECT_RATE_LIMITED(Status(license), "key", 60);
}

TEST_F(Errors, Code1707MachineNotActivated) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_API_ERROR(Heartbeat(license, "machine-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_API_ERROR(Deactivate(license, "machine-0001"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
}

}  // namespace
}  // namespace bb
