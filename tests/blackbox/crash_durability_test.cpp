// Crash durability (docs/protocol.md §7 and §17; design: "nothing acknowledged is lost"): the
// server is killed with SIGKILL while concurrent activations are in flight, restarted on
// the same SQLite file, and the file must hold every activation it answered 200 for,
// each with its license.activate audit record, no activation without one, and no
// license over its cap. Kill points vary from round to round, so the kill lands in
// different places of the group commit (waiting, mid-batch, between batches).
#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "support/fixture.h"

namespace bb {
namespace {

class CrashDurability : public BlackboxTest {};

struct Answer {
  std::string license;
  std::string machine;
  int status = 0;  // 0: no answer (the server died first): the outcome is unknown
};

// SQLite's own consistency check of the file the restarted server runs on (WAL lets a
// second connection read beside it).
std::string IntegrityCheck(const std::filesystem::path& db) {
  sqlite3* conn = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &conn, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    out = std::string("open failed: ") + sqlite3_errmsg(conn);
  } else {
    sqlite3_busy_timeout(conn, 10000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(conn, "PRAGMA integrity_check", -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        out += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      }
    } else {
      out = std::string("prepare failed: ") + sqlite3_errmsg(conn);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close_v2(conn);
  return out;
}

TEST_F(CrashDurability, AcknowledgedActivationsSurviveSigkillWithTheirAuditRecords) {
  constexpr int kMax = 5;
  constexpr int kLicensesPerRound = 3;
  constexpr int kThreads = 8;
  constexpr int kMachinesPerThread = 10;  // 80 attempts for 15 slots per round
  // How many answers the clients get before the kill, one round each.
  const std::vector<int> kill_after = {1, 6, 13, 27, 48};

  std::vector<Answer> answers;  // every round's, checked against the file every round
  std::vector<std::string> licenses;
  Start();
  for (std::size_t round = 0; round < kill_after.size(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", SIGKILL after " +
                 std::to_string(kill_after[round]) + " answers");
    std::vector<std::string> round_licenses;
    for (int i = 0; i < kLicensesPerRound; ++i) round_licenses.push_back(NewLicense(kMax));
    licenses.insert(licenses.end(), round_licenses.begin(), round_licenses.end());

    std::mutex mu;
    std::condition_variable cv;
    int answered = 0;
    int threads_done = 0;
    std::atomic<bool> killed{false};
    std::vector<Answer> round_answers;
    const std::uint16_t p = port();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int m = 0; m < kMachinesPerThread && !killed.load(); ++m) {
          Answer a;
          a.license = round_licenses[static_cast<std::size_t>(t + m) % round_licenses.size()];
          a.machine = "crash-r" + std::to_string(round) + "-t" + std::to_string(t) + "-m" +
                      std::to_string(m);
          a.status =
              bb::Send(p,
                       SignedRequest(kPluginKey, Endpoint("activate"), Body(a.license, a.machine)),
                       std::chrono::seconds(30))
                  .status;
          std::lock_guard lock(mu);
          if (a.status != 0) ++answered;
          round_answers.push_back(std::move(a));
          cv.notify_all();
        }
        std::lock_guard lock(mu);
        ++threads_done;
        cv.notify_all();
      });
    }
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return answered >= kill_after[round] || threads_done == kThreads; });
    }
    ASSERT_EQ(::kill(server().pid(), SIGKILL), 0);
    killed.store(true);
    for (auto& th : threads) th.join();
    EXPECT_GE(answered, kill_after[round]) << "the clients ran out of work before the kill";

    for (const Answer& a : round_answers) {
      // Before the kill only 200 and 409 are right; afterwards requests find no server.
      EXPECT_TRUE(a.status == 200 || a.status == 409 || a.status == 0)
          << a.license << " " << a.machine << " answered " << a.status;
    }
    answers.insert(answers.end(), round_answers.begin(), round_answers.end());

    Start();  // reaps the killed server, then starts a new one on the same file
    if (!on_postgres()) {
      EXPECT_EQ(IntegrityCheck(db_path()), "ok");
    }

    std::map<std::string, std::set<std::string>> acknowledged;  // license -> machines (200)
    std::set<std::string> refused;                              // licenses that answered 409
    for (const Answer& a : answers) {
      if (a.status == 200) acknowledged[a.license].insert(a.machine);
      if (a.status == 409) refused.insert(a.license);
    }
    for (const std::string& license : licenses) {
      SCOPED_TRACE("license " + license);
      const json::value shown = admin().Show(license);
      std::set<std::string> active;
      for (const auto& m : Arr(shown, "activations")) {
        active.insert(Str(m, "id"));
      }
      std::multiset<std::string> audited;
      for (const auto& rec : AuditRecords(license, "license.activate")) {
        audited.insert(Str(rec, "machineId"));
      }
      EXPECT_LE(active.size(), static_cast<std::size_t>(kMax)) << "over the cap after a crash";
      for (const std::string& machine : acknowledged[license]) {
        EXPECT_TRUE(active.count(machine)) << machine << " was answered 200 and is lost";
      }
      // Never kept without its audit record, never an audit record for a lost change.
      EXPECT_EQ(std::multiset<std::string>(active.begin(), active.end()), audited);
      // A 409 is sent only after the batch that saw a full license committed, and
      // nothing here deactivates, so that license must still be full.
      if (refused.count(license)) {
        EXPECT_EQ(active.size(), static_cast<std::size_t>(kMax))
            << "a 409 was answered for a license that is no longer full";
      }
      const HttpResponse status = Status(license);
      ASSERT_OK(status);
      EXPECT_EQ(Int(BodyJson(status), "activations"), static_cast<std::int64_t>(active.size()));
    }
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace bb
