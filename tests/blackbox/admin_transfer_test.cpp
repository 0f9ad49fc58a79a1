// `licensed admin export` and `import` through the real binary: the export file is
// private (0600, never overwritten), and a deployment moved to a new store serves the
// same licenses, activations, audit records and response key. On the PostgreSQL run
// this moves PostgreSQL -> SQLite; tests/store/store_transfer_test.cpp does the round
// trip both ways row by row.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "support/fixture.h"

namespace bb {
namespace {

class AdminTransfer : public BlackboxTest {};

TEST_F(AdminTransfer, AMovedDeploymentServesTheSameLicensesAndSignsWithTheSameKey) {
  Start();
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001", "Studio PC"));
  ASSERT_OK(Activate(license, "machine-0002"));
  const std::string public_key = SigningPublicKey();
  Stop();

  const std::string file = (dir().path() / "export.jsonl").string();
  const CommandResult exported = admin().Run({"export", "--out", file});
  ASSERT_EQ(exported.exit_code, 0) << exported.Describe();
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const CommandResult again = admin().Run({"export", "--out", file});
  EXPECT_EQ(again.exit_code, 1) << "an existing export must not be overwritten";

  const std::string moved = "sqlite:" + (dir().path() / "moved.db").string();
  const Admin target(moved);
  // Into a store made by the import itself: `init` would make response keys of its own.
  const CommandResult imported = target.Run({"--create", "import", file});
  ASSERT_EQ(imported.exit_code, 0) << imported.Describe();
  EXPECT_EQ(target.Show(license), admin().Show(license));
  EXPECT_EQ(target.Audit(license), admin().Audit(license));
  const CommandResult twice = target.Run({"import", file});
  EXPECT_EQ(twice.exit_code, 1) << "a store with rows must refuse an import";

  ServerOptions on_moved;
  on_moved.store_flag = false;
  on_moved.args = {"--store", moved};
  Start(on_moved);
  EXPECT_EQ(SigningPublicKey(), public_key);
  EXPECT_OK(Heartbeat(license, "machine-0001"));
  EXPECT_API_ERROR(Activate(license, "machine-0003"), 409, 1705, "LICENSE_API_LIMIT_REACHED");
}

}  // namespace
}  // namespace bb
