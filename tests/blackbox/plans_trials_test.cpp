// docs/protocol.md §20 against the real binary: plans made and changed from the admin CLI
// and API, licenses copying them, entitlements in every answer, validUntil (signed grace),
// and trials (one per machine, bound to it, one per email, the trial bucket, reset).
#include <gtest/gtest.h>

#include <set>

#include "support/fixture.h"

namespace bb {
namespace {

class Plans : public BlackboxTest {
 protected:
  void ProPlan() {
    admin().RunOk({"plan", "create", "--product", std::string(kProduct), "--code", "pro", "--name",
                   "Reverb Pro", "--max", "3", "--valid-for", "365d", "--entitlement",
                   "updates@365d", "--entitlement", "voices=64", "--entitlement", "pro"});
  }
  std::string ProLicense(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"license", "create", "--product", std::string(kProduct),
                                  "--plan",  "pro"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string key = admin().RunOk(args);
    while (!key.empty() && (key.back() == '\n' || key.back() == ' ')) key.pop_back();
    return key;
  }
  const json::value* Entitlement(const json::value& body, std::string_view code) {
    for (const auto& e : Arr(body, "entitlements")) {
      if (Str(e, "code") == code) return &e;
    }
    return nullptr;
  }
};

TEST_F(Plans, ALicenseMadeFromAPlanCopiesItAndFlagsBesideThePlanOverride) {
  Start();
  ProPlan();
  const std::string key = ProLicense({"--max", "5", "--entitlement", "voices=128"});
  const json::value shown = admin().Show(key);
  EXPECT_EQ(Str(shown, "plan"), "pro");
  EXPECT_EQ(Int(shown, "max"), 5) << "--max beside --plan overrides the plan's 3";
  EXPECT_FALSE(IsNull(shown, "expiresAt")) << "validFor 365d counts from the creation";
  ASSERT_NE(Entitlement(shown, "voices"), nullptr);
  EXPECT_EQ(Int(*Entitlement(shown, "voices"), "value"), 128);
  ASSERT_NE(Entitlement(shown, "updates"), nullptr);
  EXPECT_FALSE(IsNull(*Entitlement(shown, "updates"), "expiresAt"));

  const std::string list = admin().RunOk({"plan", "list", "--product", "reverb", "--json"});
  const json::value plans = ParseJson(list);
  ASSERT_EQ(plans.as_array().size(), 1u);
  EXPECT_EQ(Str(plans.as_array()[0], "validFor"), "365d");
}

TEST_F(Plans, TheProductsDefaultPlanIsUsedWithoutOneAndMaxIsRequiredOtherwise) {
  Start();
  EXPECT_EQ(admin().Run({"license", "create", "--product", "reverb"}).exit_code, 2);
  ProPlan();
  admin().RunOk({"product", "set-default-plan", "reverb", "pro"});
  std::string key = admin().RunOk({"license", "create", "--product", "reverb"});
  key.pop_back();
  EXPECT_EQ(Str(admin().Show(key), "plan"), "pro");
  EXPECT_EQ(Int(admin().Show(key), "max"), 3);
}

TEST_F(Plans, APlanValidFromTheFirstActivationSetsTheExpiryThenAuditedBySystem) {
  Start();
  admin().RunOk({"plan", "create", "--product", "reverb", "--code", "rent", "--name", "Rent",
                 "--max", "2", "--valid-for", "30d", "--valid-from", "firstActivation"});
  std::string key = admin().RunOk({"license", "create", "--product", "reverb", "--plan", "rent"});
  key.pop_back();
  EXPECT_TRUE(IsNull(admin().Show(key), "expiresAt"));
  const HttpResponse first = Activate(key, "first-machine-01");
  ASSERT_OK(first);
  EXPECT_FALSE(IsNull(BodyJson(first), "expiresAt"));
  const auto updates = AuditRecords(key, "license.update");
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(Str(updates[0], "actor"), "system");
  EXPECT_TRUE(IsNull(updates[0], "changes.expiresAt.from"));
  EXPECT_EQ(Str(updates[0], "changes.expiresAt.to"), Str(BodyJson(first), "expiresAt"));
  ASSERT_OK(Activate(key, "second-machine-1"));
  EXPECT_EQ(AuditRecords(key, "license.update").size(), 1u) << "only the first activation";
}

TEST_F(Plans, EveryAnswerListsTheEntitlementsSortedByCodeWithActive) {
  Start();
  ProPlan();
  const std::string key = ProLicense();
  admin().RunOk(
      {"license", "entitle", key, "old-feature", "--expires-at", "2020-01-01T00:00:00.000Z"});
  for (const HttpResponse& r : {Activate(key, "machine-ent-001"), Heartbeat(key, "machine-ent-001"),
                                Status(key, "machine-ent-001")}) {
    ASSERT_OK(r);
    const json::value body = BodyJson(r);
    const auto& list = Arr(body, "entitlements");
    std::vector<std::string> codes;
    for (const auto& e : list) codes.push_back(Str(e, "code"));
    EXPECT_EQ(codes, (std::vector<std::string>{"old-feature", "pro", "updates", "voices"}));
    EXPECT_FALSE(Bool(list[0], "active")) << "expired ones stay listed";
    EXPECT_TRUE(Bool(list[1], "active"));
    EXPECT_FALSE(Has(list[1], "value")) << "absent when it has none";
    EXPECT_EQ(Int(list[3], "value"), 64);
  }
}

TEST_F(Plans, EntitleAndUnentitleAreAuditedWithTheirChanges) {
  Start();
  const std::string key = NewLicense(1);
  admin().RunOk({"license", "entitle", key, "pro", "--value", "true"});
  admin().RunOk({"license", "unentitle", key, "pro"});
  EXPECT_EQ(admin().Run({"license", "unentitle", key, "pro"}).exit_code, 1);
  EXPECT_EQ(admin().Run({"license", "entitle", key, "Not-Valid"}).exit_code, 1);
  const auto updates = AuditRecords(key, "license.update");
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(Arr(updates[0], "changes.entitlements.from").size(), 0u);
  EXPECT_EQ(Str(Arr(updates[0], "changes.entitlements.to")[0], "code"), "pro");
  EXPECT_EQ(Arr(updates[1], "changes.entitlements.to").size(), 0u);
}

// Issue item 2: the customer sees the license's entitlements on the dashboard, sorted,
// each saying whether it is active; one that expired stays listed (updates-until).
TEST_F(Plans, TheDashboardShowsTheEntitlementsWithWhetherEachIsActive) {
  Start();
  const std::string key = NewLicense(1);
  admin().RunOk({"license", "entitle", key, "voices", "--value", "64"});
  admin().RunOk({"license", "entitle", key, "updates", "--expires-at", "2020-01-01T00:00:00Z"});
  const DashboardSession session = DashboardSignIn(port(), key);
  const HttpResponse r =
      SendFrom("127.0.0.1", port(), DashboardGet(session, "/dashboard/api/license"));
  ASSERT_EQ(r.status, 200) << r.Describe();
  const json::value view = BodyJson(r);
  const auto& listed = Arr(view, "entitlements");
  ASSERT_EQ(listed.size(), 2u) << r.Describe();
  EXPECT_EQ(Str(listed[0], "code"), "updates");
  EXPECT_FALSE(Bool(listed[0], "active")) << "expired in 2020, still listed";
  EXPECT_EQ(Str(listed[1], "code"), "voices");
  EXPECT_TRUE(Bool(listed[1], "active"));
  EXPECT_EQ(Int(listed[1], "value"), 64);
}

TEST_F(Plans, ValidUntilIsTheEarlierOfExpiryAndGraceAndNullWhenUseIsNotAllowed) {
  Start();
  const std::string plain = NewLicense(2);
  const HttpResponse a = Activate(plain, "grace-machine-01");
  ASSERT_OK(a);
  EXPECT_TRUE(IsTimestamp(Str(BodyJson(a), "validUntil")));
  const std::string soon = NewLicense(2, kProduct, TimestampFromNow(std::chrono::hours(24)));
  const HttpResponse s = Activate(soon, "grace-machine-01");
  ASSERT_OK(s);
  EXPECT_EQ(Str(BodyJson(s), "validUntil"), Str(BodyJson(s), "expiresAt"));
  const HttpResponse not_activated = Status(plain, "grace-machine-99");
  ASSERT_OK(not_activated);
  EXPECT_FALSE(Bool(BodyJson(not_activated), "valid"));
  EXPECT_TRUE(IsNull(BodyJson(not_activated), "validUntil"));
  admin().RunOk({"license", "set", plain, "offlineGrace", "1d"});
  EXPECT_EQ(Int(admin().Show(plain), "offlineGrace"), 86400);
}

// An absurd duration once overflowed `now + grace` into a signed validUntil thousands of
// years before 1970. Every duration an admin sets is at most 100 years, by every way in.
TEST_F(Plans, EveryDurationAnAdminSetsIsRefusedBeyondAHundredYears) {
  Start();
  const std::string plain = NewLicense(2);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"license", "create", "--product", std::string(kProduct), "--max", "2",
            "--offline-grace", "9223372036854775s"},
           {"license", "create", "--product", std::string(kProduct), "--max", "2", "--machine-ttl",
            "36501d"},
           {"license", "set", plain, "offlineGrace", "9223372036854775s"},
           {"license", "set", plain, "offlineGrace", "4600000000000000"},
           {"license", "set-machine-ttl", plain, "106751991167d"},
           {"plan", "create", "--product", std::string(kProduct), "--code", "forever", "--name",
            "Forever", "--max", "1", "--valid-for", "36501d"},
           {"plan", "create", "--product", std::string(kProduct), "--code", "forever", "--name",
            "Forever", "--max", "1", "--entitlement", "updates@9223372036854775s"}}) {
    const CommandResult r = admin().Run(args);
    EXPECT_NE(r.exit_code, 0) << r.Describe();
  }
  EXPECT_EQ(Int(admin().Show(plain), "offlineGrace"), 14 * 86400) << "unchanged";
  // A hundred years is still taken, and the answer's validUntil is that far ahead.
  admin().RunOk({"license", "set", plain, "offlineGrace", "36500d"});
  const HttpResponse a = Activate(plain, "grace-machine-02");
  ASSERT_OK(a);
  EXPECT_EQ(Str(BodyJson(a), "validUntil").substr(0, 2), "21") << a.body;
}

