// docs/protocol.md §20 over the admin HTTP API: plans made, listed, changed and deleted,
// a product's defaultPlan and trial offer, licenses made with a plan and entitlements,
// PATCH replacing the list, and bad input answered 1702 with `field` and nothing
// written. Every answer, and the License API's trial and activate answers, is checked
// against the OpenAPI document the server serves.
#include <gtest/gtest.h>

#include "support/fixture.h"
#include "support/openapi_check.h"

namespace bb {
namespace {

class AdminPlansApi : public BlackboxTest {
 protected:
  void SetUp() override {
    BlackboxTest::SetUp();
    const CommandResult r = admin().Run({"token", "create", "--name", "plans-bot", "--json"});
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    token_ = Str(ParseJson(r.out), "token");
  }
  const json::value& OpenApi() {
    if (openapi_.is_null()) {
      HttpRequest request;
      request.method = "GET";
      request.target = "/api/v1/openapi.json";
      openapi_ = ParseJson(Send(request).body);
    }
    return openapi_;
  }
  // An admin call, its answer checked against the document's `path` template.
  HttpResponse Api(const std::string& method, const std::string& target, const std::string& path,
                   std::optional<std::string> body = {}) {
    HttpRequest request;
    request.method = method;
    request.target = "/api/v1/admin" + target;
    request.Set("Authorization", "Bearer " + token_);
    if (body) {
      request.Set("Content-Type", "application/json");
      request.body = std::move(*body);
    }
    HttpResponse r = Send(request);
    std::string lower = method;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_DOCUMENTED(OpenApi(), lower, "/api/v1/admin" + path, r);
    return r;
  }
  void ExpectMalformed(const HttpResponse& r, std::string_view field) {
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), field) << r.Describe();
  }

  std::string token_;
  json::value openapi_;
};

constexpr const char* kPlans = "/products/{slug}/plans";
constexpr const char* kPlan = "/products/{slug}/plans/{code}";

TEST_F(AdminPlansApi, PlansAreCreatedListedChangedAndDeleted) {
  Start();
  const HttpResponse made = Api(
      "POST", "/products/reverb/plans", kPlans,
      R"({"code":"pro","name":"Reverb Pro","max":3,"validFor":"365d","validFrom":"creation",)"
      R"("maxBorrow":"7d","offlineRelease":"deactivation","entitlements":[{"code":"updates","validFor":"365d"},)"
      R"({"code":"voices","value":64}]})");
  ASSERT_EQ(made.status, 201) << made.Describe();
  EXPECT_EQ(Str(BodyJson(made), "validFor"), "365d");
  EXPECT_EQ(Int(BodyJson(made), "maxBorrow"), 7 * 86400);
  const HttpResponse list = Api("GET", "/products/reverb/plans", kPlans);
  ASSERT_EQ(list.status, 200) << list.Describe();
  EXPECT_EQ(Arr(BodyJson(list), "items").size(), 1u);
  const HttpResponse changed =
      Api("PATCH", "/products/reverb/plans/pro", kPlan, R"({"name":"Pro 2","max":4})");
  ASSERT_EQ(changed.status, 200) << changed.Describe();
  EXPECT_EQ(Str(BodyJson(changed), "name"), "Pro 2");
  EXPECT_EQ(Arr(BodyJson(changed), "entitlements").size(), 2u) << "members not given are kept";
  ASSERT_EQ(Api("DELETE", "/products/reverb/plans/pro", kPlan).status, 200);
  EXPECT_API_ERROR(Api("GET", "/products/reverb/plans/pro", kPlan), 404, 1703,
                   "LICENSE_API_NOT_FOUND");
}

TEST_F(AdminPlansApi, BadPlansAndEntitlementsAre1702WithTheFieldAndWriteNothing) {
  Start();
  ExpectMalformed(
      Api("POST", "/products/reverb/plans", kPlans, R"({"code":"pro","name":"Pro","max":-1})"),
      "max");
  ExpectMalformed(Api("POST", "/products/reverb/plans", kPlans,
                      R"({"code":"pro","name":"Pro","validFor":"a year"})"),
                  "validFor");
  ExpectMalformed(Api("POST", "/products/reverb/plans", kPlans, R"({"code":"Pro!","name":"Pro"})"),
                  "code");
  ExpectMalformed(Api("POST", "/products/reverb/plans", kPlans,
                      R"({"code":"pro","name":"Pro","entitlements":[{"code":"a"},{"code":"a"}]})"),
                  "entitlements");
  EXPECT_EQ(Arr(BodyJson(Api("GET", "/products/reverb/plans", kPlans)), "items").size(), 0u);

  const std::string long_value(300, 'x');
  for (const std::string& entitlements : {std::string(R"([{"code":"Bad Code"}])"),
                                          R"([{"code":"big","value":")" + long_value + R"("}])",
                                          std::string(R"([{"code":"pro"},{"code":"pro"}])")}) {
    ExpectMalformed(Api("POST", "/licenses", "/licenses",
                        R"({"product":"reverb","max":1,"entitlements":)" + entitlements + "}"),
                    "entitlements");
  }
  const HttpResponse page = Api("GET", "/licenses", "/licenses");
  EXPECT_EQ(Arr(BodyJson(page), "items").size(), 0u) << "nothing half-written";
}

