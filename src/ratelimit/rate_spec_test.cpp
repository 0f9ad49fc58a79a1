#include "ratelimit/rate_spec.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

RateSpec parsed(std::string_view text) {
  auto r = parse_rate_spec(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  if (!r.ok() || !r.value()) return RateSpec{-1, -1};
  return *r.value();
}

TEST(RateSpec, ParsesCountAndPeriod) {
  struct Case {
    std::string_view text;
    int64_t count;
    int64_t period_ms;
  };
  for (const Case& c : {
           Case{"120/1m", 120, 60'000},
           Case{"600/1m", 600, 60'000},
           Case{"10/s", 10, 1'000},
           Case{"10/1s", 10, 1'000},
           Case{"5/10s", 5, 10'000},
           Case{"100/5m", 100, 300'000},
           Case{"600/m", 600, 60'000},
           Case{"3600/h", 3600, 3'600'000},
           Case{"2/12h", 2, 43'200'000},
           Case{"1000/1d", 1000, 86'400'000},
           Case{"1/366d", 1, 366LL * 86'400'000},
           Case{"1000000000/1s", 1'000'000'000, 1'000},
           Case{"007/1m", 7, 60'000},
       }) {
    const RateSpec s = parsed(c.text);
    EXPECT_EQ(s.count, c.count) << c.text;
    EXPECT_EQ(s.period_ms, c.period_ms) << c.text;
  }
}

TEST(RateSpec, OffMeansNoLimit) {
  auto r = parse_rate_spec("off");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().has_value());
}

TEST(RateSpec, RejectsEverythingElse) {
  for (std::string_view bad : {
           "",          "off ",          "OFF",
           "none",      "120",           "120/",
           "/1m",       "0/1m",          "-1/1m",
           "+1/1m",     "1.5/1m",        "120/1",
           "120/1x",    "120/1M",        "120/1ms",
           "120/0m",    "120/-1m",       "120/1.5m",
           "120 /1m",   "120/ 1m",       " 120/1m",
           "120/1m ",   "1m/120",        "abc/1m",
           "120/1m/1s", "1000000001/1s", "99999999999999999999/1s",
           "1/367d",    "1/8785h",       "1/99999999999999999999s",
       }) {
    auto r = parse_rate_spec(bad);
    ASSERT_FALSE(r.ok()) << "[" << bad << "]";
    EXPECT_EQ(r.error().code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(r.error().subject.empty());
    EXPECT_NE(r.error().message.find("rate limit"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace licensed
