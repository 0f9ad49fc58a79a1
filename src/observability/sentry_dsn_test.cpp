#include "observability/sentry_dsn.h"

#include <gtest/gtest.h>

namespace licensed {
namespace {

TEST(SentryDsn, ParsesKeyHostPortAndProject) {
  auto dsn = parse_sentry_dsn("http://publickey@127.0.0.1:9000/42");
  ASSERT_TRUE(dsn.ok()) << dsn.error().message;
  EXPECT_EQ(dsn->public_key, "publickey");
  EXPECT_EQ(dsn->host, "127.0.0.1");
  EXPECT_EQ(dsn->port, 9000);
  EXPECT_EQ(dsn->path, "");
  EXPECT_EQ(dsn->project_id, "42");
  EXPECT_EQ(dsn->envelope_target(), "/api/42/envelope/");
  EXPECT_EQ(dsn->to_string(), "http://publickey@127.0.0.1:9000/42");
}

TEST(SentryDsn, DefaultPortIs80) {
  auto dsn = parse_sentry_dsn("http://e12d836b15bb49d7bbf99e64295d995b@sentry.internal/7");
  ASSERT_TRUE(dsn.ok()) << dsn.error().message;
  EXPECT_EQ(dsn->host, "sentry.internal");
  EXPECT_EQ(dsn->port, 80);
  EXPECT_EQ(dsn->to_string(), "http://e12d836b15bb49d7bbf99e64295d995b@sentry.internal/7");
}

TEST(SentryDsn, PathPrefixGoesBeforeApi) {
  auto dsn = parse_sentry_dsn("http://k@relay.example:3000/sentry/relay/42/");
  ASSERT_TRUE(dsn.ok()) << dsn.error().message;
  EXPECT_EQ(dsn->path, "/sentry/relay");
  EXPECT_EQ(dsn->project_id, "42");
  EXPECT_EQ(dsn->envelope_target(), "/sentry/relay/api/42/envelope/");
}

TEST(SentryDsn, Ipv6Literal) {
  auto dsn = parse_sentry_dsn("http://k@[::1]:3000/5");
  ASSERT_TRUE(dsn.ok()) << dsn.error().message;
  EXPECT_EQ(dsn->host, "::1");
  EXPECT_EQ(dsn->port, 3000);
  EXPECT_EQ(dsn->to_string(), "http://k@[::1]:3000/5");
}

TEST(SentryDsn, SecretKeyIsAcceptedButDropped) {
  auto dsn = parse_sentry_dsn("http://public:verysecret@127.0.0.1:1/2");
  ASSERT_TRUE(dsn.ok()) << dsn.error().message;
  EXPECT_EQ(dsn->public_key, "public");
  EXPECT_EQ(dsn->to_string().find("verysecret"), std::string::npos);
}

TEST(SentryDsn, DescribeLeavesTheKeyOut) {
  auto dsn = parse_sentry_dsn("http://publickey@127.0.0.1:9000/42");
  ASSERT_TRUE(dsn.ok());
  EXPECT_EQ(dsn->describe(), "http://127.0.0.1:9000 (project 42)");
}

TEST(SentryDsn, HttpsIsRefusedWithAHint) {
  auto dsn = parse_sentry_dsn("https://publickey@o1.ingest.sentry.io/42");
  ASSERT_FALSE(dsn.ok());
  EXPECT_NE(dsn.error().message.find("https"), std::string::npos) << dsn.error().message;
  EXPECT_NE(dsn.error().message.find("Relay"), std::string::npos) << dsn.error().message;
  EXPECT_EQ(dsn.error().message.find("publickey"), std::string::npos) << dsn.error().message;
}

TEST(SentryDsn, MalformedDsnsAreRefusedWithoutRepeatingTheKey) {
  for (const char* bad : {
           "",
           "publickey@127.0.0.1/42",
           "ftp://publickey@127.0.0.1/42",
           "HTTP://publickey@127.0.0.1/42",
           "http://127.0.0.1:9000/42",
           "http://@127.0.0.1:9000/42",
           "http://:publickey@127.0.0.1:9000/42",
           "http://public key@127.0.0.1/42",
           "http://publickey@/42",
           "http://publickey@127.0.0.1:/42",
           "http://publickey@127.0.0.1:0/42",
           "http://publickey@127.0.0.1:65536/42",
           "http://publickey@127.0.0.1:12ab/42",
           "http://publickey@127.0.0.1",
           "http://publickey@127.0.0.1/",
           "http://publickey@127.0.0.1//42",
           "http://publickey@127.0.0.1/a//42",
           "http://publickey@127.0.0.1/4 2",
           "http://publickey@127.0.0.1/42?x=1",
           "http://publickey@127.0.0.1/42#f",
           "http://publickey@bad_host/42",
           "http://publickey@[::1/42",
           "http://publickey@[::1]x/42",
       }) {
    SCOPED_TRACE(bad);
    auto dsn = parse_sentry_dsn(bad);
    ASSERT_FALSE(dsn.ok());
    EXPECT_EQ(dsn.error().message.find("publickey"), std::string::npos) << dsn.error().message;
    EXPECT_NE(dsn.error().message.find("Sentry DSN"), std::string::npos) << dsn.error().message;
  }
}

}  // namespace
}  // namespace licensed
