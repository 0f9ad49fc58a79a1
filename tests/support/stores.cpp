#include "support/stores.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "support/openapi_check.h"
#include "support/response_verifier.h"
#include "support/signer.h"
#include "support/spec_files.h"

namespace bb {
namespace {

std::string HmacSha256Bytes(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len) == nullptr) {
    throw std::runtime_error("HMAC failed");
  }
  return {reinterpret_cast<const char*>(md), len};
}

}  // namespace

std::string StripeSignature(std::string_view secret, std::int64_t t, std::string_view body) {
  const std::string ts = std::to_string(t);
  return "t=" + ts + ",v1=" + HmacSha256Hex(secret, ts + "." + std::string(body));
}

std::string PaddleSignature(std::string_view secret, std::int64_t ts, std::string_view body) {
  const std::string t = std::to_string(ts);
  return "ts=" + t + ";h1=" + HmacSha256Hex(secret, t + ":" + std::string(body));
}

std::string FastSpringSignature(std::string_view secret, std::string_view body) {
  return Base64Encode(HmacSha256Bytes(secret, body));
}

std::string Md5Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_md5(), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest(md5) failed");
  }
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kDigits[md[i] >> 4]);
    out.push_back(kDigits[md[i] & 0x0f]);
  }
  return out;
}

std::filesystem::path FixturePath(std::string_view relative) {
  // The source directory as CMake gives it: __FILE__ may be relative under ccache.
  return std::filesystem::path(LICENSED_SOURCE_DIR) / "tests" / "fixtures" / relative;
}

std::string Fixture(std::string_view relative) {
  return ReadFile(FixturePath(relative));
}

std::string ReplaceAll(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::string StripePaidSession(std::string_view event_id, std::string_view session,
                              std::string_view payment_intent, bool livemode, int per_unit) {
  return R"({"id":")" + std::string(event_id) +
         R"(","object":"event","api_version":"2024-06-20","created":1780000000,"livemode":)" +
         (livemode ? "true" : "false") +
         R"(,"type":"checkout.session.completed","data":{"object":{"id":")" + std::string(session) +
         R"(","object":"checkout.session","mode":"payment","payment_status":"paid",)"
         R"("payment_intent":")" +
         std::string(payment_intent) +
         R"(","customer_details":{"email":"ada@example.com",)"
         R"("name":"Ada Lovelace"},"line_items":{"object":"list","has_more":false,"data":[)"
         R"({"id":"li_1","price":{"id":"price_single"},"quantity":)" +
         std::to_string(per_unit) +
         R"(},{"id":"li_2","price":{"id":"price_site"},"quantity":1}]}}}})";
}

HttpRequest StripeDelivery(const std::string& path, std::string body,
                           std::optional<std::string> signature) {
  HttpRequest request;
  request.target = path;
  request.Set("Content-Type", "application/json; charset=utf-8");
  if (signature) request.Set("Stripe-Signature", std::move(*signature));
  request.body = std::move(body);
  return request;
}

void ExpectEmptyAnswer(const HttpResponse& r, int status) {
  EXPECT_EQ(r.status, status) << r.Describe();
  EXPECT_TRUE(r.body.empty()) << r.Describe();
  EXPECT_FALSE(r.header("X-License-Response-Signature")) << "store answers are not signed";
}

void StoresTest::SetUp() {
  BlackboxTest::SetUp();
  const CommandResult r = admin().Run({"token", "create", "--name", "stores-bot", "--json"});
  if (r.exit_code != 0) throw std::runtime_error(r.Describe());
  token_ = Str(ParseJson(r.out), "token");
}

void StoresTest::StartWithPlan(const ServerOptions& options) {
  Start(options);
  const HttpResponse plan =
      Api("POST", "/products/reverb/plans", R"({"code":"pro","name":"Reverb Pro","max":2})");
  ASSERT_EQ(plan.status, 201) << plan.Describe();
}

const json::value& StoresTest::OpenApi() {
  if (openapi_.is_null()) {
    HttpRequest request;
    request.method = "GET";
    request.target = "/api/v1/openapi.json";
    openapi_ = ParseJson(Send(request).body);
  }
  return openapi_;
}

HttpResponse StoresTest::Api(const std::string& method, const std::string& target,
                             std::optional<std::string> body) {
  HttpRequest request;
  request.method = method;
  request.target = "/api/v1/admin" + target;
  request.Set("Authorization", "Bearer " + token_);
  if (body) {
    request.Set("Content-Type", "application/json");
    request.body = std::move(*body);
  }
  return Send(request);
}

std::pair<std::int64_t, std::string> StoresTest::CreateStoreFrom(const std::string& body) {
  const HttpResponse r = Api("POST", "/stores", body);
  EXPECT_EQ(r.status, 201) << r.Describe();
  EXPECT_DOCUMENTED(OpenApi(), "post", "/api/v1/admin/stores", r);
  if (r.status != 201) return {0, ""};
  const json::value made = BodyJson(r);
  return {Int(made, "id"), Str(made, "inboundUrl")};
}

std::vector<json::value> StoresTest::StoreLicenses() {
  std::vector<json::value> out;
  std::string cursor;
  for (int page = 0; page < 100; ++page) {
    const HttpResponse r = Api(
        "GET", "/licenses?product=reverb&limit=500" + (cursor.empty() ? "" : "&cursor=" + cursor));
    EXPECT_EQ(r.status, 200) << r.Describe();
    if (r.status != 200) break;
    const json::value body = BodyJson(r);
    for (const auto& l : Arr(body, "items")) {
      if (Has(l, "source")) out.push_back(l);
    }
    if (IsNull(body, "nextCursor")) break;
    cursor = Str(body, "nextCursor");
  }
  return out;
}

std::vector<json::value> StoresTest::Rejections(std::int64_t id, std::size_t at_least) {
  std::vector<json::value> out;
  for (int i = 0; i < 50; ++i) {
    const HttpResponse r = Api("GET", "/stores/" + std::to_string(id) + "/rejections");
    EXPECT_EQ(r.status, 200) << r.Describe();
    EXPECT_DOCUMENTED(OpenApi(), "get", "/api/v1/admin/stores/{id}/rejections", r);
    const json::value body = BodyJson(r);
    const auto& items = Arr(body, "items");
    out.assign(items.begin(), items.end());
    if (out.size() >= at_least) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return out;
}

std::vector<json::value> StoresTest::LicenseAudit(const std::string& key, std::string_view action) {
  const HttpResponse r = Api("GET", "/licenses/" + key + "/audit?limit=500");
  EXPECT_EQ(r.status, 200) << r.Describe();
  std::vector<json::value> out;
  if (r.status != 200) return out;
  const json::value body = BodyJson(r);
  for (const auto& rec : Arr(body, "items")) {
    if (Str(rec, "action") == action) out.push_back(rec);
  }
  return out;
}

json::value StoresTest::License(const std::string& key) {
  const HttpResponse r = Api("GET", "/licenses/" + key);
  EXPECT_EQ(r.status, 200) << r.Describe();
  return BodyJson(r);
}

}  // namespace bb
