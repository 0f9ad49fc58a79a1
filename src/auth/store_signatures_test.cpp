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

namespace licensed {
namespace {

// The signers' known answers were computed apart from this code (Python's hmac, hashlib
// and base64 modules); each signed delivery must also pass its verifier, and fail it
// under another secret.
constexpr std::string_view kSignedBody = R"({"id":"evt_1"})";

TEST(StoreSigners, StripesHeaderIsTheKnownAnswerAndVerifies) {
  const auto header = stripe_signature_header(kSignedBody, "whsec_test_secret", 1'780'000'000);
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(*header,
            "t=1780000000,v1=a41c819342c4e1838339e12814a661f63c8efe893735feeac134d6d164daf72f");
  const UnixMillis now = 1'780'000'000'000;
  EXPECT_TRUE(verify_stripe_signature(*header, kSignedBody, {"whsec_test_secret"}, now));
  EXPECT_FALSE(verify_stripe_signature(*header, kSignedBody, {"whsec_other"}, now));
}

TEST(StoreSigners, PaddlesHeaderIsTheKnownAnswerAndVerifies) {
  const auto header = paddle_signature_header(kSignedBody, "pdl_ntfset_secret", 1'780'000'000);
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(*header,
            "ts=1780000000;h1=f546ae7de550fccbc3f63860e3c906ffbfa5f021071dbc6439ec6794d170b126");
  const UnixMillis now = 1'780'000'000'000;
  EXPECT_TRUE(verify_paddle_signature(*header, kSignedBody, {"pdl_ntfset_secret"}, now));
  EXPECT_FALSE(verify_paddle_signature(*header, kSignedBody, {"pdl_other"}, now));
}

TEST(StoreSigners, FastSpringsSignatureIsTheKnownAnswerAndVerifies) {
  const auto signature = fastspring_signature(kSignedBody, "fs_secret");
  ASSERT_TRUE(signature.has_value());
  EXPECT_EQ(*signature, "34rxnfA5MlZRN3f08/haaC29KxvWLuz4VgzsgER/osg=");
  EXPECT_TRUE(verify_fastspring_signature(*signature, kSignedBody, {"fs_secret"}));
  EXPECT_FALSE(verify_fastspring_signature(*signature, kSignedBody, {"fs_other"}));
}

TEST(StoreSigners, LemonSqueezysSignatureIsTheKnownAnswerAndVerifies) {
  const auto signature = lemonsqueezy_signature(kSignedBody, "ls_secret");
  ASSERT_TRUE(signature.has_value());
  EXPECT_EQ(*signature, "22ec458b4f17c685f247d1218ba79386418d6f9be240e61c13f41a1ed3420c8e");
  EXPECT_TRUE(verify_lemonsqueezy_signature(*signature, kSignedBody, {"ls_secret"}));
  EXPECT_FALSE(verify_lemonsqueezy_signature(*signature, kSignedBody, {"ls_other"}));
}

TEST(StoreSigners, TheGeneratorHashSortsByNameIsTheKnownAnswerAndVerifies) {
  // Given out of order: the hash covers email, quantity, reference in that order.
  const std::vector<std::pair<std::string, std::string>> params = {
      {"reference", "LIC-1"}, {"email", "ada@example.com"}, {"quantity", "2"}};
  const auto hash = fastspring_generator_hash(params, "private_key");
  ASSERT_TRUE(hash.has_value());
  EXPECT_EQ(*hash, "c3dee15de3da3825fb86de1b03a020a0");
  EXPECT_TRUE(verify_fastspring_generator_hash(params, *hash, {"private_key"}));
  EXPECT_FALSE(verify_fastspring_generator_hash(params, *hash, {"other_key"}));
}

TEST(StoreSigners, AnEmptySecretSignsNothing) {
  EXPECT_FALSE(stripe_signature_header(kSignedBody, "", 1).has_value());
  EXPECT_FALSE(paddle_signature_header(kSignedBody, "", 1).has_value());
  EXPECT_FALSE(fastspring_signature(kSignedBody, "").has_value());
  EXPECT_FALSE(lemonsqueezy_signature(kSignedBody, "").has_value());
  EXPECT_FALSE(fastspring_generator_hash({}, "").has_value());
}

}  // namespace
}  // namespace licensed
