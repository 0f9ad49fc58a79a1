// The trial body (docs/protocol.md §20) and the entitlement rules every surface shares.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "core/entitlement.h"
#include "core/request_body.h"

namespace licensed {
namespace {

std::string field_of(const ApiError& e) {
  const auto* f = e.extra.if_contains("field");
  return f != nullptr && f->is_string() ? std::string(f->as_string()) : "";
}

TEST(TrialBody, ProductMachineNameAndEmailAreReadAndTheEmailLowercased) {
  auto r = parse_license_request(
      Endpoint::kTrial,
      R"({"product":"reverb","machineId":"machine-0001","machineName":"Studio","email":"Ann@Example.COM"})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->product, "reverb");
  EXPECT_EQ(r->machine_id, "machine-0001");
  EXPECT_EQ(r->machine_name, "Studio");
  EXPECT_EQ(r->email, "ann@example.com");
  EXPECT_TRUE(r->license_key.empty());
}

TEST(TrialBody, EachBadMemberIs1702NamingIt) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"machineId":"machine-0001"})", "product"},
      {R"({"product":"Reverb Pro","machineId":"machine-0001"})", "product"},
      {R"({"product":"reverb"})", "machineId"},
      {R"({"product":"reverb","machineId":"short"})", "machineId"},
      {R"({"product":"reverb","machineId":"machine-0001","email":"no-at-sign"})", "email"},
      {R"({"product":"reverb","machineId":"machine-0001","email":42})", "email"},
      {R"({"product":"reverb","machineId":"machine-0001","email":"a@b.c","email":"d@e.f"})",
       "email"},
  };
  for (const auto& [body, field] : cases) {
    auto r = parse_license_request(Endpoint::kTrial, body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().code, ErrorCode::kMalformed) << body;
    EXPECT_EQ(field_of(r.error()), field) << body;
  }
}

TEST(Entitlements, CodesFollowTheGrammar) {
  EXPECT_TRUE(valid_entitlement_code("pro"));
  EXPECT_TRUE(valid_entitlement_code("9-voices_v2.x"));
  EXPECT_FALSE(valid_entitlement_code(""));
  EXPECT_FALSE(valid_entitlement_code("-pro"));
  EXPECT_FALSE(valid_entitlement_code("Pro"));
  EXPECT_FALSE(valid_entitlement_code(std::string(65, 'a')));
  EXPECT_TRUE(valid_entitlement_code(std::string(64, 'a')));
}

TEST(Entitlements, AValueIsAScalarOfAtMost256Bytes) {
  EXPECT_TRUE(valid_entitlement_value(boost::json::parse("64")));
  EXPECT_TRUE(valid_entitlement_value(boost::json::parse("true")));
  EXPECT_TRUE(valid_entitlement_value(boost::json::value(std::string(254, 'x'))));
  EXPECT_FALSE(valid_entitlement_value(boost::json::value(std::string(255, 'x'))))
      << "257 bytes with its quotes";
  EXPECT_FALSE(valid_entitlement_value(boost::json::parse("[1]")));
  EXPECT_FALSE(valid_entitlement_value(boost::json::parse("null")));
}

TEST(Entitlements, AListWithACodeTwiceIsRefusedNamingTheField) {
  const std::vector<Entitlement> twice = {{"pro", std::nullopt, std::nullopt, std::nullopt},
                                          {"pro", 5, std::nullopt, std::nullopt}};
  const Status s = check_entitlements(twice, "entitlements");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().subject, "entitlements");
}

TEST(Entitlements, AnswersSortByCodeAndSayWhichAreActive) {
  const auto list = entitlements_answer_json(
      {{"zeta", std::nullopt, std::nullopt, std::nullopt}, {"alpha", 1000, "64", std::nullopt}},
      2000);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].at("code").as_string(), "alpha");
  EXPECT_FALSE(list[0].at("active").as_bool());
  EXPECT_EQ(list[0].at("value").as_int64(), 64);
  EXPECT_TRUE(list[1].at("active").as_bool());
  EXPECT_FALSE(list[1].as_object().contains("value"));
}

}  // namespace
}  // namespace licensed
