// docs/protocol.md §18: the admin HTTP API, its bearer tokens (§18's `admin token
// create`), and machineTtl over it (§10). Every answer an admin call gets here
// is also checked against the OpenAPI document the server serves.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <thread>

#include "support/fixture.h"
#include "support/openapi_check.h"

namespace bb {
namespace {

constexpr std::string_view kAdmin = "/api/v1/admin";

// The document's path template of an admin target: /licenses/<key>/activations/<id>
// becomes /licenses/{key}/activations/{machineId}.
std::string PathTemplate(std::string_view target) {
  target = target.substr(0, target.find('?'));
  std::vector<std::string> segments;
  for (size_t start = 1; start <= target.size();) {
    const size_t slash = std::min(target.find('/', start), target.size());
    segments.emplace_back(target.substr(start, slash - start));
    start = slash + 1;
  }
  if (segments.size() >= 5 && segments[3] == "licenses") segments[4] = "{key}";
  if (segments.size() >= 7 && segments[5] == "activations") segments[6] = "{machineId}";
  std::string out;
  for (const auto& s : segments) out += "/" + s;
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class AdminApi : public BlackboxTest {
 protected:
  void SetUp() override {
    BlackboxTest::SetUp();
    token_ = NewToken("ci-bot");
  }

  // `licensed admin token create --name NAME [--read-only] --json`; returns the token.
  std::string NewToken(const std::string& name, bool read_only = false) const {
    std::vector<std::string> args{"token", "create", "--name", name, "--json"};
    if (read_only) args.push_back("--read-only");
    const CommandResult r = admin().Run(args);
    if (r.exit_code != 0) throw std::runtime_error(r.Describe());
    const json::value v = ParseJson(r.out);
    if (Str(v, "name") != name) throw std::runtime_error(r.Describe());
    return Str(v, "token");
  }

  const json::value& OpenApi() {
    if (openapi_.is_null()) {
      HttpRequest request;
      request.method = "GET";
      request.target = "/api/v1/openapi.json";
      const HttpResponse r = Send(request);
      if (r.status != 200) throw std::runtime_error(r.Describe());
      openapi_ = ParseJson(r.body);
    }
    return openapi_;
  }

  // An admin API call with `token` (none when empty); the answer is checked against
  // the OpenAPI document when the route is one of its paths.
  HttpResponse Api(std::string method, const std::string& target,
                   std::optional<std::string> body = {},
                   const std::optional<std::string>& token = std::nullopt) {
    HttpRequest request;
    request.method = std::move(method);
    request.target = std::string(kAdmin) + target;
    const std::string bearer = token.value_or(token_);
    if (!bearer.empty()) request.Set("Authorization", "Bearer " + bearer);
    if (body) {
      request.Set("Content-Type", "application/json");
      request.body = std::move(*body);
    }
    HttpResponse r = Send(request);
    const std::string path = PathTemplate(request.target);
    const json::value& doc = OpenApi();
    const json::value* op = Find(doc, "paths");
    op = op != nullptr ? op->as_object().if_contains(path) : nullptr;
    if (op != nullptr && op->as_object().contains(Lower(request.method))) {
      EXPECT_DOCUMENTED(doc, Lower(request.method), path, r);
    }
    return r;
  }

  // POST /licenses; returns the new key.
  std::string CreateLicense(const std::string& body) {
    const HttpResponse r = Api("POST", "/licenses", body);
    if (r.status != 201) throw std::runtime_error(r.Describe());
    return Str(BodyJson(r), "licenseKey");
  }

  // Follows nextCursor from `first` to the end; returns every item.
  std::vector<json::value> AllPages(const std::string& first, int* pages = nullptr) {
    std::vector<json::value> items;
    std::string target = first;
    int count = 0;
    for (;;) {
      const HttpResponse r = Api("GET", target);
      if (r.status != 200) throw std::runtime_error(r.Describe());
      const json::value v = BodyJson(r);
      for (const auto& item : Arr(v, "items")) items.push_back(item);
      ++count;
      if (IsNull(v, "nextCursor")) break;
      target = first + (first.find('?') == std::string::npos ? "?" : "&") +
               "cursor=" + Str(v, "nextCursor");
      if (count > 100) throw std::runtime_error("paging does not end");
    }
    if (pages != nullptr) *pages = count;
    return items;
  }

  std::vector<json::value> AdminAudit(const std::string& key) {
    return AllPages("/licenses/" + key + "/audit");
  }

  std::string token_;
  json::value openapi_;
};

// ---- tokens --------------------------------------------------------------------------

TEST_F(AdminApi, TokenCreateShowsTheTokenOnceAndStoresOnlyItsHash) {
  const std::string token = NewToken("dashboard");
  EXPECT_EQ(token.rfind("lic_adm_", 0), 0u) << token;
  EXPECT_GE(token.size(), 8u + 43u);  // 32 bytes of base64url
  EXPECT_NE(NewToken("dashboard-2"), token);
  std::ifstream db(db_path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(db)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.find(token), std::string::npos) << "the token itself is in the database";
  const CommandResult list = admin().Run({"token", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.Describe();
  EXPECT_EQ(list.out.find(token), std::string::npos);
  EXPECT_NE(list.out.find("\"dashboard\""), std::string::npos) << list.out;
}

TEST_F(AdminApi, TokenNamesAreUnique) {
  const CommandResult again = admin().Run({"token", "create", "--name", "ci-bot", "--json"});
  EXPECT_EQ(again.exit_code, 1) << again.Describe();
}

TEST_F(AdminApi, MissingOrUnknownTokenIs401) {
  Start();
  for (const std::string& target :
       std::vector<std::string>{"/products", "/licenses", "/licenses/" + RandomUuidV4()}) {
    const HttpResponse none = Api("GET", target, std::nullopt, "");
    EXPECT_ROUTE_ERROR(none, 401, "UNAUTHORIZED");
    EXPECT_EQ(none.header("WWW-Authenticate").value_or(""), "Bearer");
    EXPECT_ROUTE_ERROR(Api("GET", target, std::nullopt, token_ + "x"), 401, "UNAUTHORIZED");
    EXPECT_ROUTE_ERROR(Api("GET", target, std::nullopt, "lic_adm_nope"), 401, "UNAUTHORIZED");
  }
  // A wrong scheme is no token at all.
  HttpRequest basic;
  basic.method = "GET";
  basic.target = std::string(kAdmin) + "/products";
  basic.Set("Authorization", "Basic " + token_);
  EXPECT_ROUTE_ERROR(Send(basic), 401, "UNAUTHORIZED");
  // A bad body is not told before the token is checked.
  EXPECT_ROUTE_ERROR(Api("POST", "/licenses", "{", ""), 401, "UNAUTHORIZED");
}

TEST_F(AdminApi, TokenListShowsTheLastUseOfAChange) {
  Start();
  auto last_used = [&]() -> json::value {
    const CommandResult list = admin().Run({"token", "list", "--json"});
    if (list.exit_code != 0) throw std::runtime_error(list.Describe());
    const json::value tokens = ParseJson(list.out);
    for (const auto& t : tokens.as_array()) {
      if (Str(t, "name") == "ci-bot") return At(t, "lastUsedAt");
    }
    throw std::runtime_error("no ci-bot in\n" + list.out);
  };
  EXPECT_TRUE(last_used().is_null());
  // A change records the use in its own transaction.
  ASSERT_EQ(Api("POST", "/products", R"({"slug":"delay","name":"Delay"})").status, 201);
  const json::value used = last_used();
  ASSERT_TRUE(used.is_string());
  EXPECT_TRUE(IsTimestamp(used.as_string()));
}

TEST_F(AdminApi, RevokedTokenIs401AtOnce) {
  Start();
  const std::string token = NewToken("temp");
  EXPECT_EQ(Api("GET", "/products", std::nullopt, token).status, 200);
  const CommandResult r = admin().Run({"token", "revoke", "--name", "temp"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_ROUTE_ERROR(Api("GET", "/products", std::nullopt, token), 401, "UNAUTHORIZED");
  EXPECT_EQ(admin().Run({"token", "revoke", "--name", "temp"}).exit_code, 1);
}

TEST_F(AdminApi, ReadOnlyTokenReadsButEveryChangeIs403) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":2})");
  ASSERT_OK(Activate(key, "machine-0001"));
  const std::string ro = NewToken("auditor", true);
  EXPECT_EQ(Api("GET", "/products", std::nullopt, ro).status, 200);
  EXPECT_EQ(Api("GET", "/licenses", std::nullopt, ro).status, 200);
  EXPECT_EQ(Api("GET", "/licenses/" + key, std::nullopt, ro).status, 200);
  EXPECT_EQ(Api("GET", "/licenses/" + key + "/activations", std::nullopt, ro).status, 200);
  EXPECT_EQ(Api("GET", "/licenses/" + key + "/audit", std::nullopt, ro).status, 200);
  const auto audit_before = AdminAudit(key).size();
  EXPECT_ROUTE_ERROR(Api("POST", "/products", R"({"slug":"x","name":"X"})", ro), 403, "FORBIDDEN");
  EXPECT_ROUTE_ERROR(Api("POST", "/licenses", R"({"product":"reverb","max":1})", ro), 403,
                     "FORBIDDEN");
  EXPECT_ROUTE_ERROR(Api("PATCH", "/licenses/" + key, R"({"max":9})", ro), 403, "FORBIDDEN");
  EXPECT_ROUTE_ERROR(Api("DELETE", "/licenses/" + key, std::nullopt, ro), 403, "FORBIDDEN");
  EXPECT_ROUTE_ERROR(Api("POST", "/licenses/" + key + "/restore", std::nullopt, ro), 403,
                     "FORBIDDEN");
  EXPECT_ROUTE_ERROR(
      Api("DELETE", "/licenses/" + key + "/activations/machine-0001", std::nullopt, ro), 403,
      "FORBIDDEN");
  // Nothing changed.
  const json::value v = BodyJson(Api("GET", "/licenses/" + key));
  EXPECT_EQ(Int(v, "max"), 2);
  EXPECT_TRUE(IsNull(v, "deletedAt"));
  EXPECT_EQ(Arr(v, "activations").size(), 1u);
  EXPECT_EQ(AdminAudit(key).size(), audit_before);
}

TEST_F(AdminApi, RepeatedWrongTokensFromOneIpAreRateLimited) {
  Start();
  int unauthorized = 0;
  HttpResponse last;
  for (int i = 0; i < 40; ++i) {
    last = Api("GET", "/products", std::nullopt, "lic_adm_guess" + std::to_string(i));
    if (last.status != 401) break;
    ++unauthorized;
  }
  EXPECT_GE(unauthorized, 1);
  EXPECT_LT(unauthorized, 40);
  EXPECT_RATE_LIMITED(last, "ip", 60);
}

// Were a right token served while the bucket is empty, a guesser would tell the right
// guess from the others by its answer; so every attempt waits for the refill.
TEST_F(AdminApi, WhileWrongTokensAreRateLimitedTheRightTokenIsRefusedToo) {
  Start();
  HttpResponse last;
  for (int i = 0; i < 40 && last.status != 429; ++i) {
    last = Api("GET", "/products", std::nullopt, "lic_adm_guess" + std::to_string(i));
  }
  ASSERT_EQ(last.status, 429) << last.Describe();
  EXPECT_RATE_LIMITED(Api("GET", "/products"), "ip", 60);
  EXPECT_RATE_LIMITED(Api("POST", "/products", R"({"slug":"delay","name":"Delay"})"), "ip", 60);
}

TEST_F(AdminApi, TokensNeverReachTheLog) {
  Start();
  EXPECT_EQ(Api("GET", "/licenses").status, 200);
  EXPECT_EQ(Api("GET", "/licenses", std::nullopt, token_ + "wrong").status, 401);
  server().Terminate();  // the log is complete afterwards
  const std::string log = server().log();
  EXPECT_EQ(log.find(token_), std::string::npos);
  EXPECT_EQ(log.find(token_.substr(8)), std::string::npos);
}

// ---- licenses ------------------------------------------------------------------------

TEST_F(AdminApi, CreateLicenseAnswers201WithTheLicenseAndAuditsTheTokenName) {
  Start();
  const HttpResponse r =
      Api("POST", "/licenses",
          R"({"product":"reverb","max":3,"expiresAt":"2099-01-01T00:00:00.000Z",)"
          R"("status":"SUSPENDED","machineTtl":600,"unknownMember":1})");
  ASSERT_EQ(r.status, 201) << r.Describe();
  const json::value v = BodyJson(r);
  const std::string key = Str(v, "licenseKey");
  EXPECT_TRUE(IsLowercaseUuidV4(key));
  EXPECT_EQ(Str(v, "product.slug"), kProduct);
  EXPECT_EQ(Str(v, "status"), "SUSPENDED");
  EXPECT_EQ(Int(v, "max"), 3);
  EXPECT_EQ(Str(v, "expiresAt"), "2099-01-01T00:00:00.000Z");
  EXPECT_EQ(Int(v, "machineTtl"), 600);
  EXPECT_TRUE(Arr(v, "activations").empty());
  // The License API sees the same license.
  EXPECT_EQ(Str(BodyJson(Status(key)), "status"), "SUSPENDED");
  EXPECT_EQ(Int(BodyJson(Status(key)), "machineTtl"), 600);

  const auto audit = AdminAudit(key);
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(Str(audit[0], "action"), "license.create");
  EXPECT_EQ(Str(audit[0], "actor"), "admin");
  EXPECT_EQ(Str(audit[0], "actorName"), "ci-bot");
}

TEST_F(AdminApi, GetLicenseShowsItsActivations) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":3})");
  ASSERT_OK(Activate(key, "machine-0001", "Studio PC"));
  // Either case of the key.
  std::string upper = key;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const HttpResponse r = Api("GET", "/licenses/" + upper);
  ASSERT_EQ(r.status, 200) << r.Describe();
  const json::value v = BodyJson(r);
  EXPECT_EQ(Str(v, "licenseKey"), key);
  EXPECT_TRUE(IsNull(v, "machineTtl"));
  EXPECT_EQ(Int(v, "activationCount"), 1);
  ASSERT_EQ(Arr(v, "activations").size(), 1u);
  EXPECT_EQ(Str(Arr(v, "activations")[0], "id"), "machine-0001");
  EXPECT_EQ(Str(Arr(v, "activations")[0], "name"), "Studio PC");
}

TEST_F(AdminApi, PatchChangesStatusMaxExpiryAndMachineTtlWithAnAuditRecordEach) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1,"machineTtl":60})");
  HttpResponse r = Api("PATCH", "/licenses/" + key,
                       R"({"status":"REVOKED","max":5,"expiresAt":"2099-06-01T00:00:00Z",)"
                       R"("machineTtl":null})");
  ASSERT_EQ(r.status, 200) << r.Describe();
  json::value v = BodyJson(r);
  EXPECT_EQ(Str(v, "status"), "REVOKED");
  EXPECT_EQ(Int(v, "max"), 5);
  EXPECT_EQ(Str(v, "expiresAt"), "2099-06-01T00:00:00.000Z");
  EXPECT_TRUE(IsNull(v, "machineTtl"));
  EXPECT_API_ERROR(Activate(key, "machine-0001"), 403, 1704, "LICENSE_API_INACTIVE");

