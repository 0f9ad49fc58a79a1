#include "redis/redis_url.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(RedisUrl, HostAloneGetsTheDefaultPortAndDatabase) {
  auto e = parse_redis_url("redis://cache.internal");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host, "cache.internal");
  EXPECT_EQ(e->port, 6379);
  EXPECT_EQ(e->db, 0);
  EXPECT_FALSE(e->password);
  EXPECT_FALSE(e->user);
}

TEST(RedisUrl, PortDatabaseAndCredentials) {
  auto e = parse_redis_url("redis://licensed:p%40ss:w0rd@10.0.0.5:6380/2");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host, "10.0.0.5");
  EXPECT_EQ(e->port, 6380);
  EXPECT_EQ(e->db, 2);
  EXPECT_EQ(e->user, "licensed");
  EXPECT_EQ(e->password, "p%40ss:w0rd");
}

TEST(RedisUrl, PasswordWithoutUserAndIpv6Host) {
  auto e = parse_redis_url("redis://:secret@[::1]:7000");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host, "::1");
  EXPECT_EQ(e->port, 7000);
  EXPECT_FALSE(e->user);
  EXPECT_EQ(e->password, "secret");
}

TEST(RedisUrl, RefusesOtherSchemesBadPortsAndNeverEchoesThePassword) {
  for (const char* bad :
       {"rediss://host", "http://host", "redis://", "redis://host:0", "redis://host:99999",
        "redis://host:port", "redis://host/x", "redis://user@host"}) {
    EXPECT_FALSE(parse_redis_url(bad).ok()) << bad;
  }
  auto e = parse_redis_url("redis://:hunter2@host:bad");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message.find("hunter2"), std::string::npos) << e.error().message;
}

}  // namespace
}  // namespace licensed
