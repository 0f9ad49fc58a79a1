// The command line's translation of every internal status: exit codes (docs/protocol.md
// §18) and what stderr says.
#include "admin/cli_status.h"

#include <gtest/gtest.h>

#include "support/status_table.h"

namespace licensed {
namespace {

struct Row {
  StatusCode code;
  int configuring;   // exit code while reading the configuration
  int running;       // exit code of an admin operation, or of serve starting
  const char* text;  // what stderr says for a message "M"
};

constexpr Row kRows[] = {
    {StatusCode::kInvalidArgument, kExitUsage, kExitRefused, "M"},
    {StatusCode::kNotFound, kExitRefused, kExitRefused, "M"},
    {StatusCode::kConflict, kExitRefused, kExitRefused, "M"},
    {StatusCode::kRateLimited, kExitRefused, kExitRefused, "M"},
    {StatusCode::kUnavailable, kExitRefused, kExitRefused,
     "the license store is temporarily unavailable (M)"},
    {StatusCode::kInternal, kExitRefused, kExitRefused, "internal error (M)"},
};

// Does not compile while a StatusCode has no row (see ExpectOneRowPerStatus).
TEST(CliStatusTable, HasOneRowPerStatusInOrder) {
  bb::ExpectOneRowPerStatus(kRows);
}

class CliStatus : public ::testing::TestWithParam<Row> {};

TEST_P(CliStatus, TranslatesTheStatusToAnExitCodeAndALine) {
  const Error e = bb::SampleError(GetParam().code, "M", "");
  EXPECT_EQ(exit_code_of(e.code, CliStage::kConfiguration), GetParam().configuring);
  EXPECT_EQ(exit_code_of(e.code, CliStage::kRunning), GetParam().running);
  EXPECT_EQ(cli_error_text(e), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(EveryStatus, CliStatus, ::testing::ValuesIn(kRows),
                         bb::StatusRowName<Row>);

}  // namespace
}  // namespace licensed