  r = Api("PATCH", "/licenses/" + key, R"({"status":"ACTIVE","expiresAt":null,"machineTtl":3600})");
  ASSERT_EQ(r.status, 200) << r.Describe();
  v = BodyJson(r);
  EXPECT_EQ(Str(v, "status"), "ACTIVE");
  EXPECT_TRUE(IsNull(v, "expiresAt"));
  EXPECT_EQ(Int(v, "machineTtl"), 3600);
  EXPECT_EQ(Int(v, "max"), 5);
  EXPECT_OK(Activate(key, "machine-0001"));

  std::vector<std::string> actions;
  for (const auto& e : AdminAudit(key)) {
    if (Str(e, "actor") != "admin") continue;
    EXPECT_EQ(Str(e, "actorName"), "ci-bot");
    actions.push_back(Str(e, "action"));
  }
  EXPECT_EQ(actions, (std::vector<std::string>{"license.create", "license.status", "license.update",
                                               "license.update", "license.update", "license.status",
                                               "license.update", "license.update"}));
}

// docs/protocol.md §17: an admin change's records carry the caller's ip and, on
// license.status and license.update, what changed; §17: PATCH's reason is kept
// in each of them.
TEST_F(AdminApi, PatchAuditsTheCallersIpWhatChangedFromWhatToWhatAndTheReason) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  HttpResponse r = Api("PATCH", "/licenses/" + key,
                       R"({"status":"SUSPENDED","max":4,"expiresAt":"2099-06-01T00:00:00Z",)"
                       R"("machineTtl":600,"reason":"chargeback #1234"})");
  ASSERT_EQ(r.status, 200) << r.Describe();
  r = Api("PATCH", "/licenses/" + key, R"({"status":"ACTIVE","machineTtl":null})");
  ASSERT_EQ(r.status, 200) << r.Describe();

  std::vector<json::value> records = AdminAudit(key);
  ASSERT_EQ(records.size(), 7u);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"license.status", R"({"status":{"from":"ACTIVE","to":"SUSPENDED"}})"},
      {"license.update", R"({"max":{"from":1,"to":4}})"},
      {"license.update", R"({"expiresAt":{"from":null,"to":"2099-06-01T00:00:00.000Z"}})"},
      {"license.update", R"({"machineTtl":{"from":null,"to":600}})"},
      {"license.status", R"({"status":{"from":"SUSPENDED","to":"ACTIVE"}})"},
      {"license.update", R"({"machineTtl":{"from":600,"to":null}})"},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    const json::value& e = records[i + 1];
    SCOPED_TRACE(Dump(e));
    EXPECT_EQ(Str(e, "action"), expected[i].first);
    EXPECT_EQ(Str(e, "ip"), "127.0.0.1");
    ASSERT_TRUE(Has(e, "changes"));
    EXPECT_EQ(Dump(At(e, "changes")), expected[i].second);
    // The first call's reason is in each of its four records; the second gave none.
    if (i < 4) {
      EXPECT_EQ(Str(e, "reason"), "chargeback #1234");
    } else {
      EXPECT_FALSE(Has(e, "reason"));
    }
  }
  EXPECT_EQ(Str(records[0], "ip"), "127.0.0.1");  // license.create, no changes
  EXPECT_FALSE(Has(records[0], "changes"));
  // The command line's records have no address to give, and say what changed too.
  admin().SetMax(key, 2);
  const json::value cli = Arr(admin().Audit(key), "").back();
  EXPECT_FALSE(Has(cli, "ip"));
  EXPECT_EQ(Dump(At(cli, "changes")), R"({"max":{"from":4,"to":2}})");
}

