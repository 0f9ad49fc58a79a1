// The SDK's signing and verification against the shared vector files (the spec's request
// signing vectors and tests/vectors/response-signatures.json), and how an HTTP answer is
// read into an outcome.
#include "license_client.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "auth/base64.h"
#include "auth/crypto_primitives.h"

namespace licensed::client {
namespace {

// Whether a client of `url` pinning `public_key` can be made, and the error when not.
std::pair<bool, std::string> try_create(const std::string& url, const std::string& public_key) {
  ClientConfig c;
  c.url = url;
  c.key_id = "k";
  c.secret = "s";
  c.license_key = "L";
  c.machine_id = "m";
  c.public_key = public_key;
  std::string error;
  const bool made = Client::create(std::move(c), error) != nullptr;
  return {made, error};
}

namespace json = boost::json;

json::object load(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str()).as_object();
}

std::string str(const json::value& v, const char* key) {
  return std::string(v.at(key).as_string());
}

std::string header(const HeaderList& headers, std::string_view name) {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return "<missing>";
}

TEST(SdkSigningVectors, TheSdkSendsExactlyTheHeadersOfEveryVector) {
  const json::object vectors = load(std::string(LICENSED_SPEC_DIR) + "/signing-vectors.json");
  const auto& list = vectors.at("vectors").as_array();
  ASSERT_FALSE(list.empty());
  for (const auto& v : list) {
    SCOPED_TRACE(str(v, "signature"));
    const HeaderList h =
        signed_request_headers(str(v, "keyId"), str(v, "secret"), str(v, "path"),
                               str(v, "timestamp"), str(v, "nonce"), str(v, "body"));
    EXPECT_EQ(header(h, "X-License-Signature"), str(v, "signature"));
    EXPECT_EQ(header(h, "X-License-Key-Id"), str(v, "keyId"));
    EXPECT_EQ(header(h, "X-License-Timestamp"), str(v, "timestamp"));
    EXPECT_EQ(header(h, "X-License-Nonce"), str(v, "nonce"));
    EXPECT_EQ(header(h, "Content-Type"), "application/json");
  }
}

// These vectors are Ed25519: where the system cannot verify it (Windows CNG), the SDK
// pins ES256 keys instead (SdkEs256Vector below, and ClientCreate's tests).
constexpr const char* kNoEd25519 =
    "this system's crypto library has no Ed25519 (Windows CNG): the SDK pins ES256 keys here";

class SdkResponseVectors : public ::testing::Test {
 protected:
  void SetUp() override {
    vectors_ = load(std::string(LICENSED_TEST_VECTORS_DIR) + "/response-signatures.json");
    const auto key = parse_response_public_key(str(vectors_, "publicKey"));
    ASSERT_TRUE(key.has_value());
    key_ = {pin_ed25519(*key)};
  }
  static SignedAnswer answer_of(const json::value& c) {
    SignedAnswer a;
    a.request_signature = c.at("requestSignature").is_null() ? "" : str(c, "requestSignature");
    a.status = static_cast<int>(c.at("status").as_int64());
    a.body = str(c, "body");
    a.signature = str(c, "header");
    return a;
  }
  json::object vectors_;
  std::vector<PinnedResponseKey> key_;
};

TEST_F(SdkResponseVectors, EveryVectorBoundToARequestVerifiesWithItsSignedTime) {
  if (!crypto::ed25519_available()) GTEST_SKIP() << kNoEd25519;
  int checked = 0;
  for (const auto& c : vectors_.at("cases").as_array()) {
    SCOPED_TRACE(str(c, "name"));
    if (c.at("requestSignature").is_null()) {
      // Bound to "-": never an answer to a request the SDK signed.
      EXPECT_FALSE(answer_signed_by(key_, answer_of(c)).has_value());
      continue;
    }
    EXPECT_EQ(answer_signed_by(key_, answer_of(c)), c.at("t").as_int64());
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST_F(SdkResponseVectors, AnyChangeOrAnotherRequestIsRefused) {
  if (!crypto::ed25519_available()) GTEST_SKIP() << kNoEd25519;
  for (const auto& c : vectors_.at("cases").as_array()) {
    if (c.at("requestSignature").is_null()) continue;
    SCOPED_TRACE(str(c, "name"));
    const SignedAnswer good = answer_of(c);
    SignedAnswer a = good;
    // An answer to another request (an old one replayed, or a rewritten one).
    a.request_signature = std::string(64, 'f');
    EXPECT_FALSE(answer_signed_by(key_, a));
    a = good;
    a.body += " ";
    EXPECT_FALSE(answer_signed_by(key_, a));
    a = good;
    a.status = a.status == 200 ? 201 : 200;
    EXPECT_FALSE(answer_signed_by(key_, a));
    a = good;
    a.signature = a.signature->replace(a.signature->find(", t=") + 5, 1, "0");
    EXPECT_FALSE(answer_signed_by(key_, a));
    a = good;
    a.signature.reset();
    EXPECT_FALSE(answer_signed_by(key_, a));
  }
}

TEST_F(SdkResponseVectors, ThePinnedKeyMayBeGivenAsPem) {
  // The vector key's public half as `openssl pkey -pubout` writes it: the SubjectPublicKeyInfo
  // of an Ed25519 key is a fixed 12-byte prefix and the raw key.
  static constexpr uint8_t kSpkiPrefix[] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                            0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
  std::vector<uint8_t> der(std::begin(kSpkiPrefix), std::end(kSpkiPrefix));
  der.insert(der.end(), key_.front().public_key.begin(), key_.front().public_key.end());
  const std::string public_pem = "-----BEGIN PUBLIC KEY-----\n" +
                                 base64_encode(der.data(), der.size()) +
                                 "\n-----END PUBLIC KEY-----\n";
  const auto from_pem = parse_response_public_key(public_pem);
  ASSERT_TRUE(from_pem.has_value()) << public_pem;
  EXPECT_EQ(pin_ed25519(*from_pem).public_key, key_.front().public_key);
  EXPECT_EQ(response_key_id(*from_pem), str(vectors_, "kid"));
}

class SdkEs256Vector : public ::testing::Test {
 protected:
  void SetUp() override {
    const json::object all = load(std::string(LICENSED_SPEC_DIR) + "/response-tree-vectors.json");
    es_ = all.at("es256").as_object();
    answer_.request_signature = "91d1b1334b6fcee0304de7ce4076625c7efe532bb1e441b279835ee07cff83ca";
    answer_.status = 200;
    answer_.body = R"({"ok":true,"n":100})";
    answer_.signature = "kid=" + str(es_, "kid") + ", t=1795548520, es256=" + str(es_, "signature");
    ASSERT_EQ(response_signing_string(answer_.request_signature, 200, 1795548520, answer_.body),
              str(es_, "message"));
  }
  json::object es_;
  SignedAnswer answer_;
};

TEST_F(SdkEs256Vector, APinnedP256KeyVerifiesTheVectorsAnswerAndAsksForEs256) {
  auto pinned = parse_pinned_response_key(str(es_, "publicKey"));
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->algorithm, ResponseAlgorithm::kEs256);
  EXPECT_EQ(pinned->kid.rfind("es256-", 0), 0u);
  pinned->kid = str(es_, "kid");  // the vector's own kid, not a derived one
  const std::vector<PinnedResponseKey> keys = {*pinned};
  EXPECT_EQ(answer_signed_by(keys, answer_), 1795548520);
  SignedAnswer edited = answer_;
  edited.body[5] ^= 0x01;
  EXPECT_FALSE(answer_signed_by(keys, edited));
  EXPECT_EQ(accept_signature_for(keys), "es256");
}

TEST(AcceptSignature, AClientPinningAnEd25519KeyOrNoneSendsNoPreference) {
  EXPECT_EQ(accept_signature_for({}), std::nullopt);
  const auto ed25519 = parse_pinned_response_key("1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=");
  ASSERT_TRUE(ed25519.has_value());
  EXPECT_EQ(accept_signature_for({*ed25519}), std::nullopt);
}

TEST(ClientCreate, APinnedKeyIsEd25519OrP256AndAnythingElseIsAConfigurationError) {
  const auto make = [](const std::string& public_key) {
    return try_create("https://licenses.example.com", public_key);
  };
  const std::string p256 =
      "BKKOGPlAmUPN/B7TLAwYUDL42uLQKeQNXfUZACKmZsg0Wsdx2MhpzN8Iu97z9adLBULLP7jAoZox3nIBL9jthlE=";
  EXPECT_TRUE(make(p256).first);
  // An Ed25519 key, where the system verifies Ed25519; on Windows, a configuration error
  // that says which key to pin.
  const auto [ed25519_made, ed25519_error] = make("1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=");
  EXPECT_EQ(ed25519_made, crypto::ed25519_available()) << ed25519_error;
  if (!crypto::ed25519_available()) {
    EXPECT_NE(ed25519_error.find("pin the server's ES256 key"), std::string::npos) << ed25519_error;
  }
  // A point off the curve (its last byte changed), 64 bytes, 33 bytes.
  std::string off_curve = p256;
  off_curve[off_curve.size() - 3] = off_curve[off_curve.size() - 3] == 'A' ? 'B' : 'A';
  std::vector<std::string> bad_keys = {std::string(86, 'A') + "==",
                                       "AiKOGPlAmUPN/B7TLAwYUDL42uLQKeQNXfUZACKmZsg0"};
#if !defined(_WIN32)
  // Wine's CNG takes a point off the curve (crypto_primitives.h, is_p256_public_key).
  bad_keys.push_back(off_curve);
#endif
  for (const std::string& bad : bad_keys) {
    const auto [made, error] = make(bad);
    EXPECT_FALSE(made) << bad;
    EXPECT_NE(error.find("public_key"), std::string::npos) << error;
  }
}

TEST(ClassifyAnswer, MapsCodesToTheOutcomesOfSection11) {
  EXPECT_EQ(classify_answer(200, R"({"ok":true,"valid":true})", true).outcome, Outcome::kOk);
  EXPECT_EQ(classify_answer(200, R"({"ok":true,"valid":false})", true).outcome,
            Outcome::kNotUsable);
  EXPECT_EQ(classify_answer(200, R"({"ok":true})", false).outcome, Outcome::kOk);
  EXPECT_EQ(classify_answer(200, "not json", false).outcome, Outcome::kUnavailable);
  const struct {
    int http;
    int code;
    Outcome outcome;
  } cases[] = {{404, 1703, Outcome::kNotUsable},   {403, 1704, Outcome::kNotUsable},
               {404, 1707, Outcome::kNotUsable},   {409, 1705, Outcome::kLimitReached},
               {429, 1706, Outcome::kUnavailable}, {503, 1708, Outcome::kUnavailable},
               {500, 1709, Outcome::kUnavailable}, {401, 1700, Outcome::kRefused},
               {401, 1701, Outcome::kRefused},     {400, 1702, Outcome::kRefused},
               {413, 1702, Outcome::kRefused}};
  for (const auto& c : cases) {
    const std::string body = R"({"ok":false,"error":"E","code":)" + std::to_string(c.code) + "}";
    EXPECT_EQ(classify_answer(c.http, body, false).outcome, c.outcome) << c.code;
  }
  EXPECT_EQ(classify_answer(404, R"({"ok":false,"error":"NOT_FOUND"})", false).outcome,
            Outcome::kRefused);
  EXPECT_EQ(classify_answer(418, "<html>", false).outcome, Outcome::kRefused);
}

// Issue item 6: a proxy that could not reach the server says nothing of the request.
TEST(ClassifyAnswer, AProxysBadGatewayOrGatewayTimeoutIsTransientNotARefusal) {
  for (const int http : {502, 504}) {
    const Answer a = classify_answer(http, "<html>bad gateway</html>", false);
    EXPECT_EQ(a.outcome, Outcome::kUnavailable) << http;
    EXPECT_TRUE(is_transient_status(http));
  }
}

TEST(ClassifyAnswer, CarriesTheMembersAPluginShows) {
  const Answer limit = classify_answer(
      409,
      R"({"ok":false,"error":"LICENSE_API_LIMIT_REACHED","code":1705,"message":"m","activations":3,"max":3,"dashboardUrl":"https://x/y"})",
      false);
  EXPECT_EQ(limit.activations, 3);
  EXPECT_EQ(limit.max, 3);
  EXPECT_EQ(limit.dashboard_url, "https://x/y");
  EXPECT_EQ(limit.error, "LICENSE_API_LIMIT_REACHED");
  const Answer inactive = classify_answer(
      403, R"({"ok":false,"error":"LICENSE_API_INACTIVE","code":1704,"status":"REVOKED"})", false);
  EXPECT_EQ(inactive.license_status, "REVOKED");
  EXPECT_EQ(inactive.http_status, 403);
}

// Review item 5: plain http:// only with a pinned key or to this machine.
TEST(ClientCreate, PlainHttpNeedsAPinnedKeyOrALoopbackHost) {
  const auto make = try_create;
  // Any key this system verifies: a P-256 point does everywhere.
  const std::string key =
      "BKKOGPlAmUPN/B7TLAwYUDL42uLQKeQNXfUZACKmZsg0Wsdx2MhpzN8Iu97z9adLBULLP7jAoZox3nIBL9jthlE=";
  for (const char* url : {"http://licenses.example.com", "HTTP://licenses.example.com/x",
                          "http://10.0.0.1:8080", "http://128.0.0.1"}) {
    const auto [made, error] = make(url, "");
    EXPECT_FALSE(made) << url;
    EXPECT_NE(error.find("http://"), std::string::npos) << url << ": " << error;
  }
  for (const char* url : {"http://127.0.0.1:8080", "http://127.10.0.3", "http://localhost:1",
                          "http://[::1]:8080/prefix", "https://licenses.example.com"}) {
    EXPECT_TRUE(make(url, "").first) << url;
  }
  EXPECT_TRUE(make("http://licenses.example.com", key).first);
}

// A status answer stands for this license and machine only when it names them.
TEST(StatusAbout, RequiresThisLicenseThisMachineActivatedAndTheConfiguredProduct) {
  const std::string key = "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c";
  const std::string good =
      R"({"ok":true,"valid":true,"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c",)"
      R"("product":{"slug":"reverb","name":"R"},"status":"ACTIVE",)"
      R"("machine":{"id":"m1","activated":true,"lastSeenAt":"x"}})";
  EXPECT_TRUE(status_is_about(good, key, "m1", ""));
  EXPECT_TRUE(status_is_about(good, key, "m1", "reverb"));
  EXPECT_TRUE(status_is_about(good, "3F2B8C1E-9D4A-4E7B-8C21-5A6F0D9E1B2C", "m1", ""));
  EXPECT_FALSE(status_is_about(good, "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2d", "m1", ""));
  EXPECT_FALSE(status_is_about(good, key, "m2", ""));
  EXPECT_FALSE(status_is_about(good, key, "m1", "other"));
  const std::string unnamed =
      R"({"ok":true,"valid":true,"machine":{"id":"m1","activated":true,"lastSeenAt":"x"}})";
  EXPECT_FALSE(status_is_about(unnamed, key, "m1", ""));
  EXPECT_FALSE(status_is_about(
      R"({"ok":true,"valid":true,"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c","machine":null})",
      key, "m1", ""));
  EXPECT_FALSE(status_is_about(
      R"({"ok":true,"valid":true,"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c",)"
      R"("machine":{"id":"m1","activated":false}})",
      key, "m1", ""));
  EXPECT_FALSE(status_is_about("not json", key, "m1", ""));
}

// docs/protocol.md §20 and §15: the server's validUntil decides; without it the
// local grace from the signed time; never past expiresAt; null or unreadable: never.
TEST(OfflineUntil, IsValidUntilElseTheSignedTimePlusGraceAndNeverPastTheExpiry) {
  const std::chrono::seconds grace(7 * 86400);
  const int64_t t = 1'800'000'000;  // 2027-01-15T08:00:00Z
  EXPECT_EQ(offline_until(R"({"expiresAt":null})", t, grace), t + grace.count());
  EXPECT_EQ(
      offline_until(R"({"validUntil":"2027-02-15T08:00:00.000Z","expiresAt":null})", t, grace),
      t + 31 * 86400);
  EXPECT_EQ(offline_until(R"({"validUntil":"2027-02-15T08:00:00.000Z",)"
                          R"("expiresAt":"2027-01-16T08:00:00.000Z"})",
                          t, grace),
            t + 86400);
  EXPECT_EQ(offline_until(R"({"expiresAt":"2027-01-16T08:00:00.000Z"})", t, grace), t + 86400);
  EXPECT_EQ(offline_until(R"({"validUntil":null})", t, grace), std::nullopt);
  EXPECT_EQ(offline_until(R"({"validUntil":"tomorrow"})", t, grace), std::nullopt);
  EXPECT_EQ(offline_until(R"({"expiresAt":17})", t, grace), std::nullopt);
  EXPECT_EQ(offline_until("not json", t, grace), std::nullopt);
}

TEST(Explain, GivesEveryFailureAMessageAndLeavesASuccessAlone) {
  Answer ok = classify_answer(200, R"({"ok":true,"valid":true})", true);
  explain(ok);
  EXPECT_EQ(ok.message, "");
  Answer inactive = classify_answer(
      200, R"({"ok":true,"valid":false,"status":"EXPIRED","machine":{"activated":true}})", true);
  explain(inactive);
  EXPECT_EQ(inactive.message, "this license has expired: renew it to go on using the plugin");
  Answer busy =
      classify_answer(503, R"({"ok":false,"error":"E","code":1708,"message":"m"})", false);
  explain(busy);
  explain(busy);  // idempotent: a result passed on is explained once more
  EXPECT_EQ(busy.message, "the license server is busy: try again later");
  Answer malformed =
      classify_answer(400, R"({"ok":false,"error":"E","code":1702,"message":"field x"})", false);
  explain(malformed);
  explain(malformed);
  EXPECT_EQ(malformed.message.find("field x"), malformed.message.rfind("field x"));
  EXPECT_NE(malformed.message.find("malformed"), std::string::npos);
}

}  // namespace
}  // namespace licensed::client
