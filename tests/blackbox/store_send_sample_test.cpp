// `licensed admin store send-sample` against the real server (docs/stores.md, "Testing a
// store end to end before going live"): the command signs a sample event with the
// store's secret as the provider would, the server fulfils it (200 and the licenses) or
// refunds the order; a wrong secret is the server's 400 and the command's non-zero exit.
#include <gtest/gtest.h>

#include <fstream>

#include "support/fixture.h"

namespace bb {
namespace {

class StoresSendSample : public BlackboxTest {
 protected:
  void SetUp() override {
    BlackboxTest::SetUp();
    const CommandResult r = admin().Run({"token", "create", "--name", "sample-bot", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    token_ = Str(ParseJson(r.out), "token");
    admin().RunOk(
        {"plan", "create", "--product", "reverb", "--code", "pro", "--name", "Pro", "--max", "2"});
  }
  HttpResponse Api(const std::string& method, const std::string& target) {
    HttpRequest request;
    request.method = method;
    request.target = "/api/v1/admin" + target;
    request.Set("Authorization", "Bearer " + token_);
    return Send(request);
  }
  // A store made with the CLI, as the docs show it; its id and inbound URL (a path).
  std::pair<std::string, std::string> CreateStore(const std::string& provider,
                                                  const std::string& secret,
                                                  const std::string& mapping,
                                                  bool test_mode = true) {
    std::vector<std::string> args = {"store",  "create", "--provider", provider,
                                     "--name", "Sample", "--secret",   secret,
                                     "--map",  mapping,  "--json"};
    if (test_mode) {
      args.push_back("--option");
      args.push_back("testMode=true");
    }
    const json::value store = ParseJson(admin().RunOk(args));
    return {std::to_string(Int(store, "id")), Str(store, "inboundUrl")};
  }
  std::string SecretFile(const std::string& secret) const {
    const auto path = dir().path() / "store-secret";
    std::ofstream(path) << secret << "\n";
    return path.string();
  }
  CommandResult SendSample(const std::string& url, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"store",    "send-sample",
                                     "--url",    url,
                                     "--server", "http://127.0.0.1:" + std::to_string(port())};
    args.insert(args.end(), extra.begin(), extra.end());
    return admin().Run(args);
  }
  std::vector<json::value> OrderLicenses(const std::string& order) {
    const HttpResponse r = Api("GET", "/licenses?orderId=" + order);
    EXPECT_EQ(r.status, 200) << r.Describe();
    const json::value body = BodyJson(r);
    const auto& items = Arr(body, "items");
    return {items.begin(), items.end()};
  }

  std::string token_;
};

// The order the command says it sent ("sent: ... order <id>").
std::string SentOrder(const CommandResult& r) {
  const auto at = r.out.find(", order ");
  if (at == std::string::npos) return {};
  const auto start = at + 8;
  return r.out.substr(start, r.out.find('\n', start) - start);
}

TEST_F(StoresSendSample, AStripeTestModeSampleSaleIsAnsweredOkAndMakesItsLicenses) {
  Start();
  const auto [id, url] =
      CreateStore("stripe", "whsec_sample_1", "price_single=reverb:pro:per-unit");
  const CommandResult r =
      SendSample(url, {"--secret-file", SecretFile("whsec_sample_1"), "--item", "price_single",
                       "--quantity", "2", "--email", "ada@example.com"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find(R"(answered 200: {"ok":true})"), std::string::npos) << r.Describe();
  EXPECT_NE(r.out.find("options.testMode"), std::string::npos) << "says what test mode needs";
  EXPECT_EQ(r.out.find(url.substr(url.rfind('/') + 1)), std::string::npos)
      << "the token is not printed: " << r.out;
  const std::string order = SentOrder(r);
  ASSERT_FALSE(order.empty()) << r.Describe();
  const auto licenses = OrderLicenses(order);
  ASSERT_EQ(licenses.size(), 2u) << "one license per unit";
  for (const auto& l : licenses) {
    EXPECT_EQ(Str(l, "customer.email"), "ada@example.com");
    EXPECT_EQ(Str(l, "source.provider"), "stripe");
    EXPECT_EQ(std::to_string(Int(l, "source.storeId")), id);
    EXPECT_EQ(Str(l, "status"), "ACTIVE");
  }
}

TEST_F(StoresSendSample, ALemonSqueezyTestModeSampleSaleIsFulfilledAndItsRefundRefundsIt) {
  Start();
  const auto [id, url] = CreateStore("lemonsqueezy", "ls_sample_1", "91001=reverb:pro");
  const CommandResult sale =
      SendSample(url, {"--secret", "ls_sample_1", "--item", "91001", "--quantity", "3"});
  ASSERT_EQ(sale.exit_code, 0) << sale.Describe();
  const std::string order = SentOrder(sale);
  auto licenses = OrderLicenses(order);
  ASSERT_EQ(licenses.size(), 1u) << "one license for the quantity";
  EXPECT_EQ(Int(licenses[0], "max"), 6) << "the plan's max times the quantity";

  const CommandResult refund = SendSample(
      url, {"--secret-file", SecretFile("ls_sample_1"), "--event", "refund", "--order", order});
  ASSERT_EQ(refund.exit_code, 0) << refund.Describe();
  licenses = OrderLicenses(order);
  ASSERT_EQ(licenses.size(), 1u);
  EXPECT_EQ(Str(licenses[0], "status"), "REFUNDED");
}

TEST_F(StoresSendSample, AWrongSecretIsTheServers400AndANonZeroExitAndIsListedAsRejected) {
  Start();
  const auto [id, url] = CreateStore("stripe", "whsec_right", "price_single=reverb:pro");
  const CommandResult r =
      SendSample(url, {"--secret-file", SecretFile("whsec_wrong"), "--item", "price_single"});
  EXPECT_NE(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find("answered 400"), std::string::npos) << r.Describe();
  EXPECT_NE(r.err.find("rejections"), std::string::npos) << "says where to look: " << r.Describe();
  const HttpResponse rejections = Api("GET", "/stores/" + id + "/rejections");
  ASSERT_EQ(rejections.status, 200) << rejections.Describe();
  const json::value body = BodyJson(rejections);
  ASSERT_EQ(Arr(body, "items").size(), 1u) << rejections.Describe();
  EXPECT_EQ(Str(Arr(body, "items")[0], "reason"), "authenticity");
}

TEST_F(StoresSendSample, AStoreNotInTestModeAcknowledgesATestSampleAndMakesNothing) {
  Start();
  const auto [id, url] =
      CreateStore("stripe", "whsec_live_only", "price_single=reverb:pro", /*test_mode=*/false);
  const CommandResult r =
      SendSample(url, {"--secret", "whsec_live_only", "--item", "price_single"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_TRUE(OrderLicenses(SentOrder(r)).empty());
}

TEST_F(StoresSendSample, APathWithoutServerAndAMissingSecretAreRefusedBeforeSending) {
  Start();
  const auto [id, url] = CreateStore("stripe", "whsec_1", "price_single=reverb:pro");
  const CommandResult no_server = admin().Run(
      {"store", "send-sample", "--url", url, "--secret", "whsec_1", "--item", "price_single"});
  EXPECT_EQ(no_server.exit_code, 1) << no_server.Describe();
  EXPECT_NE(no_server.err.find("--server"), std::string::npos) << no_server.Describe();
  const CommandResult no_secret = SendSample(url, {"--item", "price_single"});
  EXPECT_EQ(no_secret.exit_code, 1) << no_secret.Describe();
  EXPECT_NE(no_secret.err.find("LICENSED_STORE_SECRET"), std::string::npos) << no_secret.Describe();
}

}  // namespace
}  // namespace bb
