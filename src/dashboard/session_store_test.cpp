#include "dashboard/session_store.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;
constexpr int64_t kLifetime = 60'000;

TEST(SessionStoreTest, OpensASessionWithRandomIdAndCsrfToken) {
  ManualClock clock(kStart);
  SessionStore sessions(clock, kLifetime, 10);
  const auto a = sessions.open("key-a");
  const auto b = sessions.open("key-a");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->id.size(), 43u);  // 256 bits in base64url
  EXPECT_NE(a->id, b->id);
  EXPECT_NE(a->csrf_token, b->csrf_token);
  EXPECT_NE(a->id, a->csrf_token);
  const auto found = sessions.find(a->id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->license_key, "key-a");
  EXPECT_TRUE(csrf_token_matches(*found, a->csrf_token));
  EXPECT_FALSE(csrf_token_matches(*found, b->csrf_token));
  EXPECT_FALSE(csrf_token_matches(*found, ""));
  EXPECT_FALSE(csrf_token_matches(*found, a->csrf_token.substr(1)));
  EXPECT_FALSE(sessions.find("not-a-session"));
}

TEST(SessionStoreTest, ASessionEndsAtItsLifetimeOrAtClose) {
  ManualClock clock(kStart);
  SessionStore sessions(clock, kLifetime, 10);
  const auto a = sessions.open("key-a");
  const auto b = sessions.open("key-b");
  clock.advance_ms(kLifetime - 1);
  EXPECT_TRUE(sessions.find(a->id));
  sessions.close(b->id);
  EXPECT_FALSE(sessions.find(b->id));
  clock.advance_ms(1);
  EXPECT_FALSE(sessions.find(a->id));
}

TEST(SessionStoreTest, AtCapacityTheExpiredGoFirstThenTheOldest) {
  ManualClock clock(kStart);
  SessionStore sessions(clock, kLifetime, 2);
  const auto first = sessions.open("k1");
  clock.advance_ms(10);
  const auto second = sessions.open("k2");
  clock.advance_ms(10);
  const auto third = sessions.open("k3");
  EXPECT_EQ(sessions.size(), 2u);
  EXPECT_FALSE(sessions.find(first->id));
  EXPECT_TRUE(sessions.find(second->id));
  EXPECT_TRUE(sessions.find(third->id));
  clock.advance_ms(kLifetime);
  const auto fourth = sessions.open("k4");
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_TRUE(sessions.find(fourth->id));
}

}  // namespace
}  // namespace licensed
