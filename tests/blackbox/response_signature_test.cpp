// Signed responses (docs/protocol.md §13, v2-response): every answer of the
// endpoints, success or error, including the refusals made before a request reaches
// them, carries X-License-Response-Signature over the request's own signature (when it
// was valid for the request as received, "-" otherwise), the status, the signed time t
// and the body, verifiable with the key GET /api/v1/license/public-keys publishes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/fixture.h"
#include "support/raw_connection.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

#define EXPECT_SIGNED(resp, key, bound)                   \
  do {                                                    \
    SCOPED_TRACE("EXPECT_SIGNED");                        \
    EXPECT_TRUE(::bb::SignedFor((resp), (key), (bound))); \
  } while (0)

struct GeneratedKey {
  std::string path;
  std::string kid;
  std::string public_key;
};

class ResponseSignatures : public BlackboxTest {
 protected:
  // `licensed admin response-key generate --out <dir>/<name> --json`.
  GeneratedKey Generate(const std::string& name) const {
    const std::string path = (dir().path() / name).string();
    const CommandResult r = admin().Run({"response-key", "generate", "--out", path, "--json"});
    if (r.exit_code != 0) throw std::runtime_error("generate failed\n" + r.Describe());
    const json::value v = ParseJson(r.out);
    if (Str(v, "alg") != "Ed25519") throw std::runtime_error("alg\n" + r.Describe());
    return {path, Str(v, "kid"), Str(v, "publicKey")};
  }

  // A signed request as Call() sends it, with the request signature an answer to it
  // binds to when that signature is valid.
  std::pair<HttpResponse, std::string> CallBound(std::string_view endpoint, std::string body,
                                                 const SignOptions& options = {}) const {
    const HttpRequest request = Signed(endpoint, std::move(body), kPluginKey, options);
    return {Send(request), BoundTo(request)};
  }

  // The kids of the published Ed25519 keys, in order.
  std::vector<std::string> Ed25519Kids() const {
    std::vector<std::string> kids;
    const json::value v = ParseJson(GetPublicKeys().body);
    for (const auto& key : Arr(v, "keys")) {
      if (Str(key, "alg") == "Ed25519") kids.push_back(Str(key, "kid"));
    }
    return kids;
  }

  // `licensed serve` that must refuse to start; its result.
  CommandResult ServeRefused(const std::vector<std::string>& args, const EnvVars& env = {}) const {
    std::vector<std::string> argv = {
        LicensedBinary(), "serve", "--listen",      "127.0.0.1:0",
        "--store",        store(), "--signing-key", kPluginKey.id + "=" + kPluginKey.secret};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, env, 20s);
  }
};

TEST_F(ResponseSignatures, EverySuccessIsSignedOverItsRequestSignatureStatusTimeAndBody) {
  Start();
  const std::string key = SigningPublicKey();
  const std::string license = NewLicense(2);
  for (const char* endpoint : {"activate", "heartbeat", "status", "deactivate"}) {
    SCOPED_TRACE(endpoint);
    const int64_t before = UnixNow();
    const auto [r, bound] = CallBound(endpoint, Body(license, "machine-0001"));
    ASSERT_OK(r);
    EXPECT_SIGNED(r, key, bound);
    EXPECT_TRUE(SignedFor(r, key, bound, KidOf(key)));
    // t is the server's time when it signed.
    const std::string header(r.header(kResponseSignature).value_or(""));
    const auto t_at = header.find(", t=");
    ASSERT_NE(t_at, std::string::npos) << header;
    const int64_t t = std::stoll(header.substr(t_at + 4));
    EXPECT_GE(t, before);
    EXPECT_LE(t, UnixNow());
    // The signature binds the body, the time and the status: any changed, it fails.
    HttpResponse edited = r;
    edited.body[edited.body.size() / 2] ^= 0x01;
    EXPECT_FALSE(SignedFor(edited, key, bound));
    HttpResponse retimed = r;
    for (auto& h : retimed.headers) {
      if (h.name == kResponseSignature) h.value.replace(t_at + 4, 10, std::to_string(t + 1));
    }
    EXPECT_FALSE(SignedFor(retimed, key, bound));
    HttpResponse restatused = r;
    restatused.status = 404;
    EXPECT_FALSE(SignedFor(restatused, key, bound));
    // The Date header is for clock correction only: a proxy may replace it.
    HttpResponse redated = r;
    for (auto& h : redated.headers) {
      if (h.name == "Date" || h.name == "date") h.value = "Mon, 01 Jan 2035 00:00:00 GMT";
    }
    EXPECT_TRUE(SignedFor(redated, key, bound));
  }
}