TEST_F(AdminApi, AReasonOfMoreThan500CharactersOrWithControlCharactersIs1702AndChangesNothing) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  // Characters, not bytes: 500 two-byte ones are accepted.
  std::string at_limit;
  for (int i = 0; i < 500; ++i) at_limit += "\xc3\xa9";
  HttpResponse r =
      Api("PATCH", "/licenses/" + key, R"({"status":"SUSPENDED","reason":")" + at_limit + R"("})");
  ASSERT_EQ(r.status, 200) << r.Describe();
  EXPECT_EQ(Str(AdminAudit(key).back(), "reason"), at_limit);
  r = Api("PATCH", "/licenses/" + key,
          R"({"status":"REVOKED","reason":")" + std::string(501, 'x') + R"("})");
  EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(r), "field"), "reason");
  r = Api("PATCH", "/licenses/" + key, R"({"status":"REVOKED","reason":5})");
  EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(r), "field"), "reason");
  // Control characters, escaped in JSON: a terminal escape, a C1 one, a NUL (PostgreSQL
  // would cut the text at it). Refused by the body parser or by the reason's own rule.
  for (const char* bad : {R"(\u001b[31mred)", R"(C1 \u0085 next line)", R"(cut\u0000here)"}) {
    r = Api("PATCH", "/licenses/" + key,
            std::string(R"({"status":"REVOKED","reason":")") + bad + R"("})");
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
  }
  EXPECT_EQ(Str(admin().Show(key), "status"), "SUSPENDED");
  EXPECT_EQ(AdminAudit(key).size(), 2u);
}

