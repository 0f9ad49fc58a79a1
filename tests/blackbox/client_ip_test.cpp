// docs/protocol.md §11: the client IP is the socket peer unless the peer is a trusted proxy,
// in which case it is the last untrusted address of X-Forwarded-For. It is what the ip
// bucket counts and what audit records show.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class ClientIp : public BlackboxTest {
 protected:
  HttpResponse ActivateVia(const std::string& license, const std::string& machine,
                           const std::string& forwarded_for) {
    HttpRequest req = Signed("activate", Body(license, machine));
    req.Set("X-Forwarded-For", forwarded_for);
    return Send(req);
  }
  // The test client (127.0.0.1) is the trusted proxy; an ip limit of 1 a minute.
  void StartBehindTrustedProxy() {
    const auto config = dir().WriteFile("licensed.toml", "trusted_proxies = [\"127.0.0.1/32\"]\n");
    ServerOptions o = WithRateLimits("1/1m", "off");
    o.args.insert(o.args.end(), {"--config", config.string()});
    Start(o);
  }
  std::string AuditIp(const std::string& license, const std::string& machine) {
    for (const auto& rec : AuditRecords(license, "license.activate")) {
      if (Str(rec, "machineId") == machine) return Str(rec, "ip");
    }
    return "<no record>";
  }
};

TEST_F(ClientIp, XForwardedForIsIgnoredWithoutATrustedProxy) {
  Start(WithRateLimits("1/1m", "off"));
  const std::string license = NewLicense(3);
  ASSERT_OK(ActivateVia(license, "machine-0001", "203.0.113.9"));
  EXPECT_EQ(AuditIp(license, "machine-0001"), "127.0.0.1");
  // Another forwarded address does not buy a fresh ip bucket.
  EXPECT_RATE_LIMITED(ActivateVia(license, "machine-0002", "198.51.100.7"), "ip", 60);
}

TEST_F(ClientIp, TrustedProxyUsesTheLastUntrustedForwardedAddress) {
  StartBehindTrustedProxy();
  const std::string license = NewLicense(5);
  ASSERT_OK(ActivateVia(license, "machine-0001", "198.51.100.1, 203.0.113.9, 127.0.0.1"));
  EXPECT_EQ(AuditIp(license, "machine-0001"), "203.0.113.9");
  // Each client address has its own bucket.
  EXPECT_RATE_LIMITED(ActivateVia(license, "machine-0002", "203.0.113.9"), "ip", 60);
  ASSERT_OK(ActivateVia(license, "machine-0003", "198.51.100.7"));
  EXPECT_EQ(AuditIp(license, "machine-0003"), "198.51.100.7");
}

// RFC 9110 section 5.3: several X-Forwarded-For lines are one list, in order. A proxy
// that adds a line of its own (HAProxy does) after the client's forged one must not let
// the forged line decide the address, nor buy a fresh ip bucket.
TEST_F(ClientIp, SeveralForwardedForLinesAreReadAsOneListInOrder) {
  StartBehindTrustedProxy();
  const std::string license = NewLicense(5);
  auto via_two_lines = [&](const std::string& machine, const std::string& forged) {
    HttpRequest req = Signed("activate", Body(license, machine));
    req.headers.push_back({"X-Forwarded-For", forged});
    req.headers.push_back({"X-Forwarded-For", "203.0.113.9"});  // the proxy's own line
    return Send(req);
  };
  ASSERT_OK(via_two_lines("machine-0001", "198.51.100.1"));
  EXPECT_EQ(AuditIp(license, "machine-0001"), "203.0.113.9");
  EXPECT_RATE_LIMITED(via_two_lines("machine-0002", "198.51.100.2"), "ip", 60);
}

}  // namespace
}  // namespace bb
