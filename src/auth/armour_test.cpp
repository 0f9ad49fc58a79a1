// The armour of offline files (docs/protocol.md §21.1): 64 columns, whitespace around lines
// ignored, anything else refused.
#include "auth/armour.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace licensed {
namespace {

std::string text_of(const std::vector<uint8_t>& bytes) {
  return {bytes.begin(), bytes.end()};
}

TEST(Armour, WrapsTheBase64At64ColumnsAndReadsItBack) {
  const std::string json(100, 'x');
  const std::string armoured = armour(kActivationFileLabel, json);
  EXPECT_EQ(armoured.substr(0, 35), "-----BEGIN LICENSE ACTIVATION-----\n");
  const size_t first_line = armoured.find('\n') + 1;
  EXPECT_EQ(armoured.find('\n', first_line) - first_line, 64u);
  const auto read = dearmour(armoured);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->label, kActivationFileLabel);
  EXPECT_EQ(text_of(read->bytes), json);
  EXPECT_EQ(dearmour_as(armoured, kActivationFileLabel).has_value(), true);
  EXPECT_EQ(dearmour_as(armoured, kActivationRequestLabel), std::nullopt) << "another label";
}

TEST(Armour, WhitespaceAroundLinesAndBlankLinesAreIgnored) {
  const std::string pasted =
      "\r\n  -----BEGIN LICENSE DEACTIVATION-----  \r\n\t eyJ2IjoxfQ== \r\n\r\n"
      "-----END LICENSE DEACTIVATION-----\r\n\r\n";
  const auto read = dearmour(pasted);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(text_of(read->bytes), R"({"v":1})");
}

TEST(Armour, AnythingElseIsRefused) {
  const std::string good = armour(kActivationRequestLabel, std::string(70, 'y'));
  const std::string body_line = good.substr(good.find('\n') + 1, 64);
  for (const std::string& bad : std::vector<std::string>{
           std::string("hello ") + good,  // text before BEGIN
           good + "thanks\n",             // text after END
           "-----BEGIN LICENSE ACTIVATION-----\neyJ2IjoxfQ==\n-----END LICENSE DEACTIVATION-----",
           "-----BEGIN license-----\neyJ2IjoxfQ==\n-----END license-----",         // lower case
           "-----BEGIN A  B-----\neyJ2IjoxfQ==\n-----END A  B-----",               // two spaces
           "-----BEGIN A-----\n-----END A-----",                                   // no body
           "-----BEGIN A-----\neyJ2Ijox fQ==\n-----END A-----",                    // space inside
           "-----BEGIN A-----\neyJ2IjoxfQ\n-----END A-----",                       // no padding
           "-----BEGIN A-----\neyJ2IjoxfQ==\n" + body_line + "\n-----END A-----",  // short first
           "-----BEGIN A-----\n" + body_line + "AAAA\n-----END A-----",            // 68 columns
       }) {
    EXPECT_EQ(dearmour(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(dearmour(std::string(kMaxArmouredBytes + 1, ' ') + good), std::nullopt);
}

}  // namespace
}  // namespace licensed