class Trials : public BlackboxTest {
 protected:
  void OfferTrials(int days = 14) {
    admin().RunOk({"plan", "create", "--product", "reverb", "--code", "trial", "--name", "Trial",
                   "--max", "1", "--entitlement", "pro"});
    admin().RunOk(
        {"product", "set-trial", "reverb", "--plan", "trial", "--days", std::to_string(days)});
  }
  static std::string TrialBody(std::string_view machine, std::string_view email = {}) {
    std::string body = R"({"product":"reverb","machineId":")" + std::string(machine) + "\"";
    if (!email.empty()) body += R"(,"email":")" + std::string(email) + "\"";
    return body + "}";
  }
  HttpResponse Trial(std::string_view machine, std::string_view email = {}) const {
    return Call("trial", TrialBody(machine, email));
  }
};

TEST_F(Trials, TheFirstCallStartsATrialAndTheNextAnswersTheSameLicense) {
  Start();
  OfferTrials();
  const HttpResponse first = Trial("trial-machine-0001");
  ASSERT_OK(first);
  const json::value b = BodyJson(first);
  EXPECT_TRUE(Bool(b, "trial"));
  EXPECT_EQ(Str(b, "status"), "ACTIVE");
  EXPECT_EQ(Int(b, "max"), 1);
  EXPECT_EQ(Str(b, "machine.id"), "trial-machine-0001");
  EXPECT_FALSE(IsNull(b, "expiresAt"));
  EXPECT_TRUE(IsTimestamp(Str(b, "validUntil")));
  EXPECT_EQ(Str(Arr(b, "entitlements")[0], "code"), "pro");
  const HttpResponse again = Trial("trial-machine-0001");
  ASSERT_OK(again);
  EXPECT_EQ(Str(BodyJson(again), "licenseKey"), Str(b, "licenseKey"));
  EXPECT_EQ(Str(BodyJson(again), "expiresAt"), Str(b, "expiresAt")) << "the clock never restarts";
  const std::string key = Str(b, "licenseKey");
  EXPECT_TRUE(Bool(admin().Show(key), "trial"));
  EXPECT_EQ(AuditRecords(key, "license.create").size(), 1u);
  EXPECT_EQ(Str(AuditRecords(key, "license.create")[0], "actor"), "client");
}

