// The admin API's translation of every internal status (docs/protocol.md §18).
#include "http/admin_api_error.h"

#include <gtest/gtest.h>

#include "core/request_error.h"
#include "support/status_table.h"

namespace licensed {
namespace {

struct Row {
  StatusCode code;
  int http_status;
  ErrorCode wire_code;
  bool shows_message;  // the admin is told the status's own message
};

constexpr Row kRows[] = {
    {StatusCode::kInvalidArgument, 400, ErrorCode::kMalformed, true},
    {StatusCode::kNotFound, 404, ErrorCode::kNotFound, false},
    {StatusCode::kConflict, 400, ErrorCode::kMalformed, true},
    {StatusCode::kRateLimited, 429, ErrorCode::kRateLimited, false},
    {StatusCode::kUnavailable, 503, ErrorCode::kUnavailable, false},
    {StatusCode::kInternal, 500, ErrorCode::kInternal, false},
};

// Does not compile while a StatusCode has no row (see ExpectOneRowPerStatus).
TEST(AdminApiErrorTable, HasOneRowPerStatusInOrder) {
  bb::ExpectOneRowPerStatus(kRows);
}

class AdminApiError : public ::testing::TestWithParam<Row> {};

TEST_P(AdminApiError, TranslatesTheStatus) {
  const ApiError wire =
      to_admin_api_error(bb::SampleError(GetParam().code, "max must be >= 0", "max"));
  EXPECT_EQ(wire.http_status, GetParam().http_status);
  EXPECT_EQ(wire.code, GetParam().wire_code);
  EXPECT_EQ(wire.message == "max must be >= 0", GetParam().shows_message) << wire.message;
  if (GetParam().shows_message) {
    EXPECT_EQ(wire.extra.at("field").as_string(), "max");
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStatus, AdminApiError, ::testing::ValuesIn(kRows),
                         bb::StatusRowName<Row>);

TEST(AdminApiErrorSubject, AMachineNotFoundIs1707AndALicense1703) {
  EXPECT_EQ(to_admin_api_error(Error::not_found(subjects::kMachineId, "m")).code,
            ErrorCode::kMachineNotActivated);
  EXPECT_EQ(to_admin_api_error(Error::not_found(subjects::kLicenseKey, "k")).code,
            ErrorCode::kNotFound);
}

TEST(AdminApiErrorSubject, AChosenAnswerIsSentAsItIs) {
  EXPECT_EQ(RequestError(errors::forbidden()).answer_or(to_admin_api_error).http_status, 403);
}

}  // namespace
}  // namespace licensed
