// The SDK and licensectl with plans, entitlements and trials (docs/protocol.md §20) against
// the real server: the result lists the entitlements, has_entitlement and
// allowed_for_build answer from them, start_trial gives trial and the days left, and
// licensectl's status --require-entitlement and trial --product.
#include <gtest/gtest.h>

#include "license_client/license_client.hpp"
#include "sdk_fixture.h"
#include "support/process.h"

namespace licensed::client::test {
namespace {

constexpr int64_t kDay = 86'400;

class SdkEntitlements : public SdkTest {
 protected:
  // A license with `pro` (never expires), `updates` until `updates_until` and voices=64.
  std::string LicenseWithEntitlements(const std::string& updates_until) {
    std::string key = admin().RunOk({"license", "create", "--product", std::string(bb::kProduct),
                                     "--max", "2", "--entitlement", "pro", "--entitlement",
                                     "updates@" + updates_until, "--entitlement", "voices=64"});
    while (!key.empty() && key.back() == '\n') key.pop_back();
    return key;
  }
  void OfferTrials() {
    admin().RunOk({"plan", "create", "--product", "reverb", "--code", "trial", "--name", "Trial",
                   "--max", "1", "--entitlement", "pro"});
    admin().RunOk({"product", "set-trial", "reverb", "--plan", "trial", "--days", "14"});
  }
};

TEST_F(SdkEntitlements, TheResultListsEntitlementsAndAnswersForFeaturesAndBuilds) {
  Start();
  const std::string expired_at = "2026-01-01T00:00:00.000Z";
  const std::string license = LicenseWithEntitlements(expired_at);
  auto client = Make(Config(license));
  const Answer a = client->activate();
  ASSERT_TRUE(a.ok()) << Describe(a);
  ASSERT_EQ(a.entitlements.size(), 3u);
  EXPECT_EQ(a.entitlements[0].code, "pro");
  EXPECT_EQ(a.entitlements[1].code, "updates");
  EXPECT_EQ(a.entitlements[2].value, "64");
  EXPECT_TRUE(a.has_entitlement("pro"));
  EXPECT_FALSE(a.has_entitlement("updates")) << "expired";
  EXPECT_FALSE(a.has_entitlement("absent"));
  const int64_t expiry = *a.entitlements[1].expires_at;
  EXPECT_TRUE(a.allowed_for_build("updates", expiry - 30 * kDay)) << "built before the expiry";
  EXPECT_TRUE(a.allowed_for_build("updates", expiry));
  EXPECT_FALSE(a.allowed_for_build("updates", expiry + kDay)) << "built after: Standard";
  EXPECT_TRUE(a.allowed_for_build("pro", expiry + 3650 * kDay));
  EXPECT_FALSE(a.allowed_for_build("absent", 0));
  const Answer s = client->status();
  ASSERT_TRUE(s.ok()) << Describe(s);
  EXPECT_TRUE(s.has_entitlement("pro"));
}

TEST_F(SdkEntitlements, StartTrialGivesTheTrialsKeyAndItsDaysLeft) {
  Start();
  OfferTrials();
  ClientConfig config = Config("");
  config.product = "reverb";
  auto client = Make(config);
  const Answer t = client->start_trial();
  ASSERT_TRUE(t.ok()) << Describe(t);
  EXPECT_TRUE(t.trial);
  EXPECT_TRUE(bb::IsLowercaseUuidV4(t.license_key));
  ASSERT_TRUE(t.days_left.has_value());
  EXPECT_EQ(*t.days_left, 14);
  EXPECT_TRUE(t.has_entitlement("pro"));
  const Answer again = client->start_trial();
  ASSERT_TRUE(again.ok()) << Describe(again);
  EXPECT_EQ(again.license_key, t.license_key);
}

TEST_F(SdkEntitlements, ATrialWithoutTheProductIsAConfigurationError) {
  Start();
  auto client = Make(Config(bb::RandomUuidV4()));
  EXPECT_EQ(client->start_trial().outcome, Outcome::kUsage);
}

// The same through the public C ABI, by way of its C++ wrapper.
TEST_F(SdkEntitlements, TheCppWrapperAnswersForFeaturesBuildsAndTrials) {
  Start();
  const std::string license = LicenseWithEntitlements("2026-01-01T00:00:00.000Z");
  const std::string url = Url();
  const std::string cache = CacheDir().string();
  lc_options o = lc_options_init();
  o.url = url.c_str();
  o.key_id = bb::kPluginKey.id.c_str();
  o.secret = bb::kPluginKey.secret.c_str();
  o.license_key = license.c_str();
  o.machine_id = "wrapper-machine-01";
  o.cache_dir = cache.c_str();
  license_client::Client client(o);
  const license_client::Result r = client.activate();
  ASSERT_TRUE(r.ok()) << r.message();
  const auto list = r.entitlements();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[2].code, "voices");
  EXPECT_EQ(list[2].value, "64");
  EXPECT_TRUE(r.has_entitlement("pro"));
  EXPECT_FALSE(r.has_entitlement("updates"));
  ASSERT_TRUE(list[1].expires_at.has_value());
  EXPECT_TRUE(r.allowed_for_build("updates", *list[1].expires_at - kDay));
  EXPECT_FALSE(r.allowed_for_build("updates", *list[1].expires_at + kDay));
  EXPECT_FALSE(r.trial());
  EXPECT_FALSE(r.days_left().has_value());