TEST_F(Trials, AProductWithoutTrialsAnswers1703) {
  Start();
  EXPECT_API_ERROR(Trial("trial-machine-0002"), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Call("trial", R"({"product":"Bad Slug","machineId":"trial-machine-0002"})"), 400,
                   1702, "LICENSE_API_MALFORMED");
}

TEST_F(Trials, ATrialLicenseServesOnlyItsMachineEvenWithAFreeSlot) {
  Start();
  OfferTrials();
  const HttpResponse t = Trial("trial-machine-0003");
  ASSERT_OK(t);
  const std::string key = Str(BodyJson(t), "licenseKey");
  ASSERT_OK(Deactivate(key, "trial-machine-0003"));
  EXPECT_API_ERROR(Activate(key, "other-machine-003"), 409, 1705, "LICENSE_API_LIMIT_REACHED");
  ASSERT_OK(Activate(key, "trial-machine-0003"));
}

TEST_F(Trials, AnEmailGetsOneTrialPerProductCaseInsensitively) {
  Start();
  OfferTrials();
  ASSERT_OK(Trial("trial-machine-0004", "Ann@Example.com"));
  const HttpResponse used = Trial("trial-machine-0005", "ann@example.COM");
  EXPECT_API_ERROR(used, 409, 1712, "LICENSE_API_TRIAL_USED");
  EXPECT_FALSE(Has(BodyJson(used), "licenseKey"));
  ASSERT_OK(Trial("trial-machine-0004", "ann@example.com"));  // its own machine still answers
}

