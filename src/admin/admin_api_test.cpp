#include "admin/admin_api.h"

#include <gtest/gtest.h>

#include "admin/admin_tokens.h"
#include "auth/base64.h"
#include "http/admin_api_error.h"
#include "http/admin_api_handler.h"
#include "store/sqlite/memory_test_store.h"

namespace licensed {
namespace {

constexpr UnixMillis kNow = 1'795'000'000'000;

class AdminApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_memory_test_store();
    ASSERT_TRUE(store_);
    ASSERT_TRUE(call(AdminRoute::kCreateProduct, R"({"slug":"reverb","name":"Reverb"})").ok());
  }

  // The answer, or the error as the admin API sends it.
  ApiResult<AdminAnswer> call(AdminRoute route, std::string body = {},
                              std::vector<std::pair<std::string, std::string>> query = {},
                              std::string key = {}) {
    AdminCall c;
    c.route = route;
    c.body = std::move(body);
    c.query = std::move(query);
    c.license_key = std::move(key);
    auto r = run_blocking(*store_, changes_data(route) ? TxKind::kWrite : TxKind::kRead,
                          [&](StoreTx& tx) {
                            return run_admin_call(tx, c, {kNow, "tester"});
                          });
    if (!r.ok()) return r.error().answer_or(to_admin_api_error);
    return std::move(r.value());
  }

  std::unique_ptr<Store> store_;
};

TEST_F(AdminApiTest, LicensePagesFollowTheCursorToTheEnd) {
  for (int i = 0; i < 5; ++i) {
    auto created = call(AdminRoute::kCreateLicense, R"({"product":"reverb","max":1})");
    ASSERT_TRUE(created.ok()) << created.error().message;
    EXPECT_EQ(created->status, 201u);
  }
  std::vector<std::pair<std::string, std::string>> query{{"limit", "2"}};
  size_t seen = 0;
  int pages = 0;
  for (;;) {
    auto page = call(AdminRoute::kListLicenses, {}, query);
    ASSERT_TRUE(page.ok()) << page.error().message;
    seen += page->body.at("items").as_array().size();
    ++pages;
    const auto& next = page->body.at("nextCursor");
    if (next.is_null()) break;
    query = {{"limit", "2"}, {"cursor", std::string(next.as_string())}};
  }
  EXPECT_EQ(seen, 5u);
  EXPECT_EQ(pages, 3);
}

TEST_F(AdminApiTest, CursorsAndLimitsOutOfRangeAre1702) {
  for (const auto& q : std::vector<std::pair<std::string, std::string>>{
           {"limit", "0"}, {"limit", "501"}, {"limit", "1x"}, {"cursor", "!"}, {"cursor", "MA"}}) {
    auto r = call(AdminRoute::kListLicenses, {}, {q});
    ASSERT_FALSE(r.ok()) << q.first << "=" << q.second;
    EXPECT_EQ(r.error().code, ErrorCode::kMalformed);
    EXPECT_EQ(r.error().extra.at("field").as_string(), q.first);
  }
}

TEST_F(AdminApiTest, DuplicateMembersAre1702) {
  auto r = call(AdminRoute::kCreateLicense, R"({"product":"reverb","max":1,"max":2})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kMalformed);
  EXPECT_EQ(r.error().extra.at("field").as_string(), "max");
}

TEST_F(AdminApiTest, ReadRoutesDoNotChangeData) {
  EXPECT_FALSE(changes_data(AdminRoute::kListLicenses));
  EXPECT_FALSE(changes_data(AdminRoute::kListAudit));
  EXPECT_TRUE(changes_data(AdminRoute::kRestoreLicense));
  EXPECT_TRUE(changes_data(AdminRoute::kRemoveActivation));
}

TEST_F(AdminApiTest, TokensAreFoundByValueOnlyAndNamesAreUnique) {
  auto issued = run_blocking(*store_, TxKind::kWrite,
                             [](StoreTx& tx) { return create_admin_token(tx, "ci", true, kNow); });
  ASSERT_TRUE(issued.ok());
  EXPECT_EQ(issued->token.rfind("lic_adm_", 0), 0u);
  auto again = run_blocking(*store_, TxKind::kWrite,
                            [](StoreTx& tx) { return create_admin_token(tx, "ci", false, kNow); });
  EXPECT_FALSE(again.ok());
  auto find = [&](const std::string& value) {
    return run_blocking(*store_, TxKind::kRead,
                        [&](StoreTx& tx) { return find_admin_token_by_value(tx, value); });
  };
  auto found = find(issued->token);
  ASSERT_TRUE(found.ok() && found.value().has_value());
  EXPECT_EQ(found.value()->name, "ci");
  EXPECT_TRUE(found.value()->read_only);
  EXPECT_FALSE(find(issued->token + "x").value().has_value());
  EXPECT_FALSE(find("ci").value().has_value());
  ASSERT_TRUE(run_blocking(*store_, TxKind::kWrite, [](StoreTx& tx) {
                return revoke_admin_token(tx, "ci");
              }).ok());
  EXPECT_FALSE(find(issued->token).value().has_value());
}

TEST(Base64Url, RoundTripsWithoutPaddingAndRefusesOtherAlphabets) {
  const uint8_t bytes[] = {0xfb, 0xff, 0xbf, 0x01};
  const std::string text = base64url_encode(bytes, sizeof bytes);
  EXPECT_EQ(text, "-_-_AQ");
  const auto back = base64url_decode(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, std::vector<uint8_t>(std::begin(bytes), std::end(bytes)));
  EXPECT_FALSE(base64url_decode("+/+/AQ").has_value());
  EXPECT_FALSE(base64url_decode("-_-_AQ==").has_value());
  EXPECT_FALSE(base64url_decode("-_-_AR").has_value());  // non-canonical trailing bits
}

TEST(AdminApiRoutes, PathsAndMethodsPickRoutes) {
  const AdminApiHandler handler({});
  auto id = [&](std::string_view method, std::string_view path) {
    auto r = handler.route(method, path);
    if (!r.ok()) return -r.error().http_status;
    return r->is<AdminRoute>() ? static_cast<int>(r->as<AdminRoute>()) : -1;
  };
  EXPECT_EQ(id("GET", "/api/v1/admin/licenses"), static_cast<int>(AdminRoute::kListLicenses));
  EXPECT_EQ(id("PATCH", "/api/v1/admin/licenses/k"), static_cast<int>(AdminRoute::kPatchLicense));
  EXPECT_EQ(id("DELETE", "/api/v1/admin/licenses/k/activations/m%2F1"),
            static_cast<int>(AdminRoute::kRemoveActivation));
  EXPECT_EQ(id("POST", "/prefix/api/v1/admin/licenses/k/restore"),
            static_cast<int>(AdminRoute::kRestoreLicense));
  EXPECT_EQ(id("GET", "/api/v1/admin/licenses//audit"), -404);
  EXPECT_EQ(id("GET", "/api/v1/admin/"), -404);
  EXPECT_EQ(id("PUT", "/api/v1/admin/products"), -405);
  EXPECT_EQ(handler.route("PUT", "/api/v1/admin/products").error().allow, "GET, POST");
}

}  // namespace
}  // namespace licensed
