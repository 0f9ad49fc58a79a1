// Concurrent seats (docs/protocol.md §27) against the real binary, on SQLite or PostgreSQL
// as the suite runs: checkout and checkin answers (checked against the OpenAPI document),
// the seat cap exact under 64 concurrent checkouts with 1710's Retry-After, status showing
// the seats, deactivation releasing a seat, support's lease list and release (API and
// CLI, audited as admin), and a borrowed lease file verified by an independent Ed25519
// implementation (tests/support/verify_activation_file.py --kind lease, Python's
// `cryptography`).
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "support/fixture.h"
#include "support/http_receiver.h"
#include "support/openapi_check.h"

namespace bb {
namespace {

class Seats : public BlackboxTest {
 protected:
  // A license of `max` machines and `seats` concurrent seats, borrowing up to 7 days.
  std::string SeatLicense(int max, int seats) const {
    const CommandResult r = admin().Run({"license", "create", "--product", std::string(kProduct),
                                         "--max", std::to_string(max), "--max-concurrent",
                                         std::to_string(seats), "--max-borrow", "7d", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    return Str(ParseJson(r.out), "licenseKey");
  }
  std::string SeatBody(const std::string& license, const std::string& machine,
                       const std::string& extra = "") const {
    return R"({"licenseKey":")" + license + R"(","machineId":")" + machine + "\"" + extra + "}";
  }
  HttpResponse Checkout(const std::string& license, const std::string& machine,
                        const std::string& extra = "") {
    HttpResponse r = Call("checkout", SeatBody(license, machine, extra));
    EXPECT_DOCUMENTED(OpenApi(), "post", "/api/v1/license/checkout", r);
    return r;
  }
  HttpResponse Checkin(const std::string& license, const std::string& machine) {
    HttpResponse r = Call("checkin", SeatBody(license, machine));
    EXPECT_DOCUMENTED(OpenApi(), "post", "/api/v1/license/checkin", r);
    return r;
  }
  const json::value& OpenApi() {
    if (openapi_.is_null()) {
      HttpRequest doc;
      doc.method = "GET";
      doc.target = "/api/v1/openapi.json";
      openapi_ = ParseJson(Send(doc).body);
    }
    return openapi_;
  }
  HttpResponse AdminCall(const std::string& method, const std::string& target,
                         const std::string& path) {
    if (token_.empty()) {
      const CommandResult t = admin().Run({"token", "create", "--name", "support", "--json"});
      if (t.exit_code != 0) throw std::runtime_error(t.Describe());
      token_ = Str(ParseJson(t.out), "token");
    }
    HttpRequest request;
    request.method = method;
    request.target = "/api/v1/admin" + target;
    request.Set("Authorization", "Bearer " + token_);
    HttpResponse r = Send(request);
    std::string lower = method;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_DOCUMENTED(OpenApi(), lower, "/api/v1/admin" + path, r);
    return r;
  }

  json::value openapi_;
  std::string token_;
};

TEST_F(Seats, ACheckoutTakesASeatThatStatusShowsAndACheckinGivesItBack) {
  Start();
  const std::string license = SeatLicense(3, 2);
  ASSERT_OK(Activate(license, "studio-pc-0001"));
  const HttpResponse out = Checkout(license, "studio-pc-0001");
  ASSERT_OK(out);
  const json::value body = BodyJson(out);
  EXPECT_EQ(Int(body, "leases"), 1);
  EXPECT_EQ(Int(body, "maxConcurrent"), 2);
  EXPECT_EQ(Int(body, "leaseTtl"), 900);
  EXPECT_EQ(Str(body, "lease.sessionId"), "studio-pc-0001");
  const json::value status = BodyJson(Status(license, "studio-pc-0001"));
  EXPECT_EQ(Int(status, "leases"), 1);
  EXPECT_EQ(Int(status, "maxConcurrent"), 2);
  // A renewal: same seat, no new audit record.
  ASSERT_OK(Checkout(license, "studio-pc-0001"));
  EXPECT_EQ(AuditRecords(license, "license.checkout").size(), 1u);

  const HttpResponse in = Checkin(license, "studio-pc-0001");
  ASSERT_OK(in);
  EXPECT_TRUE(BodyJson(in).as_object().at("released").as_bool());
  EXPECT_EQ(Int(BodyJson(in), "leases"), 0);
  EXPECT_FALSE(BodyJson(Checkin(license, "studio-pc-0001")).as_object().at("released").as_bool());
  EXPECT_EQ(AuditRecords(license, "license.checkin").size(), 1u);
}

// The vendor hears of seats (docs/protocol.md §25.2): a checkout that takes a seat is
// lease.created, a checkin lease.released, a refusal 1710 license.limit_reached with its
// code; support sees the 1710 among the license's refusals (§26.1).
TEST_F(Seats, SeatsAreReportedByWebhooksAndA1710IsAmongTheRefusals) {
  ServerOptions o;
  o.args = {"--webhook-allow-http", "--webhook-allow-private"};
  Start(o);
  HttpReceiver receiver(200);
  // Through the admin API: the server's --webhook-allow-* switches apply there.
  const CommandResult t = admin().Run({"token", "create", "--name", "hooks", "--json"});
  ASSERT_EQ(t.exit_code, 0) << t.Describe();
  const HttpResponse made = Send(AdminApiRequest(
      Str(ParseJson(t.out), "token"), "POST", "/webhooks",
      R"({"url":"http://127.0.0.1:)" + std::to_string(receiver.port()) +
          R"(/hook","events":["lease.created","lease.released","license.limit_reached"]})"));
  ASSERT_EQ(made.status, 201) << made.Describe();
  const std::string license = SeatLicense(3, 1);
  ASSERT_OK(Activate(license, "studio-pc-0001"));
  ASSERT_OK(Activate(license, "studio-pc-0002"));
  ASSERT_EQ(Checkout(license, "studio-pc-0001").status, 200);
  EXPECT_API_ERROR(Checkout(license, "studio-pc-0002"), 409, 1710, "LICENSE_API_CONCURRENCY_LIMIT");
  ASSERT_EQ(Checkin(license, "studio-pc-0001").status, 200);
  const auto got = receiver.WaitFor(3);
  ASSERT_EQ(got.size(), 3u);
  std::map<std::string, json::value> by_type;
  for (const auto& delivery : got) {
    const json::value body = ParseJson(delivery.body);
    by_type[Str(body, "type")] = body.at("data");
  }
  ASSERT_EQ(by_type.size(), 3u);
  EXPECT_EQ(Str(by_type.at("lease.created"), "machine.id"), "studio-pc-0001");
  EXPECT_EQ(Str(by_type.at("lease.released"), "machine.id"), "studio-pc-0001");
  EXPECT_EQ(Int(by_type.at("license.limit_reached"), "code"), 1710);
  EXPECT_EQ(Str(by_type.at("license.limit_reached"), "machine.id"), "studio-pc-0002");
  // The refusal is recorded after its answer: it shows up within moments.
  json::value refusals;
  for (int i = 0; i < 100; ++i) {
    const HttpResponse r =
        AdminCall("GET", "/licenses/" + license + "/refusals", "/licenses/{key}/refusals");
    ASSERT_EQ(r.status, 200) << r.Describe();
    refusals = ParseJson(r.body);
    if (!Arr(refusals, "items").empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(Arr(refusals, "items").size(), 1u) << json::serialize(refusals);
  EXPECT_EQ(Int(Arr(refusals, "items")[0], "code"), 1710);
  EXPECT_EQ(Str(Arr(refusals, "items")[0], "machineId"), "studio-pc-0002");
}

// docs/protocol.md §27 and §11: renewing a live lease does not count in the key
// bucket; a checkout that would take a seat does, and is refused 429 once it is empty.
TEST_F(Seats, RenewalsDoNotCountInTheKeyBucketAndANewCheckoutDoes) {
  Start(WithRateLimits("off", "3/1m"));
  const std::string license = SeatLicense(3, 3);
  ASSERT_OK(Activate(license, "studio-pc-0001"));              // token 1
  ASSERT_EQ(Checkout(license, "studio-pc-0001").status, 200);  // token 2: takes a seat
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(Checkout(license, "studio-pc-0001").status, 200) << "renewal " << i;
  }
  const std::string second = R"(,"sessionId":"second-session-01")";
  ASSERT_EQ(Checkout(license, "studio-pc-0001", second).status, 200);  // token 3
  EXPECT_RATE_LIMITED(Checkout(license, "studio-pc-0001", R"(,"sessionId":"third-session-001")"),
                      "key", 60);
  // With the bucket empty, renewals of either live lease still go through.
  EXPECT_EQ(Checkout(license, "studio-pc-0001").status, 200);
  EXPECT_EQ(Checkout(license, "studio-pc-0001", second).status, 200);
  EXPECT_RATE_LIMITED(Call("status", SeatBody(license, "studio-pc-0001")), "key", 60);
}

TEST_F(Seats, ACheckoutOfAMachineNotActivatedIs1707) {
  Start();
  const std::string license = SeatLicense(3, 2);
  const HttpResponse r = Checkout(license, "never-activated-01");
  ExpectApiError(r, 404, 1707, "LICENSE_API_MACHINE_NOT_ACTIVATED");
}

TEST_F(Seats, TheSeatCapIsExactUnder64ConcurrentCheckouts) {
  Start();
  const std::string license = SeatLicense(64, 5);
  for (int i = 0; i < 64; ++i) ASSERT_OK(Activate(license, "ci-runner-" + std::to_string(i)));
  std::vector<HttpRequest> requests;
  for (int i = 0; i < 64; ++i) {
    requests.push_back(Signed("checkout", SeatBody(license, "ci-runner-" + std::to_string(i))));
  }
  int ok = 0, full = 0;
  for (const HttpResponse& r : SendAllAtOnce(requests)) {
    if (r.status == 200) {
      ++ok;
    } else {
      ExpectApiError(r, 409, 1710, "LICENSE_API_CONCURRENCY_LIMIT");
      const json::value e = BodyJson(r);
      EXPECT_EQ(Int(e, "leases"), 5);
      EXPECT_EQ(Int(e, "maxConcurrent"), 5);
      // Until the earliest lease ends: at most leaseTtl (15m), at least most of it.
      EXPECT_GE(Int(e, "retryAfter"), 890);
      EXPECT_LE(Int(e, "retryAfter"), 900);
      EXPECT_EQ(r.header("Retry-After").value_or(""), std::to_string(Int(e, "retryAfter")));
      ++full;
    }
  }
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(full, 59);
  EXPECT_EQ(Int(BodyJson(Status(license)), "leases"), 5);
}

TEST_F(Seats, DeactivatingAMachineReleasesItsSeat) {
  Start();
  const std::string license = SeatLicense(3, 1);
  ASSERT_OK(Activate(license, "laptop-000001"));
  ASSERT_OK(Activate(license, "desktop-00001"));
  ASSERT_OK(Checkout(license, "laptop-000001"));
  EXPECT_EQ(Checkout(license, "desktop-00001").status, 409);
  ASSERT_OK(Deactivate(license, "laptop-000001"));
  EXPECT_OK(Checkout(license, "desktop-00001"));
}

TEST_F(Seats, SupportListsLeasesAndReleasesABorrowedOneAuditedAsAdmin) {
  Start();
  const std::string license = SeatLicense(3, 1);
  ASSERT_OK(Activate(license, "tour-laptop-01"));
  ASSERT_OK(Activate(license, "studio-pc-0001"));
  ASSERT_OK(Checkout(license, "tour-laptop-01", R"(,"borrowFor":"2d")"));
  // The client gives it back early: answered released, yet the seat stays counted.
  EXPECT_TRUE(BodyJson(Checkin(license, "tour-laptop-01")).as_object().at("released").as_bool());
  EXPECT_EQ(Checkout(license, "studio-pc-0001").status, 409);

  const std::string base = "/licenses/" + license + "/leases";
  const HttpResponse list = AdminCall("GET", base, "/licenses/{key}/leases");
  ASSERT_EQ(list.status, 200) << list.Describe();
  const json::value listed = BodyJson(list);
  const json::array& items = Arr(listed, "items");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(Str(items[0], "machineId"), "tour-laptop-01");
  EXPECT_TRUE(items[0].as_object().at("borrowed").as_bool());
  const CommandResult cli = admin().Run({"license", "leases", license, "--json"});
  ASSERT_EQ(cli.exit_code, 0) << cli.Describe();
  EXPECT_EQ(ParseJson(cli.out).as_array().size(), 1u);

  const std::string path = "/licenses/{key}/leases/{machineId}/{sessionId}";
  const HttpResponse released = AdminCall("DELETE", base + "/tour-laptop-01/tour-laptop-01", path);
  ASSERT_EQ(released.status, 200) << released.Describe();
  ExpectApiError(AdminCall("DELETE", base + "/tour-laptop-01/tour-laptop-01", path), 404, 1707,
                 "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_OK(Checkout(license, "studio-pc-0001"));
  const auto checkins = AuditRecords(license, "license.checkin");
  ASSERT_EQ(checkins.size(), 2u);
  EXPECT_EQ(Str(checkins[1], "actor"), "admin");
}

TEST_F(Seats, ABorrowedLeaseFileVerifiesWithAnIndependentEd25519Implementation) {
  Start();
  const std::string license = SeatLicense(3, 2);
  ASSERT_OK(Activate(license, "tour-laptop-01"));
  EXPECT_EQ(Checkout(license, "tour-laptop-01", R"(,"borrowFor":"8d")").status, 400);
  const HttpResponse r = Checkout(license, "tour-laptop-01", R"(,"borrowFor":"3d")");
  ASSERT_OK(r);
  const std::string file = Str(BodyJson(r), "leaseFile");
  const auto keys = dir().path() / "keys.json";
  const auto lease = dir().path() / "lease.lic";
  std::ofstream(keys, std::ios::trunc) << GetPublicKeys().body;
  std::ofstream(lease, std::ios::trunc) << file;
  const CommandResult verified = RunCommand({"/usr/bin/python3", LICENSED_ACTIVATION_VERIFIER,
                                             "--kind", "lease", "--keys", keys, "--file", lease});
  ASSERT_EQ(verified.exit_code, 0) << verified.Describe();
  const json::value payload = ParseJson(verified.out);
  EXPECT_EQ(Str(payload, "licenseKey"), license);
  EXPECT_EQ(Str(payload, "machine.id"), "tour-laptop-01");
  EXPECT_EQ(Str(payload, "sessionId"), "tour-laptop-01");
  EXPECT_EQ(Str(payload, "expiresAt"), Str(BodyJson(r), "lease.expiresAt"));
  // The same bytes edited no longer verify.
  std::string edited = file;
  edited[edited.find('\n') + 10] ^= 1;
  std::ofstream(lease, std::ios::trunc) << edited;
  EXPECT_NE(RunCommand({"/usr/bin/python3", LICENSED_ACTIVATION_VERIFIER, "--kind", "lease",
                        "--keys", keys, "--file", lease})
                .exit_code,
            0);
}

}  // namespace
}  // namespace bb
