// A machine going away releases its leases (docs/protocol.md §27) against the real binary, on
// SQLite or PostgreSQL as the suite runs: a client's deactivate and an admin's free through
// the admin API each reach a webhook receiver as one lease.released per lease of that machine,
// reason "deactivated", with the path's actor, the machine and the lease; another machine's
// lease stays held and unreported.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <map>
#include <thread>

#include "support/fixture.h"
#include "support/http_receiver.h"

namespace bb {
namespace {

using std::chrono::seconds;

class LeaseRelease : public BlackboxTest {
 protected:
  void StartWithReceiver() {
    ServerOptions o;
    o.args = {"--webhook-allow-http", "--webhook-allow-private"};
    Start(o);
    const CommandResult t = admin().Run({"token", "create", "--name", "hooks", "--json"});
    if (t.exit_code != 0) throw std::runtime_error(t.Describe());
    token_ = Str(ParseJson(t.out), "token");
    const HttpResponse made =
        Send(AdminApiRequest(token_, "POST", "/webhooks",
                             R"({"url":"http://127.0.0.1:)" + std::to_string(receiver_.port()) +
                                 R"(/hook","events":["lease.released"]})"));
    if (made.status != 201) throw std::runtime_error(made.Describe());
  }
  // A license of 10 machines and 10 seats.
  std::string SeatLicense() const {
    const CommandResult r = admin().Run({"license", "create", "--product", std::string(kProduct),
                                         "--max", "10", "--max-concurrent", "10", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return Str(ParseJson(r.out), "licenseKey");
  }
  void ActivateAndCheckOut(const std::string& license, const std::string& machine,
                           const std::string& session) {
    ASSERT_OK(Activate(license, machine));
    const HttpResponse r = Call("checkout", R"({"licenseKey":")" + license + R"(","machineId":")" +
                                                machine + R"(","sessionId":")" + session + "\"}");
    ASSERT_EQ(r.status, 200) << r.Describe();
  }
  // Waits until `n` events arrived, or the deadline; answers their bodies in arrival order.
  std::vector<json::value> Releases(size_t n, seconds deadline) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      const auto got = receiver_.Received();
      if (got.size() >= n || std::chrono::steady_clock::now() >= until) {
        std::vector<json::value> out;
        for (const auto& r : got) out.push_back(ParseJson(r.body));
        return out;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  HttpReceiver receiver_{200};
  std::string token_;
};

TEST_F(LeaseRelease, ADeactivateAndAnAdminFreeReportEachLeaseOfTheirMachineAsDeactivated) {
  StartWithReceiver();
  const std::string license = SeatLicense();
  ActivateAndCheckOut(license, "release-pc-0001", "daw-session-1");
  ActivateAndCheckOut(license, "release-pc-0002", "daw-session-2");
  ActivateAndCheckOut(license, "release-pc-0003", "daw-session-3");

  ASSERT_OK(Deactivate(license, "release-pc-0001"));
  const HttpResponse freed = Send(
      AdminApiRequest(token_, "DELETE", "/licenses/" + license + "/activations/release-pc-0002"));
  ASSERT_TRUE(freed.status == 200 || freed.status == 204) << freed.Describe();

  auto got = Releases(2, seconds(30));
  ASSERT_EQ(got.size(), 2u) << "expected one lease.released per freed machine";
  std::map<std::string, json::value> by_machine;
  for (const auto& body : got) {
    EXPECT_EQ(Str(body, "type"), "lease.released") << json::serialize(body);
    by_machine[Str(body.at("data"), "machine.id")] = body.at("data");
  }
  ASSERT_EQ(by_machine.count("release-pc-0001"), 1u);
  ASSERT_EQ(by_machine.count("release-pc-0002"), 1u);
  const json::value& deactivated = by_machine["release-pc-0001"];
  EXPECT_EQ(Str(deactivated, "reason"), "deactivated");
  EXPECT_EQ(Str(deactivated, "actor"), "client");
  EXPECT_EQ(Str(deactivated, "license.licenseKey"), license);
  EXPECT_EQ(Str(deactivated, "lease.sessionId"), "daw-session-1");
  const json::value& freed_data = by_machine["release-pc-0002"];
  EXPECT_EQ(Str(freed_data, "reason"), "deactivated");
  EXPECT_EQ(Str(freed_data, "actor"), "admin");
  EXPECT_EQ(Str(freed_data, "lease.sessionId"), "daw-session-2");

  // The third machine's lease is still held, and was not reported.
  const HttpResponse leases =
      Send(AdminApiRequest(token_, "GET", "/licenses/" + license + "/leases"));
  ASSERT_EQ(leases.status, 200) << leases.Describe();
  const json::value page = ParseJson(leases.body);
  const auto& items = Arr(page, "items");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(Str(items[0], "machineId"), "release-pc-0003");
  std::this_thread::sleep_for(seconds(1));
  EXPECT_EQ(receiver_.Received().size(), 2u);
}

}  // namespace
}  // namespace bb
