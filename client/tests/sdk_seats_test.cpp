// The SDK's concurrent-seat session (client/src/seat_session.h, docs/protocol.md §27)
// against the real server: 30 plugin instances in one process take one seat, joining
// never waits for the network, a lost seat is reported to every instance's callback
// while they keep running, the last instance to leave checks the seat in, and the seat of
// a process killed with SIGKILL is freed by its lease's expiry (the lease's end moved
// into the past in the store, since leaseTtl is at least 60 s); a borrowed seat's lease file
// answers a new client's start-up check with the server stopped.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "core/timestamp.h"
#include "license_client/license_client.hpp"
#include "sdk_fixture.h"
#include "seat_session.h"
#include "support/store_sql.h"

namespace licensed::client::test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class SdkSeats : public SdkTest {
 protected:
  int64_t Leases(const std::string& license) const {
    return bb::Int(bb::BodyJson(Status(license)), "leases");
  }
  // Polls until `pred` holds or `limit` passes.
  template <class Pred>
  static bool Eventually(Pred pred, milliseconds limit = seconds(10)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (pred()) return true;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return pred();
  }
};

TEST_F(SdkSeats, ThirtyInstancesInOneProcessTakeOneSeatAndTheLastToLeaveChecksItIn) {
  Start();
  const std::string license = SeatLicense(3, 2);
  ClientConfig config = Config(license);
  std::string error;
  auto client = Client::shared(config, error);
  ASSERT_TRUE(client) << error;
  ASSERT_TRUE(client->activate().ok());

  std::vector<std::unique_ptr<SeatSession::Handle>> instances;
  const auto before = std::chrono::steady_clock::now();
  for (int i = 0; i < 30; ++i) {
    // Each plugin instance makes its own client with the same settings, as hosts do.
    std::string e;
    instances.push_back(SeatSession::join(Client::shared(config, e)));
  }
  // Joining is for constructors: no instance waited for the network.
  EXPECT_LT(std::chrono::steady_clock::now() - before, milliseconds(500));
  SeatSession& session = instances.front()->session();
  for (const auto& h : instances) EXPECT_EQ(&h->session(), &session);
  ASSERT_TRUE(session.wait_until_decided(seconds(10)));
  EXPECT_EQ(session.state(), SeatState::kHeld);
  EXPECT_EQ(Leases(license), 1);
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 1u);

  instances.resize(1);
  EXPECT_EQ(Leases(license), 1);  // one instance still runs
  instances.clear();
  EXPECT_TRUE(Eventually([&] { return Leases(license) == 0; }));
  EXPECT_EQ(AuditRecords(license, "license.checkin").size(), 1u);
}

// Issue 25 item 3: the session renews on its own thread every leaseTtl / 3 (the shortest
// leaseTtl, 60 s: a renewal within 20 s, seen as the lease's end moving later in the
// store), with no call from the host, and a renewal writes no audit record.
TEST_F(SdkSeats, TheSessionRenewsItsLeaseEveryThirdOfTheLeaseTtlOnItsOwnThread) {
  Start();
  const std::string license = SeatLicense(2, 1, {"--lease-ttl", "60s"});
  ClientConfig config = Config(license);
  ASSERT_TRUE(Make(config)->activate().ok());
  std::string error;
  auto seat = SeatSession::join(Client::create(config, error));
  ASSERT_TRUE(seat->session().wait_until_decided(seconds(10)));
  ASSERT_EQ(seat->session().state(), SeatState::kHeld);
  const auto lease_end = [&] { return bb::StoreSql(store(), "SELECT expires_at FROM leases"); };
  const std::string first_end = lease_end();
  ASSERT_FALSE(first_end.empty());
  const auto joined = std::chrono::steady_clock::now();
  // The first renewal is due 20 s after the checkout; allowed until 55 s (a loaded machine),
  // still before the 60 s lease could end.
  ASSERT_TRUE(Eventually([&] { return lease_end() != first_end; }, seconds(55)));
  EXPECT_GE(std::chrono::steady_clock::now() - joined, seconds(15))
      << "renewed long before a third of the lease's time";
  EXPECT_GT(std::stoll(lease_end()), std::stoll(first_end));
  EXPECT_EQ(Leases(license), 1);
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 1u) << "a renewal is not audited";
}