  OfferTrials();
  lc_options t = o;
  t.license_key = nullptr;
  t.product = "reverb";
  t.machine_id = "wrapper-trial-01";
  license_client::Client trial_client(t);
  const license_client::Result trial = trial_client.start_trial();
  ASSERT_TRUE(trial.ok()) << trial.message();
  EXPECT_TRUE(trial.trial());
  EXPECT_EQ(trial.days_left(), 14);
  ASSERT_TRUE(trial.license_key().has_value());
  EXPECT_TRUE(bb::IsLowercaseUuidV4(*trial.license_key()));
}

class LicensectlEntitlements : public SdkEntitlements {
 protected:
  bb::CommandResult Run(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY,    "--url",           Url(),
                                     "--key-id",           bb::kPluginKey.id, "--secret",
                                     bb::kPluginKey.secret};
    argv.insert(argv.end(), args.begin(), args.end());
    return bb::RunCommand(argv, {{"XDG_CACHE_HOME", (dir().path() / "xdg").string()}},
                          std::chrono::seconds(60));
  }
};

TEST_F(LicensectlEntitlements, StatusRequireEntitlementExits3UnlessEachIsActive) {
  Start();
  const std::string license = LicenseWithEntitlements("2026-01-01T00:00:00.000Z");
  const std::vector<std::string> who = {"--license-key", license, "--machine-id", "ci-ent-0001"};
  auto with = [&](std::vector<std::string> rest) {
    std::vector<std::string> args = who;
    args.insert(args.end(), rest.begin(), rest.end());
    return Run(args);
  };
  ASSERT_EQ(with({"activate"}).exit_code, 0);
  EXPECT_EQ(with({"status", "--require-entitlement", "pro"}).exit_code, 0);
  EXPECT_EQ(
      with({"status", "--require-entitlement", "pro", "--require-entitlement", "voices"}).exit_code,
      0);
  EXPECT_EQ(with({"status", "--require-entitlement", "updates"}).exit_code, 3) << "expired";
  EXPECT_EQ(
      with({"status", "--require-entitlement", "pro", "--require-entitlement", "nope"}).exit_code,
      3);
}

TEST_F(LicensectlEntitlements, TrialStartsTheMachinesTrialOfTheProduct) {
  Start();
  OfferTrials();
  const bb::CommandResult r =
      Run({"--machine-id", "ci-trial-0001", "--json", "trial", "--product", "reverb"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const auto body = bb::ParseJson(r.out);
  EXPECT_TRUE(bb::Bool(body, "trial"));
  const bb::CommandResult none =
      Run({"--machine-id", "ci-trial-0001", "trial", "--product", "delay"});
  EXPECT_EQ(none.exit_code, 3) << "1703: no such product offers trials " << none.Describe();
}

}  // namespace
}  // namespace licensed::client::test
