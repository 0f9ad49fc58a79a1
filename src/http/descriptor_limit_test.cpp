// The connection cap the descriptor limit allows (http/descriptor_limit.h); the start-up
// line and the server under a lowered limit are shown in tests/blackbox/descriptors_test.cpp.
#include "http/descriptor_limit.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

namespace licensed {
namespace {

TEST(DescriptorLimit, ACapTheDescriptorsAllowIsKeptAsConfigured) {
  EXPECT_EQ(connections_within(524'288, 300, 10'000), 10'000u);
  EXPECT_EQ(connections_within(10'300, 300, 10'000), 10'000u);
}

TEST(DescriptorLimit, ACapAboveTheDescriptorsIsLoweredToLeaveThoseKeptAside) {
  EXPECT_EQ(connections_within(1024, 300, 10'000), 724u);
  EXPECT_EQ(connections_within(10'299, 300, 10'000), 9'999u);
}

TEST(DescriptorLimit, UnderATinyLimitHalfStillGoesToConnections) {
  EXPECT_EQ(connections_within(200, 300, 10'000), 100u);
  EXPECT_EQ(connections_within(1, 300, 10'000), 1u);
}

TEST(DescriptorLimit, MoreThreadsAndALargerStorePoolKeepMoreAside) {
  const size_t base = descriptors_kept_aside(1, 0);
  EXPECT_GT(descriptors_kept_aside(8, 0), base);
  EXPECT_GT(descriptors_kept_aside(1, 100), base);
  EXPECT_EQ(descriptors_kept_aside(1, 8), base);  // 0 is the default pool of 8
}

TEST(DescriptorLimit, RaisingLeavesTheSoftLimitAtTheHardOne) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  const auto raised = raise_descriptor_limit();
  rlimit after{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &after), 0);
  if (before.rlim_max == RLIM_INFINITY) {
    EXPECT_FALSE(raised.has_value());
    return;
  }
  ASSERT_TRUE(raised.has_value());
  EXPECT_EQ(*raised, after.rlim_cur);
  EXPECT_EQ(after.rlim_cur, before.rlim_max);
}

}  // namespace
}  // namespace licensed

namespace licensed {
namespace {

// deploy/licensed.service's LimitNOFILE holds the default --max-connections with what
// serve keeps aside for up to 99 network threads: raising one without the other would
// make serve lower its cap at start.
TEST(DescriptorLimit, TheSystemdUnitAllowsTheDefaultConnectionCap) {
  std::ifstream unit(LICENSED_SOURCE_DIR "/deploy/licensed.service");
  ASSERT_TRUE(unit.good());
  uint64_t limit = 0;
  for (std::string line; std::getline(unit, line);) {
    if (line.rfind("LimitNOFILE=", 0) == 0) limit = std::stoull(line.substr(12));
  }
  ASSERT_GT(limit, 0u) << "no LimitNOFILE= in the unit";
  EXPECT_EQ(connections_within(limit, descriptors_kept_aside(99, 0), 10'000), 10'000u);
  EXPECT_LT(connections_within(limit, descriptors_kept_aside(200, 0), 10'000), 10'000u)
      << "the check can fail: with 200 threads the unit's limit is too small";
}

}  // namespace
}  // namespace licensed
