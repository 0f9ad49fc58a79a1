#include "backoff.h"

#include <gtest/gtest.h>

#include "duration.h"

namespace licensed::client {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, GrowsExponentiallyWithinHalfToAllOfTheWindow) {
  const BackoffPolicy p{milliseconds(100), milliseconds(10'000)};
  for (int retry = 0; retry < 5; ++retry) {
    const int64_t window = 100 << retry;
    EXPECT_EQ(backoff_delay(p, retry, 0.0).count(), window / 2) << retry;
    EXPECT_EQ(backoff_delay(p, retry, 1.0).count(), window) << retry;
    const auto mid = backoff_delay(p, retry, 0.5).count();
    EXPECT_GT(mid, window / 2);
    EXPECT_LT(mid, window);
  }
}

TEST(Backoff, IsCappedAndNeverOverflows) {
  const BackoffPolicy p{milliseconds(250), milliseconds(4000)};
  EXPECT_EQ(backoff_delay(p, 10, 1.0), milliseconds(4000));
  EXPECT_EQ(backoff_delay(p, 1000, 1.0), milliseconds(4000));
  EXPECT_EQ(backoff_delay(p, 1000, 0.0), milliseconds(2000));
}

TEST(Duration, ParsesTheUnitsOfTheCommandLine) {
  EXPECT_EQ(parse_duration("1500ms"), milliseconds(1500));
  EXPECT_EQ(parse_duration("10s"), milliseconds(10'000));
  EXPECT_EQ(parse_duration("5m"), milliseconds(300'000));
  EXPECT_EQ(parse_duration("1h"), milliseconds(3'600'000));
  EXPECT_EQ(parse_duration("7d"), milliseconds(7 * 86'400'000LL));
  for (const char* bad :
       {"", "10", "s", "-1s", "0s", "1.5s", "10 s", "10sec", "99999999999999999d"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace licensed::client
