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

TEST(AddSeconds, MovesATimeBySecondsAndSaturatesInsteadOfOverflowing) {
  EXPECT_EQ(add_seconds(1'795'000'000'000, 86400), 1'795'086'400'000);
  EXPECT_EQ(add_seconds(1'795'000'000'000, -60), 1'794'999'940'000);
  EXPECT_EQ(add_seconds(1'795'000'000'000, kMaxDurationSeconds), 4'948'600'000'000);
  // What once overflowed: a grace of 9223372036854775 s added to now.
  EXPECT_EQ(add_seconds(1'795'000'000'000, 9'223'372'036'854'775), INT64_MAX);
  EXPECT_EQ(add_seconds(1'795'000'000'000, INT64_MAX), INT64_MAX);
  EXPECT_EQ(add_seconds(-1'000, INT64_MIN), INT64_MIN);
  EXPECT_EQ(add_seconds(INT64_MAX - 500, 1), INT64_MAX);
}

}  // namespace
}  // namespace licensed
