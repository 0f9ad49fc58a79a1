// The customer dashboard's translation of every internal status, at sign-in and within a
// session.
#include "http/dashboard_error.h"

#include <gtest/gtest.h>

#include "support/status_table.h"

namespace licensed {
namespace {

struct Row {
  StatusCode code;
  int sign_in_status;                  // HTTP status while signing in
  int signed_in_status;                // HTTP status within a session
  std::optional<ErrorCode> wire_code;  // the same at both steps; none for the 401s
  bool shows_message;
};

const Row kRows[] = {
    {StatusCode::kInvalidArgument, 400, 400, ErrorCode::kMalformed, true},
    // The license is not there: the key typed is not known, or the session's is gone.
    {StatusCode::kNotFound, 401, 401, std::nullopt, false},
    {StatusCode::kConflict, 400, 400, ErrorCode::kMalformed, true},
    {StatusCode::kRateLimited, 429, 429, ErrorCode::kRateLimited, false},
    {StatusCode::kUnavailable, 503, 503, ErrorCode::kUnavailable, false},
    {StatusCode::kInternal, 500, 500, ErrorCode::kInternal, false},
};

// Does not compile while a StatusCode has no row (see ExpectOneRowPerStatus).
TEST(DashboardErrorTable, HasOneRowPerStatusInOrder) {
  bb::ExpectOneRowPerStatus(kRows);
}

class DashboardError : public ::testing::TestWithParam<Row> {};

TEST_P(DashboardError, TranslatesTheStatusAtEitherStep) {
  const Error e =
      bb::SampleError(GetParam().code, "dashboard sessions are unavailable: redis: refused",
                      std::string(subjects::kLicenseKey));
  const ApiError at_sign_in = to_dashboard_error(e, DashboardStep::kSignIn);
  const ApiError in_session = to_dashboard_error(e, DashboardStep::kSignedIn);
  EXPECT_EQ(at_sign_in.http_status, GetParam().sign_in_status);
  EXPECT_EQ(in_session.http_status, GetParam().signed_in_status);
  EXPECT_EQ(at_sign_in.code, GetParam().wire_code);
  EXPECT_EQ(in_session.code, GetParam().wire_code);
  EXPECT_EQ(in_session.message == e.message, GetParam().shows_message) << in_session.message;
  EXPECT_EQ(at_sign_in.message == e.message, GetParam().shows_message) << at_sign_in.message;
}

INSTANTIATE_TEST_SUITE_P(EveryStatus, DashboardError, ::testing::ValuesIn(kRows),
                         bb::StatusRowName<Row>);

TEST(DashboardErrorSubject, AnUnknownLicenseIsAWrongKeyAtSignInAndASignOutLater) {
  const Error gone = Error::not_found(subjects::kLicenseKey, "license is deleted");
  EXPECT_EQ(to_dashboard_error(gone, DashboardStep::kSignIn).message, wrong_key().message);
  EXPECT_EQ(to_dashboard_error(gone, DashboardStep::kSignedIn).message, not_signed_in().message);
}

TEST(DashboardErrorSubject, AnUnknownMachineIs1707AtEitherStep) {
  const Error machine = Error::not_found(subjects::kMachineId, "no machine has that handle");
  EXPECT_EQ(to_dashboard_error(machine, DashboardStep::kSignedIn).code,
            ErrorCode::kMachineNotActivated);
  EXPECT_EQ(to_dashboard_error(machine, DashboardStep::kSignIn).code,
            ErrorCode::kMachineNotActivated);
}

TEST(DashboardErrorSubject, AnUnknownMachineIsToldInACustomersWordsNotTheApis) {
  const Error machine = Error::not_found(subjects::kMachineId, "no machine has that handle");
  const std::string said = to_dashboard_error(machine, DashboardStep::kSignedIn).message;
  EXPECT_EQ(said, "that machine is no longer activated on this license");
  EXPECT_EQ(said.find("activate first"), std::string::npos);
  EXPECT_EQ(said.find("call"), std::string::npos);
}

}  // namespace
}  // namespace licensed
