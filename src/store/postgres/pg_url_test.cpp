#include "store/postgres/pg_url.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(PgUrl, PlainUrlKeepsTheDefaults) {
  auto o = parse_postgres_url("postgresql://licensed@db.example:5433/licenses");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->conninfo, "postgresql://licensed@db.example:5433/licenses");
  EXPECT_EQ(o->pool_size, 8u);
  EXPECT_EQ(o->session.lock_timeout_ms, 5000);
  EXPECT_EQ(o->session.statement_timeout_ms, 30000);
}

TEST(PgUrl, OwnParametersAreTakenOutAndLibpqsKept) {
  auto o = parse_postgres_url(
      "postgres://u:p@h/db?sslmode=disable&pool_size=3&lock_timeout_ms=250"
      "&connect_timeout=2&statement_timeout_ms=9000");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->conninfo, "postgres://u:p@h/db?sslmode=disable&connect_timeout=2");
  EXPECT_EQ(o->pool_size, 3u);
  EXPECT_EQ(o->session.lock_timeout_ms, 250);
  EXPECT_EQ(o->session.statement_timeout_ms, 9000);
}

TEST(PgUrl, OnlyOwnParametersLeaveNoQuestionMark) {
  auto o = parse_postgres_url("postgresql://h/db?pool_size=1");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->conninfo, "postgresql://h/db");
}

TEST(PgUrl, BadNumbersAreRefusedWithoutThePassword) {
  for (const char* bad : {"pool_size=0", "pool_size=x", "lock_timeout_ms=-1", "pool_size="}) {
    auto o = parse_postgres_url(std::string("postgresql://u:hunter2@h/db?") + bad);
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_EQ(o.error().message.find("hunter2"), std::string::npos) << o.error().message;
  }
}

TEST(PgUrl, RecognisesBothSchemes) {
  EXPECT_TRUE(is_postgres_url("postgresql://h/db"));
  EXPECT_TRUE(is_postgres_url("postgres://h/db"));
  EXPECT_FALSE(is_postgres_url("sqlite:./x.db"));
}

}  // namespace
}  // namespace licensed