TEST_F(SdkSeats, ALostSeatIsReportedToEveryInstanceWhichKeepsRunning) {
  Start();
  const std::string license = SeatLicense(3, 1);
  // Another computer holds the only seat.
  auto other = Make(Config(license));
  ASSERT_TRUE(other->activate().ok());
  ASSERT_TRUE(other->checkout("").ok());

  auto client = Make(Config(license));
  ASSERT_TRUE(client->activate().ok());
  std::atomic<int> told{0};
  std::atomic<bool> audio_running{true};
  auto first = SeatSession::join(client, [&](const Answer& why) {
    EXPECT_EQ(why.code, 1710);
    ++told;
  });
  auto second = SeatSession::join(client, [&](const Answer&) { ++told; });
  ASSERT_TRUE(first->session().wait_until_decided(seconds(10)));
  EXPECT_EQ(first->session().state(), SeatState::kLost);
  EXPECT_TRUE(Eventually([&] { return told.load() == 2; }));
  EXPECT_TRUE(audio_running.load());  // the callback locks the editor; nothing was stopped
  const auto why = first->session().last_answer();
  ASSERT_TRUE(why.has_value());
  EXPECT_GE(why->retry_after_seconds, 1);
}

// A plugin's destructor leaves while its lost-seat callback runs on the session's thread:
// leave returns only once that callback has returned (the plugin frees what the callback
// uses right after), and a callback that leaves its own handle does not wait for itself.
TEST_F(SdkSeats, LeavingWhileItsCallbackRunsReturnsOnlyAfterTheCallback) {
  Start();
  const std::string license = SeatLicense(3, 1);
  auto other = Make(Config(license));
  ASSERT_TRUE(other->activate().ok());
  ASSERT_TRUE(other->checkout("").ok());  // the only seat is taken: the session loses
  auto client = Make(Config(license));
  ASSERT_TRUE(client->activate().ok());

  std::atomic<bool> in_callback{false};
  std::atomic<bool> callback_done{false};
  std::unique_ptr<SeatSession::Handle> self_leaving;
  std::atomic<bool> self_left{false};
  auto plugin = SeatSession::join(client, [&](const Answer&) {
    in_callback = true;
    std::this_thread::sleep_for(milliseconds(300));  // the plugin locks its editor
    callback_done = true;
  });
  self_leaving = SeatSession::join(client, [&](const Answer&) {
    self_leaving.reset();  // leaves from inside its own callback
    self_left = true;
  });
  ASSERT_TRUE(Eventually([&] { return in_callback.load(); }));
  plugin.reset();  // the plugin's destructor, on the host's thread
  EXPECT_TRUE(callback_done.load()) << "leave returned while the callback still ran";
  EXPECT_TRUE(Eventually([&] { return self_left.load(); }));
}

TEST_F(SdkSeats, AProcessKilledWithSigkillFreesItsSeatByExpiry) {
#if defined(__SANITIZE_THREAD__)
  // The child is a fork of this multi-threaded test process that starts threads of its
  // own, which ThreadSanitizer cannot follow (it kills such a child); the debug and ASan
  // runs keep this test.
  GTEST_SKIP() << "ThreadSanitizer does not support threads in a forked child";
#endif
  Start();
  const std::string license = SeatLicense(3, 1);
  ClientConfig config = Config(license);
  auto parent_view = Make(config);
  ASSERT_TRUE(parent_view->activate().ok());

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string e;
    auto c = Client::create(config, e);
    auto seat = SeatSession::join(c);
    seat->session().wait_until_decided(seconds(10));
    for (;;) pause();  // a plugin running until the host is killed
  }
  EXPECT_TRUE(Eventually([&] { return Leases(license) == 1; }));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  // No checkin came: the seat stays taken until the lease ends.
  auto next = Make(Config(license));
  ASSERT_TRUE(next->activate().ok());
  EXPECT_EQ(next->checkout("").code, 1710);
  // The lease's end reached (leaseTtl is at least 60 s: the end is moved, not waited for).
  bb::StoreSql(store(), "UPDATE leases SET expires_at = expires_at - 3600000");
  EXPECT_EQ(Leases(license), 0);
  EXPECT_TRUE(next->checkout("").ok());
}

