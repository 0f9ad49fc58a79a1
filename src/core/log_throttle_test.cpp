#include "core/log_throttle.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

constexpr UnixMillis kT0 = 1'790'000'000'000;

TEST(LogThrottle, FirstLineIsWrittenThenOnePerPeriodWithTheCountLeftOut) {
  LogThrottle throttle(5'000);
  EXPECT_EQ(throttle.admit(kT0), 0u);
  EXPECT_EQ(throttle.admit(kT0 + 1), std::nullopt);
  EXPECT_EQ(throttle.admit(kT0 + 4'999), std::nullopt);
  EXPECT_EQ(throttle.admit(kT0 + 5'000), 2u);
  EXPECT_EQ(throttle.admit(kT0 + 5'001), std::nullopt);
  EXPECT_EQ(throttle.admit(kT0 + 60'000), 1u);
  EXPECT_EQ(throttle.admit(kT0 + 120'000), 0u);
}

}  // namespace
}  // namespace licensed