TEST_F(AdminApi, SoftDeleteAnswers1703ToClientsAndRestoreBringsTheLicenseBack) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":2})");
  ASSERT_OK(Activate(key, "machine-0001"));
  HttpResponse r = Api("DELETE", "/licenses/" + key);
  ASSERT_EQ(r.status, 200) << r.Describe();
  EXPECT_TRUE(IsTimestamp(Str(BodyJson(r), "deletedAt")));
  EXPECT_API_ERROR(Status(key), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Heartbeat(key, "machine-0001"), 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_API_ERROR(Activate(key, "machine-0002"), 404, 1703, "LICENSE_API_NOT_FOUND");
  // Admins still see it, in the deleted list and not in the live one; changes are refused.
  EXPECT_EQ(Api("GET", "/licenses/" + key).status, 200);
  auto keys_of = [](const std::vector<json::value>& items) {
    std::set<std::string> keys;
    for (const auto& i : items) keys.insert(Str(i, "licenseKey"));
    return keys;
  };
  EXPECT_EQ(keys_of(AllPages("/licenses?deleted=true")).count(key), 1u);
  EXPECT_EQ(keys_of(AllPages("/licenses")).count(key), 0u);
  EXPECT_API_ERROR(Api("PATCH", "/licenses/" + key, R"({"max":3})"), 400, 1702,
                   "LICENSE_API_MALFORMED");
  EXPECT_API_ERROR(Api("DELETE", "/licenses/" + key), 400, 1702, "LICENSE_API_MALFORMED");

  r = Api("POST", "/licenses/" + key + "/restore");
  ASSERT_EQ(r.status, 200) << r.Describe();
  EXPECT_TRUE(IsNull(BodyJson(r), "deletedAt"));
  EXPECT_OK(Status(key, "machine-0001"));
  EXPECT_TRUE(Bool(BodyJson(Status(key, "machine-0001")), "valid"));
  EXPECT_API_ERROR(Api("POST", "/licenses/" + key + "/restore"), 400, 1702,
                   "LICENSE_API_MALFORMED");

  std::vector<std::string> admin_actions;
  for (const auto& e : AdminAudit(key)) {
    if (Str(e, "actor") == "admin") admin_actions.push_back(Str(e, "action"));
  }
  EXPECT_EQ(admin_actions,
            (std::vector<std::string>{"license.create", "license.delete", "license.update"}));
}

