// PostgreSQL restarts (pg_ctl restart) under a running `licensed`: requests answer again
// without a restart of licensed, its lost connections opened again on their next job.
#include <gtest/gtest.h>

#include "support/fixture.h"
#include "support/pg_server.h"

namespace bb {
namespace {

class PostgresRestart : public BlackboxTest {};

TEST_F(PostgresRestart, LicensedAnswersAgainAfterPostgresRestartsWithoutRestartingItself) {
  if (!on_postgres()) GTEST_SKIP() << "a PostgreSQL restart";
  PgServer pg;
  InitStore(pg.url());  // a database of its own: serve never makes the schema by itself
  const Admin own(pg.url());
  own.CreateProduct(std::string(kProduct), std::string(kProductName));
  const std::string license = own.CreateLicense(std::string(kProduct), 10);
  ServerOptions options;
  options.store_flag = false;
  options.args = {"--store", pg.url(), "--store-pool-size", "2"};
  Start(options);
  const pid_t pid = server().pid();
  for (int i = 0; i < 4; ++i) ASSERT_OK(Activate(license, "machine-before-" + std::to_string(i)));

  pg.Restart();
  for (int i = 0; i < 4; ++i) EXPECT_OK(Activate(license, "machine-after-" + std::to_string(i)));
  EXPECT_OK(Status(license, "machine-before-0"));
  EXPECT_EQ(server().pid(), pid);
  EXPECT_EQ(Arr(own.Show(license), "activations").size(), 8u);
}

}  // namespace
}  // namespace bb
