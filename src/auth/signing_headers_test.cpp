// The signing headers as the server parses them (docs/protocol.md §3: step 4 of the checks).
#include "auth/signing_headers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "auth/request_signature.h"

namespace licensed {
namespace {

TEST(SigningHeaders, MissingHeaderIsReportedBeforeMalformedOne) {
  RawSigningHeaders raw{"plugin", std::nullopt, "x", "nope"};
  auto r = parse_signing_headers(raw);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().extra.at("reason").as_string(), "missing_header");
}

TEST(SigningHeaders, RejectsMalformedValues) {
  const std::string sig = "v1=" + std::string(64, 'A');
  const std::string nonce(16, 'n');
  auto reason = [&](RawSigningHeaders raw) {
    auto r = parse_signing_headers(raw);
    return r.ok() ? std::string("ok") : std::string(r.error().extra.at("reason").as_string());
  };
  EXPECT_EQ(reason({"k", "1795000000", nonce, sig}), "ok");
  EXPECT_EQ(reason({"k", "0", nonce, sig}), "ok");
  EXPECT_EQ(reason({"", "1795000000", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({std::string(65, 'k'), "1795000000", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({"k/1", "1795000000", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "01795000000", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "+1795000000", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000.5", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "", nonce, sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000", std::string(15, 'n'), sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000", std::string(129, 'n'), sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000", std::string(16, '.'), sig}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000", nonce, "v2=" + std::string(64, 'a')}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000", nonce, "v1=" + std::string(63, 'a')}), "malformed_header");
  EXPECT_EQ(reason({"k", "1795000000", nonce, "v1=" + std::string(64, 'g')}), "malformed_header");
}

// Found by fuzz/signing_headers_fuzzer: a 19-digit timestamp was refused as malformed,
// though the spec allows any decimal without sign or leading zeros; it is outside the
// window (1701), and the client needs that answer's serverTime to fix its clock.
TEST(SigningHeaders, TimestampsOfAnyLengthParseAndSaturate) {
  const std::string sig = "v1=" + std::string(64, 'a');
  const std::string nonce(16, 'n');
  auto parsed = [&](const std::string& ts) {
    auto r = parse_signing_headers({"k", ts, nonce, sig});
    EXPECT_TRUE(r.ok()) << ts;
    return r.ok() ? r->timestamp : -1;
  };
  EXPECT_EQ(parsed("999999999999999999"), 999'999'999'999'999'999);
  EXPECT_EQ(parsed("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parsed("9223372036854775808"), INT64_MAX);
  EXPECT_EQ(parsed(std::string(300, '9')), INT64_MAX);
  auto leading_zero = parse_signing_headers({"k", "0" + std::string(30, '9'), nonce, sig});
  EXPECT_FALSE(leading_zero.ok());
}

TEST(SigningHeaders, SignatureHexIsCaseInsensitive) {
  const std::string nonce(16, 'n');
  auto lower = parse_signing_headers({"k", "1", nonce, "v1=" + std::string(64, 'a')});
  auto upper = parse_signing_headers({"k", "1", nonce, "v1=" + std::string(64, 'A')});
  ASSERT_TRUE(lower.ok());
  ASSERT_TRUE(upper.ok());
  EXPECT_TRUE(digests_equal(lower->signature, upper->signature));
}

}  // namespace
}  // namespace licensed
