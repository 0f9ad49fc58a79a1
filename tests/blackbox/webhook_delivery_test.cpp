// Webhook delivery guarantees against the real server (docs/protocol.md §25.3): every
// committed change's event arrives after a SIGKILL in the middle of a burst; a receiver
// that was down gets everything once it is back; two instances on one PostgreSQL make each
// attempt once; a TLS receiver with a CA of its own is reached only when the server is
// given that CA, and the refusal is recorded with the delivery. Receivers count by
// webhook-id: duplicates are allowed where the guarantee is at least once.
#include <signal.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "support/fixture.h"
#include "support/free_port.h"
#include "support/http_receiver.h"
#include "support/provider_stand_in.h"

namespace bb {
namespace {

class WebhookDelivery : public BlackboxTest {
 protected:
  ServerOptions Options(std::vector<std::string> args) const {
    ServerOptions o;
    o.args = std::move(args);
    return o;
  }
  void StartWith(std::vector<std::string> args) {
    Start(Options(std::move(args)));
    if (!token_.empty()) return;
    const CommandResult r = admin().Run({"token", "create", "--name", "hooks", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    token_ = Str(ParseJson(r.out), "token");
  }
  static std::vector<std::string> PlainLoopback() {
    return {"--webhook-allow-http", "--webhook-allow-private"};
  }

  HttpResponse Api(const std::string& method, const std::string& target, std::string body = "") {
    return Send(AdminApiRequest(token_, method, target, std::move(body)));
  }

  // The endpoint's id.
  std::string CreateEndpoint(const std::string& url) {
    const HttpResponse r = Api("POST", "/webhooks", R"({"url":")" + url + R"(","events":["*"]})");
    EXPECT_EQ(r.status, 201) << r.Describe();
    return std::to_string(Int(ParseJson(r.body), "id"));
  }

  json::array Deliveries(const std::string& endpoint) {
    const HttpResponse r = Api("GET", "/webhooks/" + endpoint + "/deliveries?limit=100");
    EXPECT_EQ(r.status, 200) << r.Describe();
    return ParseJson(r.body).at("items").as_array();
  }

  // Polls the endpoint's deliveries until `done` holds for each of at least `n` (a failure
  // bound, not a measurement); answers the last page read.
  json::array DeliveriesOnceAll(const std::string& endpoint, size_t n,
                                const std::function<bool(const json::value&)>& done) {
    json::array items;
    for (int i = 0; i < 300; ++i) {
      items = Deliveries(endpoint);
      size_t ready = 0;
      for (const auto& d : items) ready += done(d) ? 1 : 0;
      if (items.size() >= n && ready == items.size()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return items;
  }

  std::string token_;
};

// webhook-id -> {type, licenseKey, machineId}, one entry per id whatever the repeats.
struct Seen {
  std::map<std::string, std::tuple<std::string, std::string, std::string>> by_id;
  std::map<std::string, int> repeats;  // webhook-id -> times received
};

Seen Distinct(const std::vector<ReceivedRequest>& got) {
  Seen seen;
  for (const auto& r : got) {
    const std::string id = r.header("webhook-id").value_or("");
    ++seen.repeats[id];
    const json::value body = ParseJson(r.body);
    const json::value& data = body.at("data");
    const std::string machine =
        data.as_object().contains("machine") ? Str(data.at("machine"), "id") : "";
    seen.by_id[id] = {Str(body, "type"), Str(data.at("license"), "licenseKey"), machine};
  }
  return seen;
}

// Waits until `count` distinct webhook-ids arrived at `receiver` (a failure bound).
template <class Receiver>
Seen WaitForDistinct(Receiver& receiver, size_t count, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  Seen seen = Distinct(receiver.Received());
  while (seen.by_id.size() < count && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    seen = Distinct(receiver.Received());
  }
  return seen;
}

TEST_F(WebhookDelivery, ATlsReceiverWithItsOwnCaIsReachedOnlyWhenTheServerIsGivenThatCa) {
  ProviderStandIn receiver(ProviderStandIn::Tls::kOwnCa);
  receiver.Answer("/hook",
                  {.status = 200, .body = "{}", .headers = {}, .delay = {}, .chunked = false});
  StartWith({"--webhook-allow-private"});  // https only
  const std::string endpoint = CreateEndpoint(receiver.base_url() + "/hook");
  const std::string license = NewLicense(1);
  json::array items =
      DeliveriesOnceAll(endpoint, 1, [](const json::value& d) { return Int(d, "attempts") >= 1; });
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TRUE(items[0].at("deliveredAt").is_null());
  EXPECT_TRUE(items[0].at("lastStatus").is_null());
  EXPECT_NE(Str(items[0], "lastError").find("certificate"), std::string::npos)
      << json::serialize(items[0]);
  EXPECT_TRUE(receiver.Received().empty()) << "no request crosses an unverified connection";

  ASSERT_EQ(Stop(), 0);
  StartWith({"--webhook-allow-private", "--outgoing-ca-file", receiver.ca_file()});
  const std::string event_id = Str(items[0], "eventId");
  const HttpResponse retried =
      Api("POST", "/webhooks/" + endpoint + "/deliveries/" + event_id + "/retry");
  ASSERT_EQ(retried.status, 200) << retried.Describe();
  const auto got = receiver.WaitFor(1);
  ASSERT_GE(got.size(), 1u);
  EXPECT_EQ(got[0].header("webhook-id").value_or(""), event_id);
  EXPECT_EQ(Str(ParseJson(got[0].body).at("data").at("license"), "licenseKey"), license);
  items = DeliveriesOnceAll(endpoint, 1,
                            [](const json::value& d) { return !d.at("deliveredAt").is_null(); });
  EXPECT_FALSE(items[0].at("deliveredAt").is_null());
}

TEST_F(WebhookDelivery, AReceiverThatWasDownGetsEverythingOnceItIsBack) {
  const std::uint16_t port = FreeLoopbackPort();  // nobody listens: connections are refused
  StartWith(PlainLoopback());
  const std::string endpoint = CreateEndpoint("http://127.0.0.1:" + std::to_string(port) + "/hook");
  std::set<std::string> licenses;
  for (int i = 0; i < 4; ++i) licenses.insert(NewLicense(1));
  const json::array failed =
      DeliveriesOnceAll(endpoint, 4, [](const json::value& d) { return Int(d, "attempts") >= 1; });
  ASSERT_EQ(failed.size(), 4u);
  for (const auto& d : failed) {
    EXPECT_TRUE(d.at("deliveredAt").is_null());
    EXPECT_FALSE(Str(d, "lastError").empty()) << json::serialize(d);
  }

  // Back on the same port: the schedule's next attempt (5 s after the first) reaches it.
  ProviderStandIn receiver(ProviderStandIn::Tls::kOff, port);
  receiver.Answer("/hook",
                  {.status = 200, .body = "", .headers = {}, .delay = {}, .chunked = false});
  const Seen seen = WaitForDistinct(receiver, 4, std::chrono::seconds(60));
  std::set<std::string> reported;
  for (const auto& [id, what] : seen.by_id) {
    EXPECT_EQ(std::get<0>(what), "license.created");
    reported.insert(std::get<1>(what));
  }
  EXPECT_EQ(reported, licenses);
  const json::array done = DeliveriesOnceAll(
      endpoint, 4, [](const json::value& d) { return !d.at("deliveredAt").is_null(); });
  for (const auto& d : done) EXPECT_FALSE(d.at("deliveredAt").is_null()) << json::serialize(d);
}

TEST_F(WebhookDelivery, EveryCommittedChangeIsDeliveredAfterASigkillInTheMiddleOfABurst) {
  // A receiver slower than the burst, so deliveries are claimed and under way at the kill.
  ProviderStandIn receiver;
  receiver.Answer("/hook", {.status = 200,
                            .body = "",
                            .headers = {},
                            .delay = std::chrono::milliseconds(150),
                            .chunked = false});
  StartWith(PlainLoopback());
  CreateEndpoint(receiver.base_url() + "/hook");
  std::vector<std::string> licenses;
  for (int i = 0; i < 3; ++i) licenses.push_back(NewLicense(100));

  std::atomic<int> answered{0};
  std::atomic<bool> killed{false};
  const std::uint16_t p = port();
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int m = 0; m < 30 && !killed.load(); ++m) {
        const std::string& license = licenses[static_cast<size_t>(t + m) % licenses.size()];
        const std::string machine = "burst-t" + std::to_string(t) + "-m" + std::to_string(m);
        const auto r =
            bb::Send(p, SignedRequest(kPluginKey, Endpoint("activate"), Body(license, machine)),
                     std::chrono::seconds(30));
        if (r.status != 0) ++answered;
      }
    });
  }
  threads.emplace_back([&] {  // admin changes beside them
    for (int i = 0; i < 30 && !killed.load(); ++i) {
      const std::string& license = licenses[static_cast<size_t>(i) % licenses.size()];
      const auto r = bb::Send(p,
                              AdminApiRequest(token_, "PATCH", "/licenses/" + license,
                                              R"({"max":)" + std::to_string(101 + i) + "}"),
                              std::chrono::seconds(30));
      if (r.status != 0) ++answered;
    }
  });
  while (answered.load() < 40 && receiver.Received().size() < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  while (answered.load() < 40) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(::kill(server().pid(), SIGKILL), 0);
  killed.store(true);
  for (auto& th : threads) th.join();

  StartWith(PlainLoopback());  // reaps the killed server; claims it held lapse in a minute
  // What was committed: the audit records, each the record of one event.
  std::map<std::tuple<std::string, std::string, std::string>, int> committed;
  size_t expected = 0;
  for (const std::string& license : licenses) {
    for (const auto& [action, type] : std::vector<std::pair<std::string, std::string>>{
             {"license.create", "license.created"},
             {"license.activate", "activation.created"},
             {"license.update", "license.updated"}}) {
      for (const auto& rec : AuditRecords(license, action)) {
        const std::string machine =
            type == "activation.created" ? Str(rec, "machineId") : std::string();
        ++committed[{type, license, machine}];
        ++expected;
      }
    }
  }
  EXPECT_GT(expected, 40u);
  const Seen seen = WaitForDistinct(receiver, expected, std::chrono::seconds(180));
  std::map<std::tuple<std::string, std::string, std::string>, int> delivered;
  for (const auto& [id, what] : seen.by_id) ++delivered[what];
  EXPECT_EQ(delivered, committed) << "each committed change's event, by distinct webhook-id";
}

TEST_F(WebhookDelivery, TwoInstancesOnOnePostgresqlMakeEachAttemptOnce) {
  if (!on_postgres()) GTEST_SKIP() << "one SQLite file serves one instance";
  HttpReceiver receiver(200);
  StartWith(PlainLoopback());
  auto other = StartAnother(Options(PlainLoopback()));
  const std::string endpoint =
      CreateEndpoint("http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook");
  const std::string a = NewLicense(50);
  const std::string b = NewLicense(50);
  for (int i = 0; i < 40; ++i) {
    const std::uint16_t to = i % 2 == 0 ? port() : other->port();
    const auto r =
        bb::Send(to,
                 SignedRequest(kPluginKey, Endpoint("activate"),
                               Body(i % 4 < 2 ? a : b, "twin-machine-" + std::to_string(i))),
                 std::chrono::seconds(30));
    ASSERT_EQ(r.status, 200) << r.Describe();
  }
  const Seen seen = WaitForDistinct(receiver, 42, std::chrono::seconds(60));
  ASSERT_EQ(seen.by_id.size(), 42u);  // 2 license.created, 40 activation.created
  const json::array items = DeliveriesOnceAll(
      endpoint, 42, [](const json::value& d) { return !d.at("deliveredAt").is_null(); });
  ASSERT_EQ(items.size(), 42u);
  for (const auto& d : items) EXPECT_EQ(Int(d, "attempts"), 1) << json::serialize(d);
  for (const auto& [id, times] : Distinct(receiver.Received()).repeats) {
    EXPECT_EQ(times, 1) << id << " delivered more than once";
  }
}

}  // namespace
}  // namespace bb