TEST_F(AdminApi, RemovingAnActivationFreesASlot) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  const std::string odd_machine = "ci runner/42 ?#%+ \xc3\xa9";
  ASSERT_OK(Activate(key, odd_machine));
  EXPECT_API_ERROR(Activate(key, "machine-0002"), 409, 1705, "LICENSE_API_LIMIT_REACHED");

  const auto listed = AllPages("/licenses/" + key + "/activations");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(Str(listed[0], "id"), odd_machine);
  EXPECT_FALSE(Bool(listed[0], "stale"));

  const std::string encoded = "ci%20runner%2F42%20%3F%23%25%2B%20%C3%A9";
  EXPECT_API_ERROR(Api("DELETE", "/licenses/" + key + "/activations/machine-9999"), 404, 1707,
                   "LICENSE_API_MACHINE_NOT_ACTIVATED");
  // A NUL or ill-formed UTF-8 in the path is no machine id anyone activated: refused
  // whole (libpq would have cut the id at the NUL and matched a prefix), nothing removed.
  for (const char* bad : {"ci%20runner%2F42%20%3F%23%25%2B%20%C3%A9%00x", "%FF%FEmachine-42"}) {
    const HttpResponse refused = Api("DELETE", "/licenses/" + key + "/activations/" + bad);
    EXPECT_EQ(refused.status, 400) << refused.Describe();
    EXPECT_EQ(Int(BodyJson(refused), "code"), 1702) << refused.Describe();
  }
  ASSERT_EQ(AllPages("/licenses/" + key + "/activations").size(), 1u);
  const HttpResponse r = Api("DELETE", "/licenses/" + key + "/activations/" + encoded);
  ASSERT_EQ(r.status, 200) << r.Describe();
  EXPECT_TRUE(Arr(BodyJson(r), "activations").empty());
  EXPECT_OK(Activate(key, "machine-0002"));

  bool found = false;
  for (const auto& e : AdminAudit(key)) {
    if (Str(e, "action") == "license.deactivate" && Str(e, "actor") == "admin") {
      found = true;
      EXPECT_EQ(Str(e, "machineId"), odd_machine);
      EXPECT_EQ(Str(e, "actorName"), "ci-bot");
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(AdminApi, ListsArePagedWithAnOpaqueCursor) {
  Start();
  std::set<std::string> created;
  for (int i = 0; i < 7; ++i) created.insert(CreateLicense(R"({"product":"reverb","max":1})"));
  int pages = 0;
  const auto items = AllPages("/licenses?limit=3", &pages);
  EXPECT_EQ(pages, 3);
  std::set<std::string> seen;
  for (const auto& i : items) EXPECT_TRUE(seen.insert(Str(i, "licenseKey")).second);
  EXPECT_EQ(seen, created);

  // Default limit 50, at most 500.
  const json::value first = BodyJson(Api("GET", "/licenses"));
  EXPECT_EQ(Arr(first, "items").size(), 7u);
  EXPECT_TRUE(IsNull(first, "nextCursor"));
  EXPECT_EQ(Api("GET", "/licenses?limit=500").status, 200);

  // Activations and audit records page too.
  const std::string key = *created.begin();
  ASSERT_EQ(Api("PATCH", "/licenses/" + key, R"({"max":5})").status, 200);
  for (int i = 0; i < 5; ++i) ASSERT_OK(Activate(key, "machine-000" + std::to_string(i)));
  EXPECT_EQ(AllPages("/licenses/" + key + "/activations?limit=2", &pages).size(), 5u);
  EXPECT_EQ(pages, 3);
  const auto audit = AllPages("/licenses/" + key + "/audit?limit=2", &pages);
  EXPECT_EQ(audit.size(), 7u);  // create, update (set-max), 5 activations
  EXPECT_EQ(pages, 4);
  for (size_t i = 1; i < audit.size(); ++i) EXPECT_LT(Int(audit[i - 1], "id"), Int(audit[i], "id"));
}

TEST_F(AdminApi, ListFiltersByProductAndStatus) {
  Start();
  ASSERT_EQ(Api("POST", "/products", R"({"slug":"delay","name":"Delay"})").status, 201);
  const std::string a = CreateLicense(R"({"product":"reverb","max":1})");
  const std::string b = CreateLicense(R"({"product":"delay","max":1})");
  const std::string c = CreateLicense(R"({"product":"delay","max":1,"status":"REFUNDED"})");
  auto keys = [&](const std::string& query) {
    std::vector<std::string> out;
    for (const auto& i : AllPages("/licenses" + query)) out.push_back(Str(i, "licenseKey"));
    return out;
  };
  EXPECT_EQ(keys("?product=delay"), (std::vector<std::string>{b, c}));
  EXPECT_EQ(keys("?product=reverb"), (std::vector<std::string>{a}));
  EXPECT_EQ(keys("?status=REFUNDED"), (std::vector<std::string>{c}));
  EXPECT_EQ(keys("?product=delay&status=ACTIVE&limit=1"), (std::vector<std::string>{b}));
  EXPECT_EQ(keys("?status=SUSPENDED"), std::vector<std::string>{});
  // Licenses are listed by the status they show, the effective one (docs/protocol.md §6): an
  // ACTIVE license past its expiresAt is EXPIRED, not ACTIVE.
  const std::string d =
      CreateLicense(R"({"product":"reverb","max":1,"expiresAt":"2020-01-01T00:00:00.000Z"})");
  EXPECT_EQ(keys("?status=EXPIRED"), (std::vector<std::string>{d}));
  EXPECT_EQ(keys("?status=ACTIVE"), (std::vector<std::string>{a, b}));
  EXPECT_EQ(keys("?product=reverb&status=EXPIRED"), (std::vector<std::string>{d}));
  // Empty filters, as the spec writes the call, filter nothing.
  EXPECT_EQ(keys("?product=&status="), (std::vector<std::string>{a, b, c, d}));
}

TEST_F(AdminApi, BadQueriesAndCursorsAre1702) {
  Start();
  for (const std::string q : {"limit=0", "limit=501", "limit=abc", "limit=", "limit=-1"}) {
    const HttpResponse r = Api("GET", "/licenses?" + q);
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    EXPECT_EQ(Str(BodyJson(r), "field"), "limit") << q;
  }
  // A query that is not percent-encoding at all.
  EXPECT_API_ERROR(Api("GET", "/licenses?cursor=%%%"), 400, 1702, "LICENSE_API_MALFORMED");
  // base64url of "nope", of nothing, of "0", and standard base64 padding.
  for (const std::string q : {"cursor=bm9wZQ", "cursor=", "cursor=MA", "cursor=MQ=="}) {
    const HttpResponse r = Api("GET", "/licenses?" + q);
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    if (r.status == 400) {
      EXPECT_EQ(Str(BodyJson(r), "field"), "cursor") << q;
    }
  }
  HttpResponse r = Api("GET", "/licenses?product=nope");
  EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(r), "field"), "product");
  r = Api("GET", "/licenses?status=GONE");
  EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_EQ(Str(BodyJson(r), "field"), "status");
}

