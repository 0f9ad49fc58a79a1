// Webhooks against the real server (docs/protocol.md §25, docs/webhooks.md): an endpoint made
// through the admin API hears of a change, signed as Standard Webhooks says, checked by an
// independent implementation (Python's hmac), during a rotation too; a receiver that
// answers 410 disables its endpoint; a receiver that never answers delays no activation;
// one that is down at first gets the event once it is back; the CLI makes and lists
// endpoints; a private target is refused without --webhook-allow-private.
#include <gtest/gtest.h>

#include <fstream>

#include "support/fixture.h"
#include "support/http_receiver.h"

namespace bb {
namespace {

class Webhooks : public BlackboxTest {
 protected:
  void SetUp() override {
    BlackboxTest::SetUp();
    ServerOptions o;
    o.args = {"--webhook-allow-http", "--webhook-allow-private"};
    Start(o);
    const CommandResult r = admin().Run({"token", "create", "--name", "hooks", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    token_ = Str(ParseJson(r.out), "token");
  }

  HttpResponse Api(const std::string& method, const std::string& target, std::string body = "") {
    return Send(AdminApiRequest(token_, method, target, std::move(body)));
  }

  // An endpoint for the receiver; its answer (id and secret).
  json::value CreateEndpoint(const HttpReceiver& receiver, const std::string& events = "[\"*\"]") {
    const HttpResponse r = Api("POST", "/webhooks",
                               R"({"url":"http://127.0.0.1:)" + std::to_string(receiver.port()) +
                                   R"(/hook","events":)" + events + "}");
    EXPECT_EQ(r.status, 201) << r.Describe();
    return ParseJson(r.body);
  }

  // Exit status of the independent verifier for `delivery` with `secrets`.
  int PythonVerifies(const ReceivedRequest& delivery, const std::vector<std::string>& secrets) {
    const auto body = dir().path() / "delivery.json";
    std::ofstream(body, std::ios::binary | std::ios::trunc) << delivery.body;
    std::vector<std::string> argv = {"/usr/bin/python3", LICENSED_WEBHOOK_VERIFIER};
    for (const auto& s : secrets) {
      argv.push_back("--secret");
      argv.push_back(s);
    }
    for (const char* h : {"webhook-id", "webhook-timestamp", "webhook-signature"}) {
      argv.push_back(std::string("--") + (std::string(h) == "webhook-id"          ? "id"
                                          : std::string(h) == "webhook-timestamp" ? "timestamp"
                                                                                  : "signature"));
      argv.push_back(delivery.header(h).value_or(""));
    }
    argv.push_back("--body");
    argv.push_back(body.string());
    return RunCommand(argv).exit_code;
  }

  std::string token_;
};

TEST_F(Webhooks, ACreatedLicenseIsDeliveredSignedAsStandardWebhooksSays) {
  HttpReceiver receiver(200);
  const json::value endpoint = CreateEndpoint(receiver);
  const std::string secret = Str(endpoint, "secret");
  EXPECT_TRUE(secret.starts_with("whsec_"));
  const std::string license = NewLicense(2);
  const auto got = receiver.WaitFor(1);
  ASSERT_GE(got.size(), 1u);
  const ReceivedRequest& d = got[0];
  EXPECT_EQ(d.method, "POST");
  EXPECT_EQ(d.target, "/hook");
  EXPECT_EQ(d.header("content-type").value_or(""), "application/json");
  EXPECT_TRUE(d.header("webhook-id").value_or("").starts_with("evt_"));
  const json::value body = ParseJson(d.body);
  EXPECT_EQ(Str(body, "type"), "license.created");
  EXPECT_EQ(Str(body.at("data").at("license"), "licenseKey"), license);
  EXPECT_EQ(PythonVerifies(d, {secret}), 0) << d.Describe();
  EXPECT_EQ(PythonVerifies(d, {"whsec_" + std::string(44, 'A')}), 1) << "the check can fail";
  // The secret is shown once: never in a GET.
  const HttpResponse shown = Api("GET", "/webhooks/" + std::to_string(Int(endpoint, "id")));
  EXPECT_EQ(shown.status, 200) << shown.Describe();
  EXPECT_EQ(shown.body.find(secret), std::string::npos);
}

TEST_F(Webhooks, DuringARotationBothSecretsSignAndAfterAnImmediateOneOnlyTheNew) {
  HttpReceiver receiver(200);
  const json::value endpoint = CreateEndpoint(receiver);
  const std::string id = std::to_string(Int(endpoint, "id"));
  const std::string old_secret = Str(endpoint, "secret");
  const HttpResponse rotated = Api("POST", "/webhooks/" + id + "/rotate-secret", "{}");
  ASSERT_EQ(rotated.status, 200) << rotated.Describe();
  const std::string new_secret = Str(ParseJson(rotated.body), "secret");
  NewLicense(1);
  auto got = receiver.WaitFor(1);
  ASSERT_GE(got.size(), 1u);
  EXPECT_EQ(PythonVerifies(got[0], {old_secret, new_secret}), 0) << got[0].Describe();

  const HttpResponse at_once =
      Api("POST", "/webhooks/" + id + "/rotate-secret", R"({"keepOldFor":"0s"})");
  ASSERT_EQ(at_once.status, 200) << at_once.Describe();
  const std::string newest = Str(ParseJson(at_once.body), "secret");
  NewLicense(1);
  got = receiver.WaitFor(2);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(PythonVerifies(got[1], {newest}), 0) << got[1].Describe();
  EXPECT_EQ(PythonVerifies(got[1], {new_secret}), 1) << "retired at once";
}

TEST_F(Webhooks, AnEndpointThatAnswers410IsDisabled) {
  HttpReceiver receiver(410);
  const json::value endpoint = CreateEndpoint(receiver);
  NewLicense(1);
  ASSERT_GE(receiver.WaitFor(1).size(), 1u);
  const std::string path = "/webhooks/" + std::to_string(Int(endpoint, "id"));
  json::value shown;
  for (int i = 0; i < 50; ++i) {
    shown = ParseJson(Api("GET", path).body);
    if (!Bool(shown, "enabled")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(Bool(shown, "enabled"));
  EXPECT_EQ(Str(shown, "disabledReason"), "410");
  const json::value deliveries = ParseJson(Api("GET", path + "/deliveries").body);
  ASSERT_EQ(deliveries.at("items").as_array().size(), 1u);
  EXPECT_EQ(Int(deliveries.at("items").at(0), "lastStatus"), 410);
}

TEST_F(Webhooks, AReceiverThatNeverAnswersDelaysNoActivation) {
  HttpReceiver receiver(0);  // reads each request and holds it, unanswered
  CreateEndpoint(receiver);
  const std::string license = NewLicense(2);
  ASSERT_GE(receiver.WaitFor(1).size(), 1u);  // the delivery is held open now
  for (int i = 0; i < 8; ++i) {
    // More activations than the dispatcher has workers: each answers while the held
    // deliveries wait.
    EXPECT_OK(Activate(license, "machine-" + std::to_string(i % 2)));
  }
}

TEST_F(Webhooks, AnActivationIsReportedWithItsMachineAndAFilterKeepsOtherTypesAway) {
  HttpReceiver receiver(200);
  CreateEndpoint(receiver, R"(["activation.created"])");
  const std::string license = NewLicense(2);
  ASSERT_OK(Activate(license, "machine-0001"));
  const auto got = receiver.WaitFor(1);
  ASSERT_EQ(got.size(), 1u);
  const json::value body = ParseJson(got[0].body);
  EXPECT_EQ(Str(body, "type"), "activation.created");
  const json::object& machine = body.at("data").at("machine").as_object();
  EXPECT_EQ(Str(machine, "id"), "machine-0001");
  // The machine as the activate answer shows it (docs/protocol.md §25.2).
  EXPECT_TRUE(machine.contains("name")) << json::serialize(machine);
  EXPECT_FALSE(Str(machine, "activatedAt").empty()) << json::serialize(machine);
  EXPECT_FALSE(Str(machine, "lastSeenAt").empty()) << json::serialize(machine);
  EXPECT_EQ(Str(body.at("data"), "actor"), "client");
}

TEST_F(Webhooks, AFailedDeliveryIsRetriedOnRequest) {
  HttpReceiver receiver(500);
  const json::value endpoint = CreateEndpoint(receiver);
  NewLicense(1);
  ASSERT_GE(receiver.WaitFor(1).size(), 1u);
  const std::string path = "/webhooks/" + std::to_string(Int(endpoint, "id"));
  std::string event_id;
  for (int i = 0; i < 50 && event_id.empty(); ++i) {
    const json::value page = ParseJson(Api("GET", path + "/deliveries").body);
    if (!page.at("items").as_array().empty() && Int(page.at("items").at(0), "attempts") == 1) {
      event_id = Str(page.at("items").at(0), "eventId");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(event_id.empty());
  const HttpResponse retried = Api("POST", path + "/deliveries/" + event_id + "/retry");
  EXPECT_EQ(retried.status, 200) << retried.Describe();
  EXPECT_GE(receiver.WaitFor(2).size(), 2u);
  EXPECT_EQ(Api("POST", path + "/deliveries/evt_999999/retry").status, 404);
}

TEST_F(Webhooks, TheCliCreatesListsAndDeletesEndpoints) {
  const json::value made =
      ParseJson(admin().RunOk({"webhook", "create", "--url", "https://203.0.113.10/in", "--event",
                               "license.created", "--json"}));
  EXPECT_TRUE(Str(made, "secret").starts_with("whsec_"));
  const std::string listed = admin().RunOk({"webhook", "list", "--json"});
  EXPECT_NE(listed.find("203.0.113.10"), std::string::npos);
  EXPECT_EQ(listed.find("whsec_"), std::string::npos) << "a secret is shown once";
  admin().RunOk({"webhook", "delete", std::to_string(Int(made, "id"))});
  EXPECT_EQ(admin().RunOk({"webhook", "list", "--json"}), "[]\n");
}

TEST_F(Webhooks, APrivateOrPlainHttpTargetIsRefusedWhenNotAllowed) {
  const CommandResult loopback =
      admin().Run({"webhook", "create", "--url", "https://127.0.0.1/in"});
  EXPECT_NE(loopback.exit_code, 0) << loopback.Describe();
  EXPECT_NE(loopback.err.find("loopback"), std::string::npos) << loopback.Describe();
  const CommandResult http = admin().Run({"webhook", "create", "--url", "http://203.0.113.10/"});
  EXPECT_NE(http.exit_code, 0) << http.Describe();
}

}  // namespace
}  // namespace bb
