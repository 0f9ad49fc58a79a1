// The signature checks of the store providers other than Stripe (docs/protocol.md
// §22.3): known answers computed apart from this code (Python's hmac, hashlib
// and base64), rotation with several secrets and signatures, malformed headers, tolerance.
#include <gtest/gtest.h>

#include "auth/base64.h"
#include "auth/store_signatures.h"
#include "core/hex.h"

namespace licensed {
namespace {

constexpr int64_t kT = 1'780'000'000;
constexpr UnixMillis kNow = kT * 1000;
constexpr std::string_view kBody = R"({"event_id":"evt_1"})";
// HMAC-SHA256("pdl_ntfset_secret", "1780000000:" + kBody).
constexpr std::string_view kPaddleH1 =
    "90003dd3db066564bc2c2f57ad46f24891a47d1ef0cc37e5d661768e238ab3bc";
// base64(HMAC-SHA256("fs_secret", kBody)).
constexpr std::string_view kFastSpringSignature = "UwUoS0PSHz27KEgtcpvGbecii5VxS2JzmTUD807C9xg=";
// hex(HMAC-SHA256("ls_secret", kBody)).
constexpr std::string_view kLemonSqueezySignature =
    "2b4bac268741b38331c3ff19cd2001a4b0c603e661707c9c701f6650e91fe150";

std::string hmac_hex(std::string_view secret, std::string_view message) {
  const HmacSha256 hmac(secret);
  Sha256Digest d{};
  EXPECT_TRUE(hmac.compute(message, d));
  return to_hex(d.data(), d.size());
}

std::string paddle_h1(std::string_view secret, std::string_view ts, std::string_view body) {
  return hmac_hex(secret, std::string(ts) + ":" + std::string(body));
}

TEST(PaddleSignature, AKnownAnswerVerifies) {
  EXPECT_EQ(paddle_h1("pdl_ntfset_secret", "1780000000", kBody), kPaddleH1);
  const std::string header = "ts=1780000000;h1=" + std::string(kPaddleH1);
  EXPECT_TRUE(verify_paddle_signature(header, kBody, {"pdl_ntfset_secret"}, kNow));
  EXPECT_FALSE(verify_paddle_signature(header, kBody, {"another"}, kNow));
  EXPECT_FALSE(
      verify_paddle_signature(header, std::string(kBody) + " ", {"pdl_ntfset_secret"}, kNow));
}

TEST(PaddleSignature, DuringARotationAnyOfSeveralSecretsAndSeveralH1Verifies) {
  const std::string old_h1 = paddle_h1("old", "1780000000", kBody);
  const std::string new_h1 = paddle_h1("new", "1780000000", kBody);
  const std::string header = "ts=1780000000;h1=" + old_h1 + ";h1=" + new_h1;
  EXPECT_TRUE(verify_paddle_signature(header, kBody, {"new"}, kNow));
  EXPECT_TRUE(verify_paddle_signature(header, kBody, {"old"}, kNow));
  EXPECT_TRUE(verify_paddle_signature(header, kBody, {"unrelated", "old", "new"}, kNow));
  EXPECT_TRUE(verify_paddle_signature("ts=1780000000;h1=" + old_h1, kBody, {"new", "old"}, kNow));
  EXPECT_FALSE(verify_paddle_signature(header, kBody, {"neither", ""}, kNow));
  EXPECT_FALSE(verify_paddle_signature(header, kBody, {}, kNow));
}

TEST(PaddleSignature, TheTimestampMustBeWithin300SecondsEitherWay) {
  for (int64_t offset : {-300, 0, 300}) {
    const std::string ts = std::to_string(kT + offset);
    const std::string header = "ts=" + ts + ";h1=" + paddle_h1("s", ts, kBody);
    EXPECT_TRUE(verify_paddle_signature(header, kBody, {"s"}, kNow)) << offset;
  }
  for (int64_t offset : {-301, 301, -86400}) {
    const std::string ts = std::to_string(kT + offset);
    const std::string header = "ts=" + ts + ";h1=" + paddle_h1("s", ts, kBody);
    EXPECT_FALSE(verify_paddle_signature(header, kBody, {"s"}, kNow)) << offset;
  }
}

TEST(PaddleSignature, RefusesMalformedHeaders) {
  const std::string h1 = "h1=" + std::string(64, 'a');
  for (const std::string& bad : {
           std::string(),
           std::string("ts=12"),                // no h1
           h1,                                  // no ts
           "ts=12;ts=13;" + h1,                 // two ts
           "ts=;" + h1,                         // empty ts
           "ts=1x;" + h1,                       // not digits
           "ts=1234567890123;" + h1,            // more than 12 digits
           "ts=12;h1=" + std::string(63, 'a'),  // short digest
           "ts=12;h1=" + std::string(64, 'z'),  // not hex
           "ts=12," + h1,                       // Stripe's separator
           "ts=12;" + h1 + ";",                 // empty element
           "ts=12;;" + h1,                      // empty element
           "ts=12;=x;" + h1,                    // no name
           "ts=12; " + h1,                      // no trimming
       }) {
    EXPECT_FALSE(parse_paddle_signature(bad).has_value()) << bad;
  }
  const auto parsed = parse_paddle_signature("ts=12;h1=" + std::string(64, 'A') + ";h2=x;" + h1);
  ASSERT_TRUE(parsed.has_value()) << "other names are skipped";
  EXPECT_EQ(parsed->timestamp, 12);
  EXPECT_EQ(parsed->h1.size(), 2u);
  std::string many = "ts=12";
  for (int i = 0; i < 16; ++i) many += ";" + h1;
  EXPECT_FALSE(parse_paddle_signature(many).has_value()) << "17 elements";
  EXPECT_FALSE(parse_paddle_signature("ts=12;" + h1 + ";x=" + std::string(5000, 'x')).has_value());
}

TEST(FastSpringSignature, AKnownAnswerVerifiesUnderAnyOfTheSecrets) {
  EXPECT_TRUE(verify_fastspring_signature(kFastSpringSignature, kBody, {"fs_secret"}));
  EXPECT_TRUE(verify_fastspring_signature(kFastSpringSignature, kBody, {"old", "fs_secret"}));
  EXPECT_FALSE(verify_fastspring_signature(kFastSpringSignature, kBody, {"old"}));
  EXPECT_FALSE(verify_fastspring_signature(kFastSpringSignature, "{}", {"fs_secret"}));
  EXPECT_FALSE(verify_fastspring_signature(kFastSpringSignature, kBody, {}));
}

TEST(FastSpringSignature, RefusesWhatIsNotTheBase64OfADigest) {
  const std::string sig(kFastSpringSignature);
  for (const std::string& bad : {
           std::string(), sig.substr(0, sig.size() - 1),  // padding cut
           sig + "=",                                     // extra padding
           " " + sig,                                     // whitespace
           std::string(64, 'a'),                          // hex, not base64
           std::string("AAAA"),                           // 3 bytes
           hmac_hex("fs_secret", kBody),                  // the right digest, in hex
       }) {
    EXPECT_FALSE(verify_fastspring_signature(bad, kBody, {"fs_secret"})) << bad;
  }
}

TEST(LemonSqueezySignature, AKnownAnswerVerifiesInEitherCaseUnderAnyOfTheSecrets) {
  std::string upper(kLemonSqueezySignature);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(verify_lemonsqueezy_signature(kLemonSqueezySignature, kBody, {"ls_secret"}));
  EXPECT_TRUE(verify_lemonsqueezy_signature(upper, kBody, {"x", "ls_secret"}));
  EXPECT_FALSE(verify_lemonsqueezy_signature(kLemonSqueezySignature, kBody, {"x"}));
  EXPECT_FALSE(verify_lemonsqueezy_signature(kLemonSqueezySignature, "{}", {"ls_secret"}));
  EXPECT_FALSE(verify_lemonsqueezy_signature("sha256=" + std::string(kLemonSqueezySignature), kBody,
                                             {"ls_secret"}));
  EXPECT_FALSE(
      verify_lemonsqueezy_signature(kLemonSqueezySignature.substr(1), kBody, {"ls_secret"}));
  EXPECT_FALSE(verify_lemonsqueezy_signature("", kBody, {"ls_secret"}));
}

TEST(FastSpringGeneratorHash, IsMd5OfTheValuesSortedByNameThenTheKey) {
  // md5("b-value" + "a-value" + "key"), computed with Python's hashlib: the values are
  // ordered by their names (a, z), not by themselves.
  const std::vector<std::pair<std::string, std::string>> params = {{"z", "a-value"},
                                                                   {"a", "b-value"}};
  constexpr std::string_view kHash = "e0dffdda848a2d04d011c7e84b2abd96";
  EXPECT_TRUE(verify_fastspring_generator_hash(params, kHash, {"key"}));
  EXPECT_TRUE(verify_fastspring_generator_hash(params, "E0DFFDDA848A2D04D011C7E84B2ABD96",
                                               {"rotated", "key"}));
  EXPECT_FALSE(verify_fastspring_generator_hash(params, kHash, {"rotated"}));
  EXPECT_FALSE(
      verify_fastspring_generator_hash({{"a", "a-value"}, {"z", "b-value"}}, kHash, {"key"}));
  EXPECT_FALSE(verify_fastspring_generator_hash(params, kHash.substr(2), {"key"}));
  EXPECT_FALSE(verify_fastspring_generator_hash(params, "", {"key"}));
  EXPECT_FALSE(verify_fastspring_generator_hash(params, kHash, {}));
}

TEST(StoreTexts, CompareEqualOnlyWhenTheyAre) {
  EXPECT_TRUE(texts_equal_in_constant_time("seller==", "seller=="));
  EXPECT_FALSE(texts_equal_in_constant_time("seller==", "seller="));
  EXPECT_FALSE(texts_equal_in_constant_time("seller==", ""));
}

}  // namespace
}  // namespace licensed