TEST_F(AdminApi, BadBodiesAre1702NamingTheField) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  struct Case {
    std::string method, target, body, field;
  };
  const std::vector<Case> cases = {
      {"POST", "/licenses", "{", ""},
      {"POST", "/licenses", "[]", ""},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"max":2})", "max"},
      {"POST", "/licenses", R"({"max":1})", "product"},
      {"POST", "/licenses", R"({"product":"reverb"})", "max"},
      {"POST", "/licenses", R"({"product":"reverb","max":-1})", "max"},
      {"POST", "/licenses", R"({"product":"reverb","max":1.5})", "max"},
      {"POST", "/licenses", R"({"product":"reverb","max":"1"})", "max"},
      {"POST", "/licenses", R"({"product":"nope","max":1})", "product"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"status":"EXPIRED"})", "status"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"expiresAt":"tomorrow"})", "expiresAt"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"machineTtl":0})", "machineTtl"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"machineTtl":"10m"})", "machineTtl"},
      // Durations an admin sets are at most 100 years: a time plus one never overflows.
      {"POST", "/licenses", R"({"product":"reverb","max":1,"machineTtl":3153600001})",
       "machineTtl"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"offlineGrace":"9223372036854775s"})",
       "offlineGrace"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"offlineGrace":4600000000000000})",
       "offlineGrace"},
      {"POST", "/licenses", R"({"product":"reverb","max":1,"offlineLease":"36501d"})",
       "offlineLease"},
      {"PATCH", "/licenses/" + key, R"({"offlineGrace":"106751991167d"})", "offlineGrace"},
      {"PATCH", "/licenses/" + key, "{}", ""},
      {"PATCH", "/licenses/" + key, R"({"max":null})", "max"},
      {"PATCH", "/licenses/" + key, R"({"status":"active"})", "status"},
      {"POST", "/products", R"({"slug":"Bad Slug","name":"x"})", "slug"},
      {"POST", "/products", R"({"slug":"reverb","name":"again"})", "slug"},
      {"POST", "/products", R"({"slug":"ok"})", "name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target + " " + c.body);
    const HttpResponse r = Api(c.method, c.target, c.body);
    EXPECT_API_ERROR(r, 400, 1702, "LICENSE_API_MALFORMED");
    if (r.status != 400) continue;
    const json::value v = BodyJson(r);
    if (c.field.empty()) {
      EXPECT_TRUE(!Has(v, "field") || Str(v, "field").empty()) << r.body;
    } else {
      EXPECT_EQ(Str(v, "field"), c.field) << r.body;
    }
  }
  // Another content type.
  HttpRequest request;
  request.method = "POST";
  request.target = std::string(kAdmin) + "/licenses";
  request.Set("Authorization", "Bearer " + token_);
  request.Set("Content-Type", "text/plain");
  request.body = R"({"product":"reverb","max":1})";
  EXPECT_API_ERROR(Send(request), 400, 1702, "LICENSE_API_MALFORMED");
}

TEST_F(AdminApi, UnknownLicenseKeysAre1703) {
  Start();
  for (const std::string& key : std::vector<std::string>{RandomUuidV4(), "not-a-key"}) {
    SCOPED_TRACE(key);
    EXPECT_API_ERROR(Api("GET", "/licenses/" + key), 404, 1703, "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Api("PATCH", "/licenses/" + key, R"({"max":1})"), 404, 1703,
                     "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Api("DELETE", "/licenses/" + key), 404, 1703, "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Api("POST", "/licenses/" + key + "/restore"), 404, 1703,
                     "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Api("GET", "/licenses/" + key + "/activations"), 404, 1703,
                     "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Api("DELETE", "/licenses/" + key + "/activations/machine-0001"), 404, 1703,
                     "LICENSE_API_NOT_FOUND");
    EXPECT_API_ERROR(Api("GET", "/licenses/" + key + "/audit"), 404, 1703, "LICENSE_API_NOT_FOUND");
  }
}

TEST_F(AdminApi, UnknownRoutesAre404AndOtherMethods405) {
  Start();
  EXPECT_ROUTE_ERROR(Api("GET", "/nothing"), 404, "NOT_FOUND");
  EXPECT_ROUTE_ERROR(Api("GET", "/licenses/x/y/z/w"), 404, "NOT_FOUND");
  EXPECT_ROUTE_ERROR(Api("GET", "/products/"), 404, "NOT_FOUND");
  const HttpResponse r = Api("PUT", "/licenses");
  EXPECT_ROUTE_ERROR(r, 405, "METHOD_NOT_ALLOWED");
  EXPECT_EQ(r.header("Allow").value_or(""), "GET, POST");
  EXPECT_EQ(Api("POST", "/licenses/" + RandomUuidV4()).header("Allow").value_or(""),
            "GET, PATCH, DELETE");
}

