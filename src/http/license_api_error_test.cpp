// The License API's translation of every internal status (docs/protocol.md §5).
#include "http/license_api_error.h"

#include <gtest/gtest.h>

#include "core/request_error.h"
#include "support/status_table.h"

namespace licensed {
namespace {

struct Row {
  StatusCode code;
  int http_status;
  ErrorCode wire_code;
};

constexpr Row kRows[] = {
    {StatusCode::kInvalidArgument, 500, ErrorCode::kInternal},
    {StatusCode::kNotFound, 404, ErrorCode::kNotFound},
    {StatusCode::kConflict, 500, ErrorCode::kInternal},
    {StatusCode::kRateLimited, 429, ErrorCode::kRateLimited},
    {StatusCode::kUnavailable, 503, ErrorCode::kUnavailable},
    {StatusCode::kInternal, 500, ErrorCode::kInternal},
};

// Does not compile while a StatusCode has no row (see ExpectOneRowPerStatus).
TEST(LicenseApiErrorTable, HasOneRowPerStatusInOrder) {
  bb::ExpectOneRowPerStatus(kRows);
}

class LicenseApiError : public ::testing::TestWithParam<Row> {};

TEST_P(LicenseApiError, TranslatesTheStatusAndNeverSendsItsMessage) {
  const ApiError wire = to_api_error(bb::SampleError(
      GetParam().code, "locked: begin failed (sqlite code 5) at /var/lib/licensed.db", "ip"));
  EXPECT_EQ(wire.http_status, GetParam().http_status);
  EXPECT_EQ(wire.code, GetParam().wire_code);
  EXPECT_EQ(wire.error, error_name(GetParam().wire_code));
  EXPECT_EQ(wire.message.find("sqlite"), std::string::npos) << wire.message;
  const bool waits = wire.http_status == 429 || wire.http_status == 503;
  EXPECT_EQ(wire.retry_after_seconds, waits ? std::optional<int64_t>(7) : std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(EveryStatus, LicenseApiError, ::testing::ValuesIn(kRows),
                         bb::StatusRowName<Row>);

TEST(LicenseApiErrorSubject, AMachineNotFoundIsNotActivatedAndALicenseIsUnknown) {
  EXPECT_EQ(to_api_error(Error::not_found(subjects::kMachineId, "m")).code,
            ErrorCode::kMachineNotActivated);
  EXPECT_EQ(to_api_error(Error::not_found(subjects::kLicenseKey, "k")).code, ErrorCode::kNotFound);
}

TEST(LicenseApiErrorSubject, AnAnswerChosenByAnOperationIsSentAsItIs) {
  const ApiError chosen = errors::inactive("SUSPENDED");
  const ApiError wire = RequestError(chosen).answer_or(to_api_error);
  EXPECT_EQ(wire.code, ErrorCode::kInactive);
  EXPECT_EQ(wire.extra.at("status").as_string(), "SUSPENDED");
  EXPECT_EQ(RequestError(Error::unavailable("x")).answer_or(to_api_error).code,
            ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace licensed
