#include "core/timestamp.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(Timestamp, FormatsRfc3339UtcWithMilliseconds) {
  EXPECT_EQ(format_timestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_timestamp(1'795'000'000'123), "2026-11-18T11:06:40.123Z");
}

TEST(Timestamp, ParsesWhatItFormats) {
  for (UnixMillis t : {0LL, 1'795'000'000'123LL, 951'782'400'000LL /* 2000-02-29 */}) {
    EXPECT_EQ(parse_timestamp(format_timestamp(t)), t);
  }
  EXPECT_EQ(parse_timestamp("2026-11-18T11:06:40Z"), 1'795'000'000'000);
  EXPECT_EQ(parse_timestamp("2026-11-18T11:06:40.5+00:00"), 1'795'000'000'500);
}

TEST(Timestamp, RejectsNonsense) {
  for (const char* s : {"", "2026-11-18", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                        "2025-02-29T00:00:00Z", "2026-11-18T08:26:40", "2026-11-18T08:26:40+01:00",
                        "2026-11-18T24:00:00Z", "2026-11-18T08:26:40.Z"}) {
    EXPECT_FALSE(parse_timestamp(s).has_value()) << s;
  }
}

}  // namespace
}  // namespace licensed