TEST_F(AdminPlansApi, ALicenseFromAPlanAndAPatchThatReplacesItsEntitlements) {
  Start();
  ASSERT_EQ(Api("POST", "/products/reverb/plans", kPlans,
                R"({"code":"pro","name":"Pro","max":3,"entitlements":[{"code":"pro"}]})")
                .status,
            201);
  ASSERT_EQ(Api("PATCH", "/products/reverb", "/products/{slug}", R"({"defaultPlan":"pro"})").status,
            200);
  const HttpResponse made =
      Api("POST", "/licenses", "/licenses",
          R"({"product":"reverb","entitlements":[{"code":"voices","value":8}]})");
  ASSERT_EQ(made.status, 201) << made.Describe();
  const json::value license = BodyJson(made);
  EXPECT_EQ(Str(license, "plan"), "pro");
  EXPECT_EQ(Int(license, "max"), 3);
  EXPECT_EQ(Arr(license, "entitlements").size(), 2u);
  const std::string key = Str(license, "licenseKey");
  const HttpResponse patched =
      Api("PATCH", "/licenses/" + key, "/licenses/{key}",
          R"({"entitlements":[{"code":"updates","expiresAt":"2030-01-01T00:00:00.000Z"}]})");
  ASSERT_EQ(patched.status, 200) << patched.Describe();
  const json::value patched_body = BodyJson(patched);
  const auto& list = Arr(patched_body, "entitlements");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(Str(list[0], "code"), "updates");
  const auto updates = AuditRecords(key, "license.update");
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(Arr(updates[0], "changes.entitlements.from").size(), 2u);
}

// Support moves a license to another plan (issue 23 item 6): only the plan's code changes
// (docs/protocol.md §20: later edits of the license and the plan do not touch each other),
// audited with its from/to; a code the product has no plan of, or a number, is 1702.
TEST_F(AdminPlansApi, APatchMovesALicenseToAnotherPlanOrNoneAndRefusesAnUnknownOne) {
  Start();
  for (const char* plan : {R"({"code":"basic","name":"Basic","max":1})",
                           R"({"code":"studio","name":"Studio","max":5})"}) {
    ASSERT_EQ(Api("POST", "/products/reverb/plans", kPlans, plan).status, 201);
  }
  const HttpResponse made =
      Api("POST", "/licenses", "/licenses", R"({"product":"reverb","plan":"basic"})");
  ASSERT_EQ(made.status, 201) << made.Describe();
  const std::string key = Str(BodyJson(made), "licenseKey");
  const HttpResponse moved =
      Api("PATCH", "/licenses/" + key, "/licenses/{key}", R"({"plan":"studio"})");
  ASSERT_EQ(moved.status, 200) << moved.Describe();
  EXPECT_EQ(Str(BodyJson(moved), "plan"), "studio");
  EXPECT_EQ(Int(BodyJson(moved), "max"), 1) << "the plan's max is not copied onto the license";
  ExpectMalformed(Api("PATCH", "/licenses/" + key, "/licenses/{key}", R"({"plan":"gold"})"),
                  "plan");
  ExpectMalformed(Api("PATCH", "/licenses/" + key, "/licenses/{key}", R"({"plan":7})"), "plan");
  const HttpResponse none = Api("PATCH", "/licenses/" + key, "/licenses/{key}", R"({"plan":null})");
  ASSERT_EQ(none.status, 200) << none.Describe();
  EXPECT_TRUE(BodyJson(none).at("plan").is_null()) << none.Describe();
  const auto updates = AuditRecords(key, "license.update");
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(Str(updates[0], "changes.plan.from"), "basic");
  EXPECT_EQ(Str(updates[0], "changes.plan.to"), "studio");
  EXPECT_EQ(Str(updates[1], "changes.plan.from"), "studio");
  EXPECT_TRUE(updates[1].at("changes").at("plan").at("to").is_null());
}

TEST_F(AdminPlansApi, ATrialOfferedOverTheApiAnswersAsDocumented) {
  Start();
  ASSERT_EQ(
      Api("POST", "/products/reverb/plans", kPlans, R"({"code":"trial","name":"Trial","max":1})")
          .status,
      201);
  ExpectMalformed(Api("PATCH", "/products/reverb", "/products/{slug}",
                      R"({"trial":{"plan":"none-such","days":14}})"),
                  "trial");
  const HttpResponse offered = Api("PATCH", "/products/reverb", "/products/{slug}",
                                   R"({"trial":{"plan":"trial","days":7}})");
  ASSERT_EQ(offered.status, 200) << offered.Describe();
  EXPECT_EQ(Int(BodyJson(offered), "trial.days"), 7);
  const HttpResponse t = Call("trial", R"({"product":"reverb","machineId":"api-trial-0001"})");
  ASSERT_OK(t);
  EXPECT_DOCUMENTED(OpenApi(), "post", "/api/v1/license/trial", t);
  EXPECT_DOCUMENTED(OpenApi(), "post", "/api/v1/license/activate",
                    Activate(Str(BodyJson(t), "licenseKey"), "api-trial-0001"));
}

}  // namespace
}  // namespace bb
