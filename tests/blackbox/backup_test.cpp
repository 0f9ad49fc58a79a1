// Backups (issue 24 item 3, docs/operations.md): `licensed admin backup --out FILE` takes
// a consistent copy of a SQLite store while the server writes to it (SQLite's online
// backup API), and a store restored from it holds every activation acknowledged before
// the backup began (a plain `cp` at the same moment held 5 of 11); `licensed admin
// verify` counts a store's rows and checks its integrity.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "support/fixture.h"

namespace bb {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class Backup : public BlackboxTest {};

TEST_F(Backup, ABackupTakenUnderWriteLoadRestoresEveryAcknowledgedActivation) {
  SKIP_UNLESS_SQLITE();
  Start();
  const std::string license = NewLicense(100000);

  // Writers activate new machines as fast as the server acknowledges them; each
  // acknowledgement is kept with the moment it arrived.
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<std::pair<Clock::time_point, std::string>> acknowledged;
  auto writer = [&](int id) {
    for (int n = 0; !stop.load(); ++n) {
      const std::string machine = "machine-bk-" + std::to_string(id) + "-" + std::to_string(n);
      if (Activate(license, machine).status == 200) {
        std::lock_guard lock(mu);
        acknowledged.emplace_back(Clock::now(), machine);
      }
    }
  };
  std::vector<std::thread> writers;
  for (int id = 0; id < 3; ++id) writers.emplace_back(writer, id);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));

  const fs::path copy = dir().path() / "backup.db";
  const Clock::time_point began = Clock::now();
  const CommandResult backup = admin().Run({"backup", "--out", copy.string()});
  const Clock::time_point ended = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  stop = true;
  for (auto& t : writers) t.join();
  ASSERT_EQ(backup.exit_code, 0) << backup.Describe();
  EXPECT_NE(backup.out.find("integrity ok"), std::string::npos) << backup.out;
  struct stat st {};
  ASSERT_EQ(::stat(copy.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the copy holds the response keys";

  std::set<std::string> before, during;
  for (const auto& [at, machine] : acknowledged) {
    if (at < began) before.insert(machine);
    if (at >= began && at <= ended) during.insert(machine);
  }
  ASSERT_GT(before.size(), 10u) << "too little load to say anything";
  ASSERT_GT(during.size() + before.size(), before.size()) << "no write while the backup ran";

  // Restore: the copy becomes a store of its own, checked as docs/operations.md says.
  const fs::path restored = dir().path() / "restored.db";
  fs::copy_file(copy, restored);
  const Admin on_restored("sqlite:" + restored.string());
  const CommandResult verified = on_restored.Run({"verify", "--json"});
  ASSERT_EQ(verified.exit_code, 0) << verified.Describe();
  EXPECT_TRUE(json::parse(verified.out).as_object().at("ok").as_bool()) << verified.out;

  std::set<std::string> kept;
  const json::value shown = on_restored.Show(license);
  for (const auto& a : Arr(shown, "activations")) kept.insert(Str(a, "id"));
  std::vector<std::string> lost;
  for (const auto& m : before) {
    if (!kept.count(m)) lost.push_back(m);
  }
  EXPECT_TRUE(lost.empty()) << lost.size() << " of " << before.size()
                            << " activations acknowledged before the backup are not in it, the "
                               "first: "
                            << (lost.empty() ? "" : lost.front());

  // The restored store serves them.
  ServerOptions on_copy;
  on_copy.store_flag = false;
  on_copy.args = {"--store", "sqlite:" + restored.string()};
  Stop();
  Start(on_copy);
  EXPECT_OK(Heartbeat(license, *before.begin()));
}

TEST_F(Backup, BackupNeverReplacesAFileAndRefusesAStoreThatDoesNotExist) {
  SKIP_UNLESS_SQLITE();
  const fs::path there = dir().WriteFile("there.db", "precious");
  const CommandResult replaced = admin().Run({"backup", "--out", there.string()});
  EXPECT_EQ(replaced.exit_code, 1) << replaced.Describe();
  std::ifstream in(there);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "precious");

  const Admin missing("sqlite:" + (dir().path() / "missing.db").string());
  const CommandResult refused =
      missing.Run({"backup", "--out", (dir().path() / "copy.db").string()});
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_FALSE(fs::exists(dir().path() / "copy.db"));
}

TEST_F(Backup, VerifyCountsTheRowsAndFindsABrokenReference) {
  SKIP_UNLESS_SQLITE();
  Start();
  const std::string license = NewLicense(3);
  EXPECT_OK(Activate(license, "machine-verify-1"));
  EXPECT_OK(Activate(license, "machine-verify-2"));
  const CommandResult sound = admin().Run({"verify", "--json"});
  ASSERT_EQ(sound.exit_code, 0) << sound.Describe();
  const auto report = json::parse(sound.out).as_object();
  EXPECT_TRUE(report.at("ok").as_bool());
  EXPECT_EQ(report.at("counts").as_object().at("licenses").as_int64(), 1);
  EXPECT_EQ(report.at("counts").as_object().at("activations").as_int64(), 2);
  EXPECT_EQ(report.at("counts").as_object().at("products").as_int64(), 1);
  Stop();

  // An activation whose license is gone, written with foreign keys off (as a bad manual
  // edit or a partial restore leaves it).
  const CommandResult broken =
      RunCommand({"/usr/bin/python3", "-c",
                  "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                  "c.execute('PRAGMA foreign_keys=OFF'); "
                  "c.execute(\"UPDATE activations SET license_id = 999999 WHERE machine_id = "
                  "'machine-verify-2'\"); c.commit()",
                  db_path().string()});
  ASSERT_EQ(broken.exit_code, 0) << broken.Describe();
  const CommandResult found = admin().Run({"verify"});
  EXPECT_EQ(found.exit_code, 1) << found.Describe();
  EXPECT_NE(found.out.find("problem: foreign key activations"), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("integrity NOT ok"), std::string::npos) << found.out;
}

TEST_F(Backup, VerifyOnPostgresqlCountsTheRows) {
  if (!on_postgres()) GTEST_SKIP() << "the PostgreSQL run covers it";
  const std::string license = NewLicense(3);
  const CommandResult r = admin().Run({"verify", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const auto report = json::parse(r.out).as_object();
  EXPECT_TRUE(report.at("ok").as_bool()) << r.out;
  EXPECT_EQ(report.at("counts").as_object().at("licenses").as_int64(), 1);
  const CommandResult backup = admin().Run({"backup", "--out", (dir().path() / "x").string()});
  EXPECT_EQ(backup.exit_code, 1) << backup.Describe();
  EXPECT_NE(backup.err.find("pg_dump"), std::string::npos) << backup.err;
}

}  // namespace
}  // namespace bb
