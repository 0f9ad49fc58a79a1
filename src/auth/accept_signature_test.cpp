#include "auth/accept_signature.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

constexpr ResponseAlgorithm kEd = ResponseAlgorithm::kEd25519;
constexpr ResponseAlgorithm kEs = ResponseAlgorithm::kEs256;
const std::vector<ResponseAlgorithm> kBoth = {kEd, kEs};

ResponseAlgorithm choose(std::optional<std::string_view> header,
                         const std::vector<ResponseAlgorithm>& available = kBoth) {
  return choose_response_algorithm(header, available);
}

TEST(AcceptSignature, WithoutTheHeaderEd25519Signs) {
  EXPECT_EQ(choose(std::nullopt), kEd);
}

TEST(AcceptSignature, TheFirstKnownAlgorithmOfTheListSigns) {
  EXPECT_EQ(choose("es256"), kEs);
  EXPECT_EQ(choose("ed25519"), kEd);
  EXPECT_EQ(choose("es256,ed25519"), kEs);
  EXPECT_EQ(choose("ed25519,es256"), kEd);
}

TEST(AcceptSignature, TokensAreComparedIgnoringCaseAndTheBlanksAroundThem) {
  EXPECT_EQ(choose("ES256"), kEs);
  EXPECT_EQ(choose("  Es256 "), kEs);
  EXPECT_EQ(choose("\tes256\t, ed25519"), kEs);
  EXPECT_EQ(choose(" ED25519 ,es256"), kEd);
}

TEST(AcceptSignature, UnknownAndEmptyTokensAreSkipped) {
  EXPECT_EQ(choose("rs256, es256"), kEs);
  EXPECT_EQ(choose(",,es256,"), kEs);
  EXPECT_EQ(choose("es 256, ed25519"), kEd);
  EXPECT_EQ(choose("es256;q=1, ed25519"), kEd);
}

TEST(AcceptSignature, AListWithNoKnownTokenGetsEd25519) {
  EXPECT_EQ(choose(""), kEd);
  EXPECT_EQ(choose(" , "), kEd);
  EXPECT_EQ(choose("rs256"), kEd);
  EXPECT_EQ(choose("es256x, xed25519"), kEd);
}

TEST(AcceptSignature, AnAlgorithmTheServerHasNoKeyForIsPassedOver) {
  EXPECT_EQ(choose("es256", {kEd}), kEd);
  EXPECT_EQ(choose("es256, ed25519", {kEd}), kEd);
  // A server with only an ES256 key signs with it, whatever was asked.
  EXPECT_EQ(choose("ed25519", {kEs}), kEs);
  EXPECT_EQ(choose(std::nullopt, {kEs}), kEs);
}

}  // namespace
}  // namespace licensed
