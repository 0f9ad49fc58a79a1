// PostgreSQL's counterpart of StoreFaults.Locked...: another client holds a license's row
// lock (a transaction left open). Writes to that license wait at most lock_timeout, then
// answer 503 1708 with Retry-After; reads and other licenses are not held up; when the
// lock goes, writes succeed again.
#include <gtest/gtest.h>

#include "support/fixture.h"

namespace bb {
namespace {

class PostgresLock : public BlackboxTest {};

TEST_F(PostgresLock, ALicenseRowHeldElsewhereAnswers503ThenResumes) {
  if (!on_postgres()) GTEST_SKIP() << "a PostgreSQL row lock";
  ServerOptions options;
  options.store_flag = false;
  options.args = {"--store", store() + "?lock_timeout_ms=300"};
  Start(options);
  const std::string locked = NewLicense(5);
  const std::string free = NewLicense(5);
  PgSession other(pg()->url());
  other.Exec("BEGIN");
  other.Exec("SELECT id FROM licenses WHERE license_key = '" + locked + "' FOR UPDATE");

  const HttpResponse refused = Activate(locked, "machine-0001");
  EXPECT_API_ERROR(refused, 503, 1708, "LICENSE_API_UNAVAILABLE");
  EXPECT_TRUE(refused.header("Retry-After").has_value()) << refused.Describe();
  EXPECT_OK(Status(locked));
  EXPECT_OK(Activate(free, "machine-0001"));

  other.Exec("ROLLBACK");
  EXPECT_OK(Activate(locked, "machine-0001"));
  EXPECT_EQ(AuditRecords(locked, "license.activate").size(), 1u);
}

}  // namespace
}  // namespace bb
