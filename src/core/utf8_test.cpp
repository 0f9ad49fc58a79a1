#include "core/utf8.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(ValidUtf8, WellFormedTextIsUnchanged) {
  for (const std::string& s :
       {std::string(""), std::string("plain ascii"),
        std::string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8E\xB9"),
        std::string("\xEF\xBF\xBF \xF4\x8F\xBF\xBF"), std::string("nul\0inside", 10)}) {
    EXPECT_EQ(valid_utf8(s), s);
  }
}

TEST(ValidUtf8, StrayAndInvalidLeadBytesAreReplacedOneEach) {
  EXPECT_EQ(valid_utf8("a\x80"
                       "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(valid_utf8("\xBF\xBF"), kFffd + kFffd);
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kFffd + kFffd);  // overlong '/'
  EXPECT_EQ(valid_utf8("\xFF"
                       "x"),
            kFffd + "x");
}

TEST(ValidUtf8, TruncatedSequenceIsOneReplacement) {
  EXPECT_EQ(valid_utf8("\xE2\x82"), kFffd);
  EXPECT_EQ(valid_utf8("\xF0\x9F\x8E"
                       "x"),
            kFffd + "x");
}

TEST(ValidUtf8, SurrogatesOverlongsAndOutOfRangeAreRejected) {
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // U+D800
  EXPECT_EQ(valid_utf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);              // overlong
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
}

}  // namespace
}  // namespace licensed