// ---- products ------------------------------------------------------------------------

TEST_F(AdminApi, ProductsAreCreatedAndListed) {
  Start();
  const HttpResponse r = Api("POST", "/products", R"({"slug":"delay","name":"Delay Deluxe"})");
  ASSERT_EQ(r.status, 201) << r.Describe();
  EXPECT_EQ(Str(BodyJson(r), "slug"), "delay");
  EXPECT_EQ(Str(BodyJson(r), "name"), "Delay Deluxe");
  ASSERT_EQ(Api("POST", "/products", R"({"slug":"chorus","name":"Chorus"})").status, 201);
  int pages = 0;
  const auto items = AllPages("/products?limit=2", &pages);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(pages, 2);
  EXPECT_EQ(Str(items[0], "slug"), kProduct);
  EXPECT_EQ(Str(items[1], "slug"), "delay");
  EXPECT_EQ(Str(items[2], "slug"), "chorus");
  // The new product serves the License API at once.
  EXPECT_OK(Activate(CreateLicense(R"({"product":"chorus","max":1})"), "machine-0001"));
}

// ---- machineTtl (docs/protocol.md §10) ------------------------------------------------------

TEST_F(AdminApi, MachineTtlIsShownInTheLicenseAnswersAndStatus) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1,"machineTtl":86400})");
  EXPECT_EQ(Int(BodyJson(Api("GET", "/licenses/" + key)), "machineTtl"), 86400);
  EXPECT_EQ(Int(BodyJson(Status(key)), "machineTtl"), 86400);
  const std::string never = CreateLicense(R"({"product":"reverb","max":1,"machineTtl":null})");
  EXPECT_TRUE(IsNull(BodyJson(Api("GET", "/licenses/" + never)), "machineTtl"));
  ASSERT_EQ(Api("PATCH", "/licenses/" + never, R"({"machineTtl":90})").status, 200);
  EXPECT_EQ(Int(BodyJson(Status(never)), "machineTtl"), 90);
  EXPECT_EQ(Int(admin().Show(never), "machineTtl"), 90);
}

// ---- the OpenAPI document ------------------------------------------------------------

TEST_F(AdminApi, OpenApiDocumentIsServedAsJsonAndDescribesEveryRoute) {
  Start();
  const json::value& doc = OpenApi();
  EXPECT_EQ(Str(doc, "openapi").substr(0, 4), "3.1.");
  const auto& paths = At(doc, "paths").as_object();
  for (const char* p :
       {"/api/v1/license/activate", "/api/v1/license/heartbeat", "/api/v1/license/status",
        "/api/v1/license/deactivate", "/api/v1/license/public-keys", "/api/v1/openapi.json",
        "/api/v1/admin/products", "/api/v1/admin/licenses", "/api/v1/admin/licenses/{key}",
        "/api/v1/admin/licenses/{key}/restore", "/api/v1/admin/licenses/{key}/activations",
        "/api/v1/admin/licenses/{key}/activations/{machineId}",
        "/api/v1/admin/licenses/{key}/audit"}) {
    EXPECT_TRUE(paths.contains(p)) << p;
  }
  EXPECT_EQ(DanglingRefs(doc), std::vector<std::string>{});
  // Every operation documents its errors.
  for (const auto& [path, item] : paths) {
    for (const auto& [method, operation] : item.as_object()) {
      if (method == "parameters") continue;
      EXPECT_TRUE(Has(operation, "responses.default")) << method << " " << path;
    }
  }
  HttpRequest request;
  request.method = "POST";
  request.target = "/api/v1/openapi.json";
  EXPECT_ROUTE_ERROR(Send(request), 405, "METHOD_NOT_ALLOWED");
}

TEST_F(AdminApi, ClientAnswersMatchTheOpenApiDocument) {
  Start();
  const json::value& doc = OpenApi();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1,"machineTtl":600})");
  const std::string p = "/api/v1/license/";
  EXPECT_DOCUMENTED(doc, "post", p + "activate", Activate(key, "machine-0001", "Studio PC"));
  EXPECT_DOCUMENTED(doc, "post", p + "activate", Activate(key, "machine-0002"));  // 409
  EXPECT_DOCUMENTED(doc, "post", p + "heartbeat", Heartbeat(key, "machine-0001"));
  EXPECT_DOCUMENTED(doc, "post", p + "heartbeat", Heartbeat(key, "machine-0009"));  // 1707
  EXPECT_DOCUMENTED(doc, "post", p + "status", Status(key));
  EXPECT_DOCUMENTED(doc, "post", p + "status", Status(key, "machine-0001"));
  EXPECT_DOCUMENTED(doc, "post", p + "status", Status(RandomUuidV4()));  // 1703
  EXPECT_DOCUMENTED(doc, "post", p + "deactivate", Deactivate(key, "machine-0001"));
  EXPECT_DOCUMENTED(doc, "post", p + "deactivate", Call("deactivate", "{"));  // 1702
  HttpResponse unsigned_call = Send(Signed("status", Body(key), kPluginKey));
  EXPECT_DOCUMENTED(doc, "post", p + "status", unsigned_call);
  EXPECT_DOCUMENTED(doc, "get", p + "public-keys", GetPublicKeys());
  ASSERT_EQ(Api("PATCH", "/licenses/" + key, R"({"status":"SUSPENDED"})").status, 200);
  EXPECT_DOCUMENTED(doc, "post", p + "activate", Activate(key, "machine-0003"));  // 1704
  // The schema checker itself refuses what breaks a schema.
  const json::value& error_schema = ResponseSchema(doc, p + "status", "post", 404);
  EXPECT_FALSE(SchemaErrors(doc, error_schema, ParseJson(R"({"ok":true})")).empty());
  EXPECT_FALSE(SchemaErrors(doc, error_schema,
                            ParseJson(R"({"ok":false,"error":"X","message":"m","requestId":"r",)"
                                      R"("code":1234})"))
                   .empty());
}

}  // namespace
}  // namespace bb