TEST_F(ResponseSignatures, AnswersNameTheLicenseAndMachineTheyAnswer) {
  Start();
  const std::string license = NewLicense(2);
  for (const char* endpoint : {"activate", "heartbeat", "status"}) {
    SCOPED_TRACE(endpoint);
    const auto [r, bound] = CallBound(endpoint, Body(license, "machine-0001"));
    ASSERT_OK(r);
    const json::value v = BodyJson(r);
    EXPECT_EQ(Str(v, "licenseKey"), license) << r.Describe();
    const bool has_machine = std::string_view(endpoint) != "heartbeat";
    EXPECT_EQ(has_machine ? Str(v.at("machine"), "id") : Str(v, "machineId"), "machine-0001")
        << r.Describe();
  }
  // An uppercase key is answered with the stored, lowercase one.
  std::string upper = license;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto [r, bound] = CallBound("status", Body(upper));
  ASSERT_OK(r);
  EXPECT_EQ(Str(BodyJson(r), "licenseKey"), license);
}

TEST_F(ResponseSignatures, EveryErrorKindIsSignedAndBoundAsSection21Says) {
  Start();
  const std::string key = SigningPublicKey();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));

  // 400 1702: body not matching the schema; the signature was valid: bound to it.
  auto [malformed, b1] = CallBound("activate", Body(license, "short"));
  EXPECT_API_ERROR(malformed, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_SIGNED(malformed, key, b1);
  // 413 1702: step 2, refused on its declared length before it is read: bound to "-".
  auto [large, b2] = CallBound("activate", PaddedBody(license, 16 * 1024 + 1));
  EXPECT_API_ERROR(large, 413, 1702, "LICENSE_API_MALFORMED");
  EXPECT_SIGNED(large, key, std::nullopt);
  EXPECT_FALSE(SignedFor(large, key, b2));
  // 401 1700 signature_mismatch: bound to "-".
  SignOptions wrong;
  wrong.secret = "not the secret";
  auto [mismatch, b3] = CallBound("status", Body(license), wrong);
  EXPECT_BAD_SIGNATURE(mismatch, "signature_mismatch");
  EXPECT_SIGNED(mismatch, key, std::nullopt);
  EXPECT_FALSE(SignedFor(mismatch, key, b3));
  // 401 1701 with a valid signature: bound to it, though the timestamp was refused.
  SignOptions stale;
  stale.timestamp = UnixNow() - 3600;
  auto [old, b4] = CallBound("status", Body(license), stale);
  EXPECT_API_ERROR(old, 401, 1701, "STALE_TIMESTAMP");
  EXPECT_SIGNED(old, key, b4);
  // ... and with a wrong one, bound to "-".
  SignOptions stale_and_wrong = stale;
  stale_and_wrong.secret = "not the secret";
  auto [old_wrong, b4w] = CallBound("status", Body(license), stale_and_wrong);
  EXPECT_API_ERROR(old_wrong, 401, 1701, "STALE_TIMESTAMP");
  EXPECT_SIGNED(old_wrong, key, std::nullopt);
  // 401 1700 nonce_reused: bound to "-", so a replayed request cannot fetch a bound
  // refusal.
  const HttpRequest once = Signed("status", Body(license));
  ASSERT_OK(Send(once));
  const HttpResponse replay = Send(once);
  EXPECT_BAD_SIGNATURE(replay, "nonce_reused");
  EXPECT_SIGNED(replay, key, std::nullopt);
  EXPECT_FALSE(SignedFor(replay, key, BoundTo(once)));
  // 404 1703, 404 1707, 409 1705, 403 1704: bound to the request.
  auto [unknown, b5] = CallBound("status", Body(RandomUuidV4()));
  EXPECT_API_ERROR(unknown, 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_SIGNED(unknown, key, b5);
  auto [not_activated, b6] = CallBound("heartbeat", Body(license, "machine-0002"));
  EXPECT_API_ERROR(not_activated, 404, 1707, "LICENSE_API_MACHINE_NOT_ACTIVATED");
  EXPECT_SIGNED(not_activated, key, b6);
  auto [full, b7] = CallBound("activate", Body(license, "machine-0002"));
  EXPECT_API_ERROR(full, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  EXPECT_SIGNED(full, key, b7);
  admin().SetStatus(license, "SUSPENDED");
  auto [inactive, b8] = CallBound("activate", Body(license, "machine-0001"));
  EXPECT_API_ERROR(inactive, 403, 1704, "LICENSE_API_INACTIVE");
  EXPECT_SIGNED(inactive, key, b8);
}

TEST_F(ResponseSignatures, AGarbledCopyOfARequestGetsAnAnswerBoundToDashNotToTheRequest) {
  // Someone on the path sends the plugin's signature headers with another body: the
  // refusal must not verify as an answer to the plugin's own request, or it could cut
  // its offline grace short.
  Start();
  const std::string key = SigningPublicKey();
  const std::string license = NewLicense(1);
  HttpRequest genuine = Signed("status", Body(license, "machine-0001"));
  HttpRequest garbled = genuine;
  garbled.body = Body(RandomUuidV4(), "machine-0001");
  const HttpResponse refused = Send(garbled);
  EXPECT_BAD_SIGNATURE(refused, "signature_mismatch");
  EXPECT_SIGNED(refused, key, std::nullopt);
  EXPECT_FALSE(SignedFor(refused, key, BoundTo(genuine)));
  // The genuine request still goes through afterwards: its nonce was not consumed.
  const HttpResponse answered = Send(genuine);
  ASSERT_OK(answered);
  EXPECT_SIGNED(answered, key, BoundTo(genuine));
}

TEST_F(ResponseSignatures, RefusalsBeforeTheEndpointRunsAreBoundToDash) {
  Start();
  const std::string key = SigningPublicKey();
  const std::string nonce = RandomNonce();
  // 405: another method on an endpoint.
  for (const char* endpoint : {"activate", "heartbeat", "status", "deactivate"}) {
    HttpRequest get = Signed(endpoint, Body(RandomUuidV4()));
    get.method = "GET";
    const HttpResponse r = Send(get);
    EXPECT_ROUTE_ERROR(r, 405, "METHOD_NOT_ALLOWED");
    EXPECT_EQ(r.header("Allow"), "POST") << r.Describe();
    EXPECT_SIGNED(r, key, std::nullopt);
  }
  // 401 1700 missing_header: bound to "-".
  HttpRequest unsigned_req;
  unsigned_req.target = Endpoint("status");
  unsigned_req.body = Body(RandomUuidV4());
  unsigned_req.Set("Content-Type", "application/json");
  const HttpResponse missing = Send(unsigned_req);
  EXPECT_BAD_SIGNATURE(missing, "missing_header");
  EXPECT_SIGNED(missing, key, std::nullopt);
  // 401 1700 unknown_key: bound to "-".
  SigningKey stranger{"not-a-key-id", "whatever"};
  const HttpResponse unknown = Send(Signed("status", Body(RandomUuidV4()), stranger));
  EXPECT_BAD_SIGNATURE(unknown, "unknown_key");
  EXPECT_SIGNED(unknown, key, std::nullopt);
  // 413 on a chunked body that outgrows the limit while it is read.
  RawConnection c(port());
  ASSERT_TRUE(c.connected());
  const std::string chunk(17 * 1024, 'x');
  std::ostringstream bytes;
  bytes << "POST " << Endpoint("activate") << " HTTP/1.1\r\nHost: x\r\nX-License-Nonce: " << nonce
        << "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        << std::hex << chunk.size() << "\r\n"
        << chunk << "\r\n0\r\n\r\n";
  ASSERT_TRUE(c.Write(bytes.str()));
  const HttpResponse chunked = c.Read();
  EXPECT_API_ERROR(chunked, 413, 1702, "LICENSE_API_MALFORMED");
  EXPECT_SIGNED(chunked, key, std::nullopt);
  // 431: the header could not be parsed: bound to "-".
  const HttpResponse huge =
      SendRaw("POST " + Endpoint("status") +
              " HTTP/1.1\r\nHost: x\r\nX-Filler: " + std::string(9 * 1024, 'a') + "\r\n\r\n");
  EXPECT_EQ(huge.status, 431) << huge.Describe();
  EXPECT_SIGNED(huge, key, std::nullopt);
  // A prefix added by a proxy still names an endpoint, and the answer is bound.
  HttpRequest prefixed = Signed("status", Body(RandomUuidV4()));
  prefixed.target = "/licensing" + prefixed.target;
  const HttpResponse behind_proxy = Send(prefixed);
  EXPECT_API_ERROR(behind_proxy, 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_SIGNED(behind_proxy, key, BoundTo(prefixed));
}

TEST_F(ResponseSignatures, RateLimitedAnswersAreBoundToAValidRequestSignature) {
  Start(WithRateLimits("1/1m", "off"));
  const std::string key = SigningPublicKey();
  const std::string license = NewLicense(1);
  ASSERT_OK(Status(license));
  // Step 3 answers before the signature is checked in order, but the binding checks it.
  auto [limited, bound] = CallBound("status", Body(license));
  EXPECT_RATE_LIMITED(limited, "ip", 60);
  EXPECT_SIGNED(limited, key, bound);
  SignOptions wrong;
  wrong.secret = "not the secret";
  auto [limited_wrong, bound_wrong] = CallBound("status", Body(license), wrong);
  EXPECT_RATE_LIMITED(limited_wrong, "ip", 60);
  EXPECT_SIGNED(limited_wrong, key, std::nullopt);
  EXPECT_FALSE(SignedFor(limited_wrong, key, bound_wrong));

  Stop();
  Start(WithRateLimits("off", "1/1m"));
  const std::string key_after = SigningPublicKey();
  EXPECT_EQ(key_after, key) << "the store's key changed across a restart";
  ASSERT_OK(Status(license));
  auto [key_limited, bound2] = CallBound("status", Body(license));
  EXPECT_RATE_LIMITED(key_limited, "key", 60);
  EXPECT_SIGNED(key_limited, key, bound2);
}

TEST_F(ResponseSignatures, AnAnswerDoesNotVerifyForAnotherRequest) {
  Start();
  const std::string key = SigningPublicKey();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));
  auto [valid, bound] = CallBound("status", Body(license, "machine-0001"));
  ASSERT_OK(valid);
  EXPECT_SIGNED(valid, key, bound);
  // An attacker who kept this "valid" answer cannot serve it to the next question, nor
  // pass it off as bound to "-".
  const HttpRequest next = Signed("status", Body(license, "machine-0001"));
  EXPECT_FALSE(SignedFor(valid, key, BoundTo(next)));
  EXPECT_FALSE(SignedFor(valid, key, std::nullopt));
}

TEST_F(ResponseSignatures, PublicKeysPublishesTheSigningKeyAndIsCacheable) {
  Start();
  const HttpResponse r = GetPublicKeys();
  ASSERT_EQ(r.status, 200) << r.Describe();
  ExpectCommonHeaders(r);
  EXPECT_EQ(r.header("Cache-Control"), "public, max-age=300");
  const json::value v = BodyJson(r);
  ASSERT_EQ(v.as_object().size(), 1u) << r.Describe();
  const auto& keys = Arr(v, "keys");
  // The Ed25519 key, then the ES256 one (tests/blackbox/es256_signature_test.cpp).
  ASSERT_EQ(keys.size(), 2u) << r.Describe();
  ASSERT_EQ(keys[0].as_object().size(), 3u) << r.Describe();
  EXPECT_EQ(Str(keys[0], "alg"), "Ed25519");
  EXPECT_EQ(Str(keys[1], "alg"), "ES256");
  const std::string public_key = Str(keys[0], "publicKey");
  ASSERT_EQ(Base64Decode(public_key).value_or("").size(), 32u) << public_key;
  EXPECT_EQ(Str(keys[0], "kid"), KidOf(public_key));
  // The answers name that kid.
  const auto [status, bound] = CallBound("status", Body(RandomUuidV4()));
  EXPECT_TRUE(SignedFor(status, public_key, bound, KidOf(public_key)));
  // Unsigned requests are fine; other methods are 405 with Allow: GET.
  for (const char* method : {"POST", "PUT", "DELETE"}) {
    HttpRequest other;
    other.method = method;
    other.target = Endpoint("public-keys");
    const HttpResponse refused = Send(other);
    EXPECT_ROUTE_ERROR(refused, 405, "METHOD_NOT_ALLOWED");
    EXPECT_EQ(refused.header("Allow"), "GET") << refused.Describe();
  }
  // Behind a proxy prefix too.
  HttpRequest prefixed;
  prefixed.method = "GET";
  prefixed.target = "/licensing" + Endpoint("public-keys");
  EXPECT_EQ(Send(prefixed).body, r.body);
}

TEST_F(ResponseSignatures, TheStoredDefaultKeySurvivesARestart) {
  // A store serve creates itself (`licensed init` would have made the key already).
  ServerOptions fresh;
  fresh.store_flag = false;
  fresh.args = {"--store", "sqlite:" + (dir().path() / "fresh.db").string(), "--create"};
  Start(fresh);
  const std::string before = GetPublicKeys().body;
  const std::string key = SigningPublicKey();
  EXPECT_NE(server().log().find("made response key " + KidOf(key)), std::string::npos)
      << server().log();
  RestartServer();
  EXPECT_EQ(GetPublicKeys().body, before);
  EXPECT_EQ(server().log().find("made response key"), std::string::npos) << server().log();
  const auto [r, bound] = CallBound("status", Body(RandomUuidV4()));
  EXPECT_SIGNED(r, key, bound);
}

TEST_F(ResponseSignatures, RotationPublishesEveryKeyInOrderAndTheFirstSigns) {
  const GeneratedKey current = Generate("current.pem");
  const GeneratedKey next = Generate("next.pem");
  EXPECT_EQ(current.kid, KidOf(current.public_key));
  EXPECT_NE(current.kid, next.kid);
  ServerOptions options;
  options.args = {"--response-key", current.path, "--response-key", next.path};
  Start(options);
  const json::value v = ParseJson(GetPublicKeys().body);
  const auto& keys = Arr(v, "keys");
  // The files, then the store's ES256 key: no file gives one.
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(Str(keys[0], "kid"), current.kid);
  EXPECT_EQ(Str(keys[0], "publicKey"), current.public_key);
  EXPECT_EQ(Str(keys[1], "kid"), next.kid);
  EXPECT_EQ(Str(keys[1], "publicKey"), next.public_key);
  EXPECT_EQ(Str(keys[2], "alg"), "ES256");
  const auto [r, bound] = CallBound("status", Body(RandomUuidV4()));
  EXPECT_TRUE(SignedFor(r, current.public_key, bound, current.kid));
  EXPECT_FALSE(SignedFor(r, next.public_key, bound));

  // The next step of a rotation: the new key first.
  Stop();
  options.args = {"--response-key", next.path, "--response-key", current.path};
  Start(options);
  const auto [r2, bound2] = CallBound("status", Body(RandomUuidV4()));
  EXPECT_TRUE(SignedFor(r2, next.public_key, bound2, next.kid));
}

TEST_F(ResponseSignatures, FlagListBeatsEnvironmentListBeatsConfigFile) {
  const GeneratedKey a = Generate("a.pem");
  const GeneratedKey b = Generate("b.pem");
  const GeneratedKey c = Generate("c.pem");
  const std::string config = (dir().path() / "licensed.toml").string();
  std::ofstream(config) << "response_keys = [\"" << c.path << "\"]\n";

  ServerOptions from_file;
  from_file.args = {"--config", config};
  Start(from_file);
  EXPECT_EQ(SigningPublicKey(), c.public_key);

  Stop();
  ServerOptions from_env = from_file;
  from_env.env = {{"LICENSED_RESPONSE_KEYS", b.path + "," + a.path}};
  Start(from_env);
  EXPECT_EQ(Ed25519Kids(), (std::vector<std::string>{b.kid, a.kid}));

  Stop();
  ServerOptions from_flag = from_env;
  from_flag.args.insert(from_flag.args.end(), {"--response-key", a.path});
  Start(from_flag);
  EXPECT_EQ(Ed25519Kids(), (std::vector<std::string>{a.kid}));
}

TEST_F(ResponseSignatures, GenerateWritesAPrivateFileAndNeverOverwrites) {
  const GeneratedKey key = Generate("key.pem");
  struct stat st {};
  ASSERT_EQ(::stat(key.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(key.path);
  const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u) << pem;

  const CommandResult again = admin().Run({"response-key", "generate", "--out", key.path});
  EXPECT_EQ(again.exit_code, 1) << again.Describe();
  EXPECT_NE(again.err.find(key.path), std::string::npos) << again.Describe();
  std::ifstream in2(key.path);
  const std::string after((std::istreambuf_iterator<char>(in2)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, pem);

  // Without --json: the kid and the public key, one per line.
  const std::string text_path = (dir().path() / "text.pem").string();
  const CommandResult text = admin().Run({"response-key", "generate", "--out", text_path});
  ASSERT_EQ(text.exit_code, 0) << text.Describe();
  EXPECT_NE(text.out.find("kid        ed25519-"), std::string::npos) << text.Describe();
  EXPECT_NE(text.out.find("publicKey  "), std::string::npos) << text.Describe();
  EXPECT_EQ(text.out.find("PRIVATE"), std::string::npos) << text.Describe();
}

TEST_F(ResponseSignatures, AnUnusableKeyFileIsAConfigErrorThatShowsNoKeyMaterial) {
  const auto write = [&](const std::string& name, const std::string& text) {
    std::string path = (dir().path() / name).string();
    std::ofstream(path) << text;
    return path;
  };
  const std::string material = "MC4CAQAwBQYDK2VwBCIEIAAAAAAAAAAAAAAAAAAAAAAA";
  // An X25519 key: a valid PKCS#8 key, but not for signatures.
  const std::string x25519 =
      write("x25519.pem",
            "-----BEGIN PRIVATE "
            "KEY-----\nMC4CAQAwBQYDK2VuBCIEINDTSJNAw/JwvCDwWPcFwFO6yZvGWc4uUyO3ECq9tcF3\n"
            "-----END PRIVATE KEY-----\n");
  const std::vector<std::string> bad = {
      write("garbage.pem",
            "-----BEGIN PRIVATE KEY-----\n" + material + "\n-----END PRIVATE KEY-----\n"),
      x25519,
      (dir().path() / "missing.pem").string(),
  };
  for (const auto& path : bad) {
    const CommandResult r = ServeRefused({"--response-key", path});
    EXPECT_EQ(r.exit_code, 2) << r.Describe();
    EXPECT_NE(r.err.find(path), std::string::npos) << r.Describe();
    EXPECT_EQ(r.err.find(material), std::string::npos) << r.Describe();
    EXPECT_EQ(r.err.find("MC4CAQAw"), std::string::npos) << r.Describe();
    EXPECT_EQ(r.out.find("MC4CAQAw"), std::string::npos) << r.Describe();
  }
  const CommandResult from_env =
      ServeRefused({}, {{"LICENSED_RESPONSE_KEYS", (dir().path() / "missing.pem").string()}});
  EXPECT_EQ(from_env.exit_code, 2) << from_env.Describe();
}

}  // namespace
}  // namespace bb