TEST_F(Trials, SixtyFourConcurrentFirstCallsFromOneMachineCreateExactlyOneTrial) {
  Start();
  OfferTrials();
  std::vector<HttpRequest> requests;
  for (int i = 0; i < 64; ++i) requests.push_back(Signed("trial", TrialBody("trial-machine-race")));
  std::set<std::string> keys;
  for (const HttpResponse& r : SendAllAtOnce(requests)) {
    ASSERT_OK(r);
    keys.insert(Str(BodyJson(r), "licenseKey"));
  }
  EXPECT_EQ(keys.size(), 1u);
  EXPECT_EQ(AuditRecords(*keys.begin(), "license.create").size(), 1u);
}

TEST_F(Trials, TheTrialBucketCountsOnlyRequestsThatCreateATrial) {
  ServerOptions options;
  options.args = {"--rate-limit-trial", "2/1h"};
  Start(options);
  OfferTrials();
  ASSERT_OK(Trial("trial-bucket-0001"));
  ASSERT_OK(Trial("trial-bucket-0001"));
  ASSERT_OK(Trial("trial-bucket-0001"));
  ASSERT_OK(Trial("trial-bucket-0002"));
  EXPECT_RATE_LIMITED(Trial("trial-bucket-0003"), "trial", 3600);
  ASSERT_OK(Trial("trial-bucket-0002"));  // an existing trial is answered whatever the bucket
}

TEST_F(Trials, AResetLetsTheMachineStartAnotherTrialAndIsAudited) {
  Start();
  OfferTrials();
  const HttpResponse first = Trial("trial-machine-0006");
  ASSERT_OK(first);
  const std::string old_key = Str(BodyJson(first), "licenseKey");
  admin().RunOk({"trial", "reset", "--product", "reverb", "--machine-id", "trial-machine-0006"});
  EXPECT_EQ(AuditRecords(old_key, "trial.reset").size(), 1u);
  const HttpResponse second = Trial("trial-machine-0006");
  ASSERT_OK(second);
  EXPECT_NE(Str(BodyJson(second), "licenseKey"), old_key);
  EXPECT_EQ(admin()
                .Run({"trial", "reset", "--product", "reverb", "--machine-id", "nobody-machine-1"})
                .exit_code,
            1);
}

}  // namespace
}  // namespace bb
