#include "auth/store_signatures.h"

#include <gtest/gtest.h>

#include "core/hex.h"

namespace licensed {
namespace {

constexpr int64_t kT = 1'780'000'000;
constexpr UnixMillis kNow = kT * 1000;
constexpr std::string_view kBody = R"({"id":"evt_1"})";
// HMAC-SHA256("whsec_test_secret", "1780000000." + kBody), computed apart from this code
// (Python's hmac module).
constexpr std::string_view kKnownV1 =
    "a41c819342c4e1838339e12814a661f63c8efe893735feeac134d6d164daf72f";

std::string sign(std::string_view secret, std::string_view t, std::string_view body) {
  const HmacSha256 hmac(secret);
  Sha256Digest d{};
  EXPECT_TRUE(hmac.compute(std::string(t) + "." + std::string(body), d));
  return to_hex(d.data(), d.size());
}

TEST(StripeSignature, AKnownAnswerVerifies) {
  const std::string header = "t=1780000000,v1=" + std::string(kKnownV1);
  EXPECT_EQ(sign("whsec_test_secret", "1780000000", kBody), kKnownV1);
  EXPECT_TRUE(verify_stripe_signature(header, kBody, {"whsec_test_secret"}, kNow));
}

TEST(StripeSignature, ParsesTheTimestampEveryV1AndSkipsOtherSchemes) {
  const std::string a(64, 'a');
  const std::string b(64, 'B');
  const auto parsed = parse_stripe_signature("t=12,v1=" + a + ",v0=zz,v1=" + b + ",v9=x");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->timestamp, 12);
  EXPECT_EQ(parsed->timestamp_text, "12");
  ASSERT_EQ(parsed->v1.size(), 2u);
  EXPECT_EQ(parsed->v1[0][0], 0xaa);
  EXPECT_EQ(parsed->v1[1][31], 0xbb);
}

TEST(StripeSignature, RefusesMalformedHeaders) {
  const std::string v1 = "v1=" + std::string(64, 'a');
  for (const std::string& bad : {
           std::string(),
           std::string("t=12"),                // no v1
           v1,                                 // no t
           "t=12,t=13," + v1,                  // two t
           "t=," + v1,                         // empty t
           "t=-1," + v1,                       // not digits
           "t=1 ," + v1,                       // not digits
           "t=1234567890123," + v1,            // more than 12 digits
           "t=12,v1=" + std::string(63, 'a'),  // short digest
           "t=12,v1=" + std::string(64, 'g'),  // not hex
           "t=12," + v1 + ",",                 // empty element
           "t=12,," + v1,                      // empty element
           "t=12,=x," + v1,                    // no scheme
           "t=12,junk," + v1,                  // no '='
           " t=12," + v1,                      // no trimming
       }) {
    EXPECT_FALSE(parse_stripe_signature(bad).has_value()) << bad;
  }
  std::string many = "t=12";
  for (int i = 0; i < 16; ++i) many += "," + v1;
  EXPECT_FALSE(parse_stripe_signature(many).has_value()) << "17 elements";
  EXPECT_FALSE(parse_stripe_signature("t=12," + v1 + "," + std::string(5000, 'x')).has_value());
}

TEST(StripeSignature, TheTimestampMustBeWithin300SecondsEitherWay) {
  for (int64_t offset : {-300, 0, 300}) {
    const std::string t = std::to_string(kT + offset);
    const std::string header = "t=" + t + ",v1=" + sign("s", t, kBody);
    EXPECT_TRUE(verify_stripe_signature(header, kBody, {"s"}, kNow)) << offset;
  }
  for (int64_t offset : {-301, 301, -100000}) {
    const std::string t = std::to_string(kT + offset);
    const std::string header = "t=" + t + ",v1=" + sign("s", t, kBody);
    EXPECT_FALSE(verify_stripe_signature(header, kBody, {"s"}, kNow)) << offset;
  }
}

TEST(StripeSignature, AnyV1UnderAnySecretMatchesDuringARotation) {
  const std::string t = std::to_string(kT);
  const std::string old_sig = sign("old", t, kBody);
  const std::string new_sig = sign("new", t, kBody);
  const std::string wrong(64, '0');
  // Stripe sends one v1 per active secret while the endpoint's secret rolls.
  EXPECT_TRUE(
      verify_stripe_signature("t=" + t + ",v1=" + wrong + ",v1=" + new_sig, kBody, {"new"}, kNow));
  EXPECT_TRUE(verify_stripe_signature("t=" + t + ",v1=" + old_sig, kBody, {"new", "old"}, kNow));
  EXPECT_FALSE(verify_stripe_signature("t=" + t + ",v1=" + old_sig, kBody, {"new"}, kNow));
  EXPECT_FALSE(verify_stripe_signature("t=" + t + ",v1=" + old_sig, kBody, {}, kNow));
  EXPECT_FALSE(verify_stripe_signature("t=" + t + ",v1=" + old_sig, kBody, {""}, kNow));
}

TEST(StripeSignature, TheSignatureCoversTheTimestampAndTheExactBody) {
  const std::string t = std::to_string(kT);
  const std::string sig = sign("s", t, kBody);
  EXPECT_FALSE(verify_stripe_signature("t=" + t + ",v1=" + sig, R"({"id":"evt_2"})", {"s"}, kNow));
  EXPECT_FALSE(
      verify_stripe_signature("t=" + t + ",v1=" + sig, std::string(kBody) + " ", {"s"}, kNow));
  const std::string t1 = std::to_string(kT + 1);
  EXPECT_FALSE(verify_stripe_signature("t=" + t1 + ",v1=" + sig, kBody, {"s"}, kNow));
  // The v0 scheme (Stripe's test signatures) is never accepted in place of v1.
  EXPECT_FALSE(verify_stripe_signature("t=" + t + ",v0=" + sig, kBody, {"s"}, kNow));
  // A leading zero changes the signed text: signed as sent, it verifies.
  const std::string padded = "0" + t;
  EXPECT_TRUE(verify_stripe_signature("t=" + padded + ",v1=" + sign("s", padded, kBody), kBody,
                                      {"s"}, kNow));
}

}  // namespace
}  // namespace licensed
