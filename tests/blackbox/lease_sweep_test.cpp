// The minute sweep of ended leases (docs/protocol.md §27) against the real binary, on SQLite
// or PostgreSQL as the suite runs: a lease that ends is reported to a webhook receiver by
// exactly one lease.released with reason "expired" (the running server's minute sweep, its
// first round at start, or a checkout that drops it first), never again after a restart;
// with two instances on one PostgreSQL database, once in all. Leases are made to end by
// moving their expiresAt back in the store (tests/support/lease_age.h): leaseTtl is at
// least 60 s.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <map>
#include <thread>

#include "support/fixture.h"
#include "support/http_receiver.h"
#include "support/lease_age.h"

namespace bb {
namespace {

using std::chrono::seconds;

constexpr auto kEnded = std::chrono::milliseconds(61'000);  // past a 60 s lease's end
// One minute's tick, the delivery within 5 s of it, and room for a loaded machine.
constexpr seconds kMinuteSweep{90};

class LeaseSweep : public BlackboxTest {
 protected:
  void StartWithReceiver() {
    Start(Options());
    const CommandResult t = admin().Run({"token", "create", "--name", "hooks", "--json"});
    if (t.exit_code != 0) throw std::runtime_error(t.Describe());
    token_ = Str(ParseJson(t.out), "token");
    const HttpResponse made =
        Send(AdminApiRequest(token_, "POST", "/webhooks",
                             R"({"url":"http://127.0.0.1:)" + std::to_string(receiver_.port()) +
                                 R"(/hook","events":["lease.released"]})"));
    if (made.status != 201) throw std::runtime_error(made.Describe());
    endpoint_ = std::to_string(Int(ParseJson(made.body), "id"));
  }
  static ServerOptions Options() {
    ServerOptions o;
    o.args = {"--webhook-allow-http", "--webhook-allow-private"};
    return o;
  }
  // A license of 10 machines and 10 seats whose leases last 60 s.
  std::string SeatLicense() const {
    const CommandResult r =
        admin().Run({"license", "create", "--product", std::string(kProduct), "--max", "10",
                     "--max-concurrent", "10", "--lease-ttl", "60s", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return Str(ParseJson(r.out), "licenseKey");
  }
  HttpResponse Checkout(const std::string& license, const std::string& machine,
                        std::uint16_t to = 0) const {
    const std::string body =
        R"({"licenseKey":")" + license + R"(","machineId":")" + machine + "\"}";
    if (to == 0) return Call("checkout", body);
    return bb::Send(to, Signed("checkout", body), seconds(30));
  }
  void ActivateAndCheckOut(const std::string& license, const std::string& machine,
                           std::uint16_t to = 0) {
    ASSERT_OK(Activate(license, machine));
    const HttpResponse r = Checkout(license, machine, to);
    ASSERT_EQ(r.status, 200) << r.Describe();
  }
  // The types of the events written for the endpoint, whatever their delivery.
  std::vector<std::string> EventsWritten() const {
    const HttpResponse r =
        Send(AdminApiRequest(token_, "GET", "/webhooks/" + endpoint_ + "/deliveries?limit=100"));
    EXPECT_EQ(r.status, 200) << r.Describe();
    const json::value page = ParseJson(r.body);
    std::vector<std::string> types;
    for (const auto& d : Arr(page, "items")) types.push_back(Str(d, "type"));
    return types;
  }
  // Waits until `n` distinct events arrived (a failure bound); answers their bodies by
  // webhook-id, and fails for any id delivered twice.
  std::map<std::string, json::value> DistinctReleases(size_t n, seconds deadline) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    std::map<std::string, json::value> by_id;
    std::map<std::string, int> times;
    for (;;) {
      by_id.clear();
      times.clear();
      for (const auto& r : receiver_.Received()) {
        const std::string id = r.header("webhook-id").value_or("");
        ++times[id];
        by_id[id] = ParseJson(r.body);
      }
      if (by_id.size() >= n || std::chrono::steady_clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    for (const auto& [id, count] : times) EXPECT_EQ(count, 1) << id << " delivered twice";
    return by_id;
  }
  static void ExpectExpired(const json::value& body, const std::string& license,
                            const std::string& machine) {
    EXPECT_EQ(Str(body, "type"), "lease.released") << json::serialize(body);
    const json::value& data = body.at("data");
    EXPECT_EQ(Str(data, "reason"), "expired");
    EXPECT_EQ(Str(data, "actor"), "system");
    EXPECT_EQ(Str(data, "license.licenseKey"), license);
    EXPECT_EQ(Str(data, "machine.id"), machine);
    EXPECT_EQ(Str(data, "lease.sessionId"), machine);
  }

  HttpReceiver receiver_{200};
  std::string token_;
  std::string endpoint_;
};

TEST_F(LeaseSweep, TheMinuteSweepReportsAnEndedLeaseOnceAndARestartNotAgain) {
  StartWithReceiver();
  const std::string license = SeatLicense();
  ActivateAndCheckOut(license, "sweep-pc-0001");
  AgeLeases(store(), license, kEnded);
  const auto got = DistinctReleases(1, kMinuteSweep);
  ASSERT_EQ(got.size(), 1u) << "no lease.released within " << kMinuteSweep.count() << " s";
  ExpectExpired(got.begin()->second, license, "sweep-pc-0001");
  // An ending is no accepted change: no audit record (docs/protocol.md §17 names none).
  EXPECT_TRUE(AuditRecords(license, "license.checkin").empty());
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 1u);

  RestartServer();  // its first round runs before it is ready
  EXPECT_EQ(EventsWritten(), std::vector<std::string>{"lease.released"});
  // The seat is free, and taking it again is a new lease.
  const HttpResponse again = Checkout(license, "sweep-pc-0001");
  ASSERT_EQ(again.status, 200) << again.Describe();
  EXPECT_EQ(Int(BodyJson(again), "leases"), 1);
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 2u);
}

TEST_F(LeaseSweep, ALeaseThatEndedWhileNoServerRanIsReportedAtStartOnce) {
  StartWithReceiver();
  const std::string license = SeatLicense();
  ActivateAndCheckOut(license, "sweep-pc-0002");
  Stop();
  AgeLeases(store(), license, kEnded);
  Start(Options());
  const auto got = DistinctReleases(1, seconds(30));
  ASSERT_EQ(got.size(), 1u);
  ExpectExpired(got.begin()->second, license, "sweep-pc-0002");
  RestartServer();
  RestartServer();
  EXPECT_EQ(EventsWritten(), std::vector<std::string>{"lease.released"});
}

// A checkout of the license that finds the ended lease first drops and reports it itself;
// the sweep then finds nothing (§27 step 3).
TEST_F(LeaseSweep, AnEndedLeaseACheckoutDropsIsReportedOnceByThatCheckout) {
  StartWithReceiver();
  const std::string license = SeatLicense();
  ActivateAndCheckOut(license, "sweep-pc-0003");
  AgeLeases(store(), license, kEnded);
  ActivateAndCheckOut(license, "sweep-pc-0004");
  const auto got = DistinctReleases(1, seconds(30));
  ASSERT_EQ(got.size(), 1u);
  ExpectExpired(got.begin()->second, license, "sweep-pc-0003");
  RestartServer();
  EXPECT_EQ(EventsWritten(), std::vector<std::string>{"lease.released"});
}

TEST_F(LeaseSweep, TwoInstancesOnOnePostgresqlReportEachEndedLeaseOnce) {
  if (!on_postgres()) GTEST_SKIP() << "one SQLite file serves one instance";
  StartWithReceiver();
  auto other = StartAnother(Options());
  // Both sweeps have made their first minute's round by then (each instance's first round
  // comes a minute after it started, and this one started last).
  const auto both_swept = std::chrono::steady_clock::now() + seconds(63);
  const std::string license = SeatLicense();
  for (int i = 0; i < 8; ++i) {
    ActivateAndCheckOut(license, "twin-pc-000" + std::to_string(i),
                        i % 2 == 0 ? port() : other->port());
  }
  AgeLeases(store(), license, kEnded);
  const auto got = DistinctReleases(8, kMinuteSweep);
  ASSERT_EQ(got.size(), 8u);
  std::map<std::string, int> by_machine;
  for (const auto& [id, body] : got) {
    EXPECT_EQ(Str(body.at("data"), "reason"), "expired");
    ++by_machine[Str(body.at("data"), "machine.id")];
  }
  EXPECT_EQ(by_machine.size(), 8u);
  std::this_thread::sleep_until(both_swept);
  EXPECT_EQ(EventsWritten().size(), 8u);
  EXPECT_EQ(DistinctReleases(8, seconds(0)).size(), 8u);  // and none delivered twice
}

}  // namespace
}  // namespace bb
