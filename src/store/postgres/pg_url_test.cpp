#include "store/postgres/pg_url.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(PgUrl, PlainUrlKeepsTheDefaults) {
  auto o = parse_postgres_url("postgresql://licensed@db.example:5433/licenses");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->conninfo, "postgresql://licensed@db.example:5433/licenses");
  EXPECT_EQ(o->pool_size, 8u) << "a PostgreSQL on another host";
  EXPECT_EQ(o->session.lock_timeout_ms, 5000);
  EXPECT_EQ(o->session.statement_timeout_ms, 30000);
}

TEST(PgUrl, APostgresqlOnThisMachineGetsTwiceTheCoresAndOneElsewhereEight) {
  for (const char* local : {"postgresql://u:p@127.0.0.1:5432/db", "postgresql://localhost/db",
                            "postgresql://[::1]:5/db", "postgresql:///db",
                            "postgresql://u@/db?host=/var/run/postgresql",
                            "postgresql:///db?host=%2Fvar%2Frun%2Fpostgresql"}) {
    EXPECT_EQ(default_pool_size(local, 2), 4u) << local;
    EXPECT_EQ(default_pool_size(local, 1), 2u) << local;
    EXPECT_EQ(default_pool_size(local, 64), 8u) << local;
  }
  for (const char* remote : {"postgresql://db.example/db", "postgresql://u:127.0.0.1@db/db",
                             "postgresql://10.0.0.5:5432/db", "postgresql://h1,h2/db"}) {
    EXPECT_EQ(default_pool_size(remote, 2), 8u) << remote;
  }
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