// ---- the support console (docs/protocol.md §26) ------------------------------------------

namespace bb {
namespace {

// Polls the refusals of `key` until `n` are listed (they are written after the answer).
std::vector<json::value> AwaitRefusals(const std::function<HttpResponse()>& list, size_t n) {
  std::vector<json::value> items;
  for (int i = 0; i < 100; ++i) {
    const HttpResponse r = list();
    if (r.status != 200) throw std::runtime_error(r.Describe());
    items.clear();
    const json::value page = BodyJson(r);
    for (const auto& item : Arr(page, "items")) items.push_back(item);
    if (items.size() >= n) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return items;
}

TEST_F(AdminApi, ARefusedActivationIsListedWithItsRequestIdButIsNoAuditRecord) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  ASSERT_EQ(Activate(key, "machine-0001", "Studio PC").status, 200);
  const HttpResponse refused = Activate(key, "machine-0002", "Laptop");
  ASSERT_EQ(refused.status, 409) << refused.Describe();
  const auto items = AwaitRefusals([&] { return Api("GET", "/licenses/" + key + "/refusals"); }, 1);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(Int(items[0], "code"), 1705);
  EXPECT_EQ(Str(items[0], "machineId"), "machine-0002");
  EXPECT_EQ(Str(items[0], "machineName"), "Laptop");
  EXPECT_EQ(Str(items[0], "keyId"), std::string(kPluginKey.id));
  EXPECT_EQ(Str(items[0], "requestId"), refused.header("X-Request-Id").value_or("?"));
  EXPECT_EQ(Str(items[0], "ip"), "127.0.0.1");
  for (const auto& record : AdminAudit(key)) {
    EXPECT_EQ(boost::json::serialize(record).find("machine-0002"), std::string::npos);
  }
  // An unknown license is 1703, as for its audit.
  EXPECT_EQ(Api("GET", "/licenses/" + RandomUuidV4() + "/refusals").status, 404);
}

TEST_F(AdminApi, AdminChangesKeepTheirRequestIdAndReasonInTheAudit) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  const HttpResponse r =
      Api("PATCH", "/licenses/" + key, R"({"status":"REVOKED","reason":"chargeback #77"})");
  ASSERT_EQ(r.status, 200) << r.Describe();
  const auto audit = AdminAudit(key);
  ASSERT_FALSE(audit.empty());
  EXPECT_EQ(Str(audit.back(), "action"), "license.status");
  EXPECT_EQ(Str(audit.back(), "reason"), "chargeback #77");
  EXPECT_EQ(Str(audit.back(), "requestId"), r.header("X-Request-Id").value_or("?"));
}

TEST_F(AdminApi, TheTokenRouteSaysWhetherItIsReadOnly) {
  Start();
  const std::string viewer = NewToken("viewer", true);
  const HttpResponse writer = Api("GET", "/token");
  ASSERT_EQ(writer.status, 200) << writer.Describe();
  EXPECT_EQ(Str(BodyJson(writer), "name"), "ci-bot");
  EXPECT_FALSE(Bool(BodyJson(writer), "readOnly"));
  const HttpResponse reader = Api("GET", "/token", std::nullopt, viewer);
  EXPECT_TRUE(Bool(BodyJson(reader), "readOnly"));
}

TEST_F(AdminApi, TheListCountsItsTotalAndRefusesAFilterItDoesNotKnow) {
  Start();
  for (int i = 0; i < 3; ++i) CreateLicense(R"({"product":"reverb","max":1})");
  const HttpResponse page = Api("GET", "/licenses?limit=2");
  ASSERT_EQ(page.status, 200) << page.Describe();
  EXPECT_EQ(Int(BodyJson(page), "total"), 3);
  const json::value listed = BodyJson(page);
  EXPECT_EQ(Arr(listed, "items").size(), 2u);
  const HttpResponse unknown = Api("GET", "/licenses?customer=ada@example.com");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(Str(BodyJson(unknown), "field"), "customer");
}

TEST_F(AdminApi, TheOverviewFiguresAnswerAsDocumented) {
  Start();
  const std::string key = CreateLicense(R"({"product":"reverb","max":1})");
  ASSERT_EQ(Activate(key, "machine-0001").status, 200);
  ASSERT_EQ(Activate(key, "machine-0002").status, 409);
  AwaitRefusals([&] { return Api("GET", "/licenses/" + key + "/refusals"); }, 1);
  const json::value statuses = BodyJson(Api("GET", "/stats/licenses"));
  EXPECT_EQ(Int(At(statuses, "statuses"), "ACTIVE"), 1);
  const json::value activations = BodyJson(Api("GET", "/stats/activations?days=7"));
  ASSERT_EQ(Arr(activations, "days").size(), 7u);
  EXPECT_EQ(Int(Arr(activations, "days").back(), "activations"), 1);
  const json::value refusals = BodyJson(Api("GET", "/stats/refusals"));
  EXPECT_EQ(Int(Arr(refusals, "days").back(), "1705"), 1);
  const json::value trials = BodyJson(Api("GET", "/stats/trials"));
  EXPECT_EQ(Int(trials, "started"), 0);
  const json::value cap = BodyJson(Api("GET", "/stats/nearest-cap"));
  ASSERT_EQ(Arr(cap, "items").size(), 1u);
  EXPECT_EQ(Str(Arr(cap, "items")[0], "licenseKey"), key);
  EXPECT_EQ(Api("GET", "/stats/nothing").status, 404);
}

}  // namespace
}  // namespace bb