// Issue 25 item 2 end to end: the SDK borrows the seat from the real server and installs
// the lease file; with the server stopped, a new client's start-up check (a new process,
// C++ and C ABI) answers from the file with source lease; another computer's does not.
TEST_F(SdkSeats, ABorrowedSeatAnswersTheStartUpCheckFromItsLeaseFileWithTheServerStopped) {
  Start();
  const std::string license = SeatLicense(3, 1, {"--max-borrow", "7d"});
  const std::string url = Url();
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  config.offline_dir = dir().path() / "machine-wide";
  config.startup_budget = milliseconds(300);
  auto laptop = Make(config);
  ASSERT_TRUE(laptop->activate().ok());
  const Answer borrowed = laptop->checkout("", "3d");
  ASSERT_TRUE(borrowed.ok()) << Describe(borrowed);
  EXPECT_EQ(borrowed.warning, "") << "the lease file was installed";
  EXPECT_EQ(borrowed.file_text.rfind("-----BEGIN LICENSE LEASE-----", 0), 0u);
  ASSERT_TRUE(std::filesystem::exists(laptop->lease_file_path()));
  const int64_t borrowed_at = system_now_ms() / 1000;

  Stop();
  auto after = Make(config);  // the next day's process, off the network
  const Answer a = after->check_at_startup();
  EXPECT_TRUE(a.ok()) << Describe(a);
  EXPECT_EQ(a.source, Source::kLease);
  ASSERT_TRUE(a.valid_until.has_value());
  EXPECT_NEAR(static_cast<double>(*a.valid_until), static_cast<double>(borrowed_at + 3 * 86'400),
              5.0);

  // The same file seen by another computer (copied with the directory): no answer from it.
  ClientConfig elsewhere = Config(license, url);
  elsewhere.public_key = config.public_key;
  elsewhere.offline_dir = config.offline_dir;
  elsewhere.cache_dir = dir().path() / "elsewhere-cache";
  elsewhere.startup_budget = milliseconds(300);
  elsewhere.timeout = milliseconds(500);
  const Answer other = Make(elsewhere)->check_at_startup();
  EXPECT_FALSE(other.ok()) << Describe(other);
  EXPECT_NE(other.source, Source::kLease);

  // Through the C ABI, as a plugin host sees it.
  const std::string dir_text = config.offline_dir->string();
  const std::string cache_text = (dir().path() / "c-cache").string();
  lc_options o = lc_options_init();
  o.url = url.c_str();
  o.key_id = config.key_id.c_str();
  o.secret = config.secret.c_str();
  o.license_key = license.c_str();
  o.machine_id = config.machine_id.c_str();
  o.public_key = config.public_key.c_str();
  o.offline_dir = dir_text.c_str();
  o.cache_dir = cache_text.c_str();
  license_client::Client c_client(o);
  const auto c_answer = c_client.check_at_startup();
  EXPECT_TRUE(c_answer.ok()) << c_answer.message();
  EXPECT_EQ(c_answer.source(), LC_SOURCE_LEASE);
  EXPECT_EQ(c_answer.source_name(), "lease");
}

// Without a pinned key nothing could tell the server's file from a hand-made one: the
// borrowing checkout still succeeds and hands the file over, but installs nothing.
// Deactivating the machine releases its leases on the server, a borrowed one included
// (docs/protocol.md §27): the SDK deletes the lease file with it, so the start-up check no
// longer answers from a seat the server has given back.
TEST_F(SdkSeats, DeactivatingTheMachineDeletesItsBorrowedLeaseFile) {
  Start();
  const std::string license = SeatLicense(3, 1, {"--max-borrow", "7d"});
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  config.offline_dir = dir().path() / "machine-wide";
  auto laptop = Make(config);
  ASSERT_TRUE(laptop->activate().ok());
  ASSERT_TRUE(laptop->checkout("", "3d").ok());
  ASSERT_TRUE(std::filesystem::exists(laptop->lease_file_path()));
  ASSERT_TRUE(laptop->deactivate().ok());
  EXPECT_FALSE(std::filesystem::exists(laptop->lease_file_path()));
  EXPECT_EQ(Leases(license), 0);
  const Answer after = Make(config)->check_at_startup();
  EXPECT_NE(after.source, Source::kLease) << Describe(after);
}

TEST_F(SdkSeats, ABorrowWithoutAPinnedKeyHandsTheFileOverButInstallsNothing) {
  Start();
  const std::string license = SeatLicense(3, 1, {"--max-borrow", "7d"});
  ClientConfig config = Config(license);
  config.offline_dir = dir().path() / "machine-wide";
  auto client = Make(config);
  ASSERT_TRUE(client->activate().ok());
  const Answer a = client->checkout("", "1d");
  ASSERT_TRUE(a.ok()) << Describe(a);
  EXPECT_EQ(a.file_text.rfind("-----BEGIN LICENSE LEASE-----", 0), 0u);
  EXPECT_NE(a.warning.find("the lease file was not installed"), std::string::npos) << a.warning;
  EXPECT_FALSE(std::filesystem::exists(client->lease_file_path()));
}

}  // namespace
}  // namespace licensed::client::test
