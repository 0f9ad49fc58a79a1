// The test harness's own parsing helpers, so a failure elsewhere is about the server.
#include <gtest/gtest.h>

#include "support/json_util.h"
#include "support/process.h"
#include "support/signer.h"

namespace bb {
namespace {

TEST(Harness, ParseReadyPortFindsThePortInTheReadyLine) {
  EXPECT_EQ(ParseReadyPort("2026-11-21T22:38:58.219Z info licensed ready: listening on "
                           "127.0.0.1:41029 (store sqlite:/tmp/x/test.db)"),
            41029);
  EXPECT_EQ(ParseReadyPort("listening on 0.0.0.0:8080"), 8080);
  EXPECT_EQ(ParseReadyPort("listening on 127.0.0.1:"), std::nullopt);
  EXPECT_EQ(ParseReadyPort("listening on localhost:80"), std::nullopt);
  EXPECT_EQ(ParseReadyPort("listening on 127.0.0.1:99999"), std::nullopt);
  EXPECT_EQ(ParseReadyPort("starting"), std::nullopt);
}

TEST(Harness, ShapesOfTimestampsAndKeys) {
  EXPECT_TRUE(IsTimestamp("2026-11-21T09:30:00.000Z"));
  EXPECT_FALSE(IsTimestamp("2026-11-21T09:30:00Z"));
  EXPECT_FALSE(IsTimestamp("2026-11-21T09:30:00.000+00:00"));
  EXPECT_TRUE(IsLowercaseUuidV4("3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c"));
  EXPECT_FALSE(IsLowercaseUuidV4("3F2B8C1E-9D4A-4E7B-8C21-5A6F0D9E1B2C"));
  EXPECT_FALSE(IsLowercaseUuidV4("3f2b8c1e-9d4a-1e7b-8c21-5a6f0d9e1b2c"));
  EXPECT_FALSE(IsLowercaseUuidV4("3f2b8c1e-9d4a-4e7b-c821-5a6f0d9e1b2c"));
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(IsLowercaseUuidV4(RandomUuidV4()));
}

}  // namespace
}  // namespace bb
