// A missing store is never silently replaced by an empty one (issue 24 item 1;
// docs/protocol.md §18, docs/operations.md): `licensed init` creates a store and refuses
// one that exists; `serve` and `admin` refuse a SQLite file that does not exist, or a
// PostgreSQL database without the schema, unless given --create; `admin` migrates only
// with --migrate; and a running server whose SQLite file is removed or replaced stops
// acknowledging writes (503 1708), turns /readyz 503 and logs it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/fixture.h"
#include "support/pg_database.h"
#include "support/store_sql.h"

namespace bb {
namespace {

namespace fs = std::filesystem;

std::string FileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class StoreCreation : public BlackboxTest {
 protected:
  CommandResult Init(const std::string& store) const {
    return RunCommand({LicensedBinary(), "init", "--store", store});
  }
  // `licensed serve` that must refuse to start; one that starts is killed after 10 s.
  CommandResult ServeOn(const std::string& store,
                        const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> argv = {
        LicensedBinary(), "serve", "--listen",      "127.0.0.1:0",
        "--store",        store,   "--signing-key", kPluginKey.id + "=" + kPluginKey.secret};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, {}, std::chrono::seconds(10));
  }
  // A fresh empty PostgreSQL database, or nullptr (the test skips) without a test server.
  std::unique_ptr<PgTestDatabase> EmptyPostgres() const {
    const auto server = TestPostgresUrl();
    if (!server) return nullptr;
    return std::make_unique<PgTestDatabase>(*server);
  }
  HttpResponse Readyz() const { return AdminGet("/readyz"); }
};

TEST_F(StoreCreation, InitMakesAPrivateStoreWithBothResponseKeysAndRefusesOneThatExists) {
  const fs::path path = dir().path() / "new.db";
  const std::string store = "sqlite:" + path.string();
  const CommandResult made = Init(store);
  ASSERT_EQ(made.exit_code, 0) << made.Describe();
  EXPECT_NE(made.out.find("created store " + store), std::string::npos) << made.out;
  EXPECT_NE(made.out.find("response key ed25519-"), std::string::npos) << made.out;
  EXPECT_NE(made.out.find("response key es256-"), std::string::npos) << made.out;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the store holds the response keys";

  const std::string before = FileBytes(path);
  const CommandResult again = Init(store);
  EXPECT_EQ(again.exit_code, 1) << again.Describe();
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;
  EXPECT_EQ(FileBytes(path), before) << "init changed a store that existed";

  // The store init made is used as it is: admin and serve need no --create.
  Admin(store).CreateProduct("delay", "Delay");
}

TEST_F(StoreCreation, ServeRefusesASqliteFileThatDoesNotExistAndNamesInit) {
  const fs::path path = dir().path() / "mistyped.db";
  const CommandResult r = ServeOn("sqlite:" + path.string());
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_NE(r.err.find("sqlite:" + path.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("licensed init"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path)) << "serve created the store it refused";
}

TEST_F(StoreCreation, EveryAdminCommandRefusesAMistypedPathAndCreatesNothing) {
  const fs::path path = dir().path() / "mistyped.db";
  const Admin mistyped("sqlite:" + path.string());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"product", "create", "--slug", "a", "--name", "A"},
        std::vector<std::string>{"license", "show", "11111111-1111-4111-8111-111111111111"},
        std::vector<std::string>{"token", "list"},
        std::vector<std::string>{"plan", "list", "--product", "a"},
        std::vector<std::string>{"store", "list"}, std::vector<std::string>{"verify"},
        std::vector<std::string>{"schema"}}) {
    const CommandResult r = mistyped.Run(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.Describe();
    EXPECT_NE(r.err.find("sqlite:" + path.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("licensed init"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(path)) << "an admin command created the store it refused";
}

TEST_F(StoreCreation, ServeCreateMakesAMissingStoreThenServes) {
  const std::string store = "sqlite:" + (dir().path() / "created.db").string();
  ServerOptions options;
  options.store_flag = false;
  options.args = {"--store", store, "--create"};
  Start(options);
  const Admin on_it(store);
  on_it.CreateProduct("delay", "Delay");
  const std::string key = on_it.CreateLicense("delay", 1);
  EXPECT_OK(Activate(key, "machine-created-1"));
}

TEST_F(StoreCreation, AdminCreateMakesAMissingStoreThenRunsTheCommand) {
  const fs::path path = dir().path() / "created.db";
  const Admin on_it("sqlite:" + path.string());
  // --create belongs to `admin`, before the command.
  const CommandResult made =
      on_it.Run({"--create", "product", "create", "--slug", "a", "--name", "A"});
  ASSERT_EQ(made.exit_code, 0) << made.Describe();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(on_it.Run({"product", "create", "--slug", "b", "--name", "B"}).exit_code, 0);
}

TEST_F(StoreCreation, APostgresqlDatabaseWithoutTheSchemaIsRefusedUntilInit) {
  const auto db = EmptyPostgres();
  if (!db) GTEST_SKIP() << "no test PostgreSQL server";
  const CommandResult served = ServeOn(db->url());
  EXPECT_EQ(served.exit_code, 1) << served.Describe();
  EXPECT_NE(served.err.find("licensed init"), std::string::npos) << served.err;
  const CommandResult administered =
      Admin(db->url()).Run({"product", "create", "--slug", "a", "--name", "A"});
  EXPECT_EQ(administered.exit_code, 1) << administered.Describe();
  EXPECT_NE(administered.err.find("licensed init"), std::string::npos) << administered.err;
  EXPECT_EQ(StoreSql(db->url(), "SELECT to_regclass('licenses') IS NULL"), "t")
      << "a refused command created the schema";

  const CommandResult made = Init(db->url());
  ASSERT_EQ(made.exit_code, 0) << made.Describe();
  EXPECT_NE(made.out.find("response key es256-"), std::string::npos) << made.out;
  const CommandResult again = Init(db->url());
  EXPECT_EQ(again.exit_code, 1) << again.Describe();
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;
  Admin(db->url()).CreateProduct("a", "A");
}

// A store one migration behind (its newest migration's record removed, as an older
// licensed would have left it): admin commands refuse it without --migrate, and
// `admin schema` names the pending migration.
TEST_F(StoreCreation, AdminNeverMigratesAStoreWithoutMigrateAndSchemaShowsWhatIsPending) {
  const std::string newest =
      StoreSql(store(), "SELECT CAST(MAX(version) AS TEXT) FROM schema_migrations");
  const CommandResult current = admin().Run({"schema", "--json"});
  ASSERT_EQ(current.exit_code, 0) << current.Describe();
  const auto state = json::parse(current.out).as_object();
  EXPECT_EQ(std::to_string(state.at("version").as_int64()), newest);
  EXPECT_TRUE(state.at("pending").as_array().empty()) << current.out;

  StoreSql(store(), "DELETE FROM schema_migrations WHERE version = " + newest);
  const CommandResult refused =
      admin().Run({"product", "create", "--slug", "late", "--name", "Late"});
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_NE(refused.err.find("--migrate"), std::string::npos) << refused.err;
  EXPECT_EQ(StoreSql(store(), "SELECT CAST(MAX(version) AS TEXT) FROM schema_migrations"),
            std::to_string(std::stoi(newest) - 1))
      << "admin migrated the store without --migrate";
  const CommandResult behind = admin().Run({"schema"});
  ASSERT_EQ(behind.exit_code, 0) << behind.Describe();
  EXPECT_NE(behind.out.find("pending migrations  " + newest), std::string::npos) << behind.out;
}

TEST_F(StoreCreation, ARemovedStoreFileStopsWritesTurnsReadyz503AndIsLogged) {
  SKIP_UNLESS_SQLITE();
  Start();
  const std::string key = NewLicense(5);
  EXPECT_OK(Activate(key, "machine-before-1"));
  EXPECT_EQ(Readyz().status, 200);

  fs::remove(db_path());
  const HttpResponse lost = Activate(key, "machine-after-1");
  EXPECT_API_ERROR(lost, 503, 1708, "LICENSE_API_UNAVAILABLE");
  EXPECT_EQ(Readyz().status, 503);
  EXPECT_TRUE(server().LogEventually("was removed while serving")) << server().log();
  // Still refused later: a write is never acknowledged to the removed file.
  EXPECT_API_ERROR(Activate(key, "machine-after-2"), 503, 1708, "LICENSE_API_UNAVAILABLE");
}

TEST_F(StoreCreation, AStoreFileReplacedByAnotherIsNoticedByItsInode) {
  SKIP_UNLESS_SQLITE();
  Start();
  const std::string key = NewLicense(5);
  EXPECT_OK(Activate(key, "machine-before-1"));
  // Another store moved over the path (as a careless restore would): the server's open
  // file is no longer the one at the path.
  const fs::path other = dir().path() / "other.db";
  InitStore("sqlite:" + other.string());
  fs::rename(other, db_path());
  EXPECT_API_ERROR(Activate(key, "machine-after-1"), 503, 1708, "LICENSE_API_UNAVAILABLE");
  EXPECT_EQ(Readyz().status, 503);
  EXPECT_TRUE(server().LogEventually("was replaced by another file while serving"))
      << server().log();
}

TEST_F(StoreCreation, AStoreFileRemovedWhileIdleIsLoggedWithoutARequest) {
  SKIP_UNLESS_SQLITE();
  Start();
  fs::remove(db_path());
  // The file is looked at once a second even when nothing asks.
  EXPECT_TRUE(server().LogEventually("was removed while serving", std::chrono::seconds(10)))
      << server().log();
}

}  // namespace
}  // namespace bb
