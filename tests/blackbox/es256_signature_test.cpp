// ES256 answers (docs/protocol.md §13.4): the server keeps an ECDSA P-256 key beside its
// Ed25519 one and publishes both; a request whose X-License-Accept-Signature asks for
// es256 gets its answer, success or error, signed with it over the same v2-response
// string. Checked three ways: the test support's own verifier (tests/support,
// OpenSSL written from the contract), the shared verifier the SDK runs
// (src/auth/response_signature.h), and a Python one (python3-cryptography).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "auth/response_signature.h"
#include "support/fixture.h"

namespace bb {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kAccept = "X-License-Accept-Signature";

// A published key as a client pins it.
struct PublishedKeyInfo {
  std::string kid;
  std::string public_key;  // base64
};

class Es256Signatures : public BlackboxTest {
 protected:
  PublishedKeyInfo Es256Key() const {
    auto [kid, key] = PublishedKey("ES256");
    return {kid, key};
  }
  PublishedKeyInfo Ed25519Key() const {
    auto [kid, key] = PublishedKey("Ed25519");
    return {kid, key};
  }

  // A signed request to `endpoint` asking for `accept` (nullopt: no header).
  HttpRequest Asking(std::string_view endpoint, std::string body,
                     std::optional<std::string> accept = "es256",
                     const SignOptions& options = {}) const {
    HttpRequest request = Signed(endpoint, std::move(body), kPluginKey, options);
    if (accept) request.Set(kAccept, *accept);
    return request;
  }

  // `licensed admin response-key generate --alg <alg> --out <dir>/<name> --json`.
  PublishedKeyInfo Generate(const std::string& name, const std::string& alg) const {
    const std::string path = (dir().path() / name).string();
    const CommandResult r =
        admin().Run({"response-key", "generate", "--alg", alg, "--out", path, "--json"});
    if (r.exit_code != 0) throw std::runtime_error("generate failed\n" + r.Describe());
    const json::value v = ParseJson(r.out);
    return {Str(v, "kid"), Str(v, "publicKey")};
  }
  std::string KeyFile(const std::string& name) const { return (dir().path() / name).string(); }
};

// The shared verifier (what the SDK and licensectl run) with `key` pinned: the signed
// time, or nullopt.
std::optional<int64_t> SharedVerifierAccepts(const HttpResponse& r, const PublishedKeyInfo& key,
                                             std::optional<std::string_view> bound) {
  auto pinned = licensed::parse_pinned_response_key(key.public_key);
  if (!pinned || pinned->kid != key.kid) return std::nullopt;
  return licensed::verify_response_signature({*pinned}, r.header(kResponseSignature).value_or(""),
                                             bound, static_cast<unsigned>(r.status), r.body);
}

// Signed in ES256 by `key`, bound to `bound`, for both verifiers. `resp` is evaluated
// once (a request sent twice is a replay).
#define EXPECT_ES256_SIGNED(resp, key, bound)                                         \
  do {                                                                                \
    SCOPED_TRACE("EXPECT_ES256_SIGNED");                                              \
    const HttpResponse& answer_ = (resp);                                             \
    EXPECT_TRUE(::bb::Es256SignedFor(answer_, (key).public_key, (bound), (key).kid)); \
    EXPECT_TRUE(SharedVerifierAccepts(answer_, (key), (bound)).has_value());          \
  } while (0)

TEST_F(Es256Signatures, PublicKeysListsAnEd25519AndAnEs256KeyEachUnderItsDerivedKid) {
  // A store serve creates itself, so that it makes the keys (`licensed init` would have).
  ServerOptions fresh;
  fresh.store_flag = false;
  fresh.args = {"--store", "sqlite:" + (dir().path() / "fresh.db").string(), "--create"};
  Start(fresh);
  const json::value v = BodyJson(GetPublicKeys());
  const auto& keys = Arr(v, "keys");
  ASSERT_EQ(keys.size(), 2u) << json::serialize(v);
  EXPECT_EQ(Str(keys[0], "alg"), "Ed25519");
  EXPECT_EQ(Base64Decode(Str(keys[0], "publicKey")).value_or("").size(), 32u);
  EXPECT_EQ(Str(keys[0], "kid"), KidOf(Str(keys[0], "publicKey"), "ed25519"));
  EXPECT_EQ(Str(keys[1], "alg"), "ES256");
  ASSERT_EQ(keys[1].as_object().size(), 3u);
  const std::string point = Base64Decode(Str(keys[1], "publicKey")).value_or("");
  ASSERT_EQ(point.size(), 65u);
  EXPECT_EQ(point[0], '\x04') << "an uncompressed point";
  EXPECT_EQ(Str(keys[1], "kid"), KidOf(Str(keys[1], "publicKey"), "es256"));
  EXPECT_TRUE(server().LogEventually("made response key " + Str(keys[1], "kid"))) << server().log();
}

TEST_F(Es256Signatures, AnAnswerAskingForEs256IsSignedWithThePublishedEs256Key) {
  Start();
  const PublishedKeyInfo key = Es256Key();
  const std::string license = NewLicense(2);
  for (const char* endpoint : {"activate", "heartbeat", "status", "deactivate"}) {
    SCOPED_TRACE(endpoint);
    const int64_t before = UnixNow();
    const HttpRequest request = Asking(endpoint, Body(license, "machine-0001"));
    const HttpResponse r = Send(request);
    ASSERT_OK(r);
    EXPECT_EQ(r.header(kResponseSignature).value_or("").find(", ed25519="), std::string::npos);
    EXPECT_ES256_SIGNED(r, key, BoundTo(request));
    const auto t = SharedVerifierAccepts(r, key, BoundTo(request));
    ASSERT_TRUE(t.has_value());
    EXPECT_GE(*t, before);
    EXPECT_LE(*t, UnixNow());
    // Bound to the request, its status and its body: any changed, it fails.
    EXPECT_FALSE(Es256SignedFor(r, key.public_key, std::nullopt));
    HttpResponse edited = r;
    edited.body[edited.body.size() / 2] ^= 0x01;
    EXPECT_FALSE(Es256SignedFor(edited, key.public_key, BoundTo(request)));
    EXPECT_FALSE(SharedVerifierAccepts(edited, key, BoundTo(request)));
    HttpResponse restatused = r;
    restatused.status = 404;
    EXPECT_FALSE(SharedVerifierAccepts(restatused, key, BoundTo(request)));
    // Not an Ed25519 signature by the other published key.
    EXPECT_FALSE(SignedFor(r, Ed25519Key().public_key, BoundTo(request)));
  }
}

TEST_F(Es256Signatures, ErrorsAskingForEs256AreSignedInEs256AndBoundAsSection21Says) {
  Start();
  const PublishedKeyInfo key = Es256Key();
  const std::string license = NewLicense(1);
  ASSERT_OK(Activate(license, "machine-0001"));

  // 404 1703, bound to the request.
  const HttpRequest unknown = Asking("status", Body(RandomUuidV4()));
  const HttpResponse not_found = Send(unknown);
  EXPECT_API_ERROR(not_found, 404, 1703, "LICENSE_API_NOT_FOUND");
  EXPECT_ES256_SIGNED(not_found, key, BoundTo(unknown));
  // 401 1701 with a valid signature: bound to it.
  SignOptions stale;
  stale.timestamp = UnixNow() - 3600;
  const HttpRequest old = Asking("status", Body(license), "es256", stale);
  const HttpResponse too_old = Send(old);
  EXPECT_API_ERROR(too_old, 401, 1701, "STALE_TIMESTAMP");
  EXPECT_ES256_SIGNED(too_old, key, BoundTo(old));
  // 401 1700 signature_mismatch: bound to "-".
  SignOptions wrong;
  wrong.secret = "not the secret";
  const HttpResponse mismatch = Send(Asking("status", Body(license), "es256", wrong));
  EXPECT_BAD_SIGNATURE(mismatch, "signature_mismatch");
  EXPECT_ES256_SIGNED(mismatch, key, std::nullopt);
  // 409 1705 and 400 1702, bound to the request.
  const HttpRequest full = Asking("activate", Body(license, "machine-0002"));
  const HttpResponse limit = Send(full);
  EXPECT_API_ERROR(limit, 409, 1705, "LICENSE_API_LIMIT_REACHED");
  EXPECT_ES256_SIGNED(limit, key, BoundTo(full));
  const HttpRequest malformed = Asking("activate", Body(license, "short"));
  const HttpResponse bad_body = Send(malformed);
  EXPECT_API_ERROR(bad_body, 400, 1702, "LICENSE_API_MALFORMED");
  EXPECT_ES256_SIGNED(bad_body, key, BoundTo(malformed));
  // The server's own refusals before the endpoint runs: 405 and 413, bound to "-".
  HttpRequest get = Asking("status", Body(license));
  get.method = "GET";
  const HttpResponse not_allowed = Send(get);
  EXPECT_ROUTE_ERROR(not_allowed, 405, "METHOD_NOT_ALLOWED");
  EXPECT_ES256_SIGNED(not_allowed, key, std::nullopt);
  const HttpResponse large = Send(Asking("activate", PaddedBody(license, 16 * 1024 + 1)));
  EXPECT_API_ERROR(large, 413, 1702, "LICENSE_API_MALFORMED");
  EXPECT_ES256_SIGNED(large, key, std::nullopt);
}

TEST_F(Es256Signatures, RateLimitedAnswersAskingForEs256AreSignedInEs256) {
  Start(WithRateLimits("1/1m", "off"));
  const PublishedKeyInfo key = Es256Key();
  const std::string license = NewLicense(1);
  ASSERT_OK(Status(license));
  const HttpRequest request = Asking("status", Body(license));
  const HttpResponse limited = Send(request);
  EXPECT_RATE_LIMITED(limited, "ip", 60);
  EXPECT_ES256_SIGNED(limited, key, BoundTo(request));
}

TEST_F(Es256Signatures, WithoutTheHeaderOrAskingForEd25519FirstTheAnswerIsEd25519) {
  Start();
  const PublishedKeyInfo ed25519 = Ed25519Key();
  const PublishedKeyInfo es256 = Es256Key();
  const std::string license = NewLicense(1);
  const std::vector<std::pair<std::optional<std::string>, bool>> cases = {
      {std::nullopt, false},
      {"ed25519", false},
      {"ed25519, es256", false},
      {"rs256, ps256", false},
      {"", false},
      {"ES256", true},
      {" rs256 ,Es256", true},
      {"es256, ed25519", true},
  };
  for (const auto& [accept, es] : cases) {
    SCOPED_TRACE(accept.value_or("(no header)"));
    const HttpRequest request = Asking("status", Body(license), accept);
    const HttpResponse r = Send(request);
    ASSERT_OK(r);
    if (es) {
      EXPECT_ES256_SIGNED(r, es256, BoundTo(request));
    } else {
      EXPECT_TRUE(SignedFor(r, ed25519.public_key, BoundTo(request), ed25519.kid));
    }
  }
  // Two header fields are one list.
  HttpRequest twice = Asking("status", Body(license), std::nullopt);
  twice.headers.push_back({std::string(kAccept), "rs256"});
  twice.headers.push_back({std::string(kAccept), "es256"});
  const HttpResponse r = Send(twice);
  EXPECT_ES256_SIGNED(r, es256, BoundTo(twice));
}

TEST_F(Es256Signatures, BothStoredKeysSurviveARestart) {
  Start();
  const std::string before = GetPublicKeys().body;
  const PublishedKeyInfo key = Es256Key();
  RestartServer();
  EXPECT_EQ(GetPublicKeys().body, before);
  EXPECT_EQ(Es256Key().kid, key.kid);
  EXPECT_EQ(server().log().find("made response key"), std::string::npos) << server().log();
  const HttpRequest request = Asking("status", Body(RandomUuidV4()));
  EXPECT_ES256_SIGNED(Send(request), key, BoundTo(request));
}

TEST_F(Es256Signatures, GenerateWritesAPrivateP256KeyFile) {
  const std::string path = KeyFile("es256.pem");
  const CommandResult r =
      admin().Run({"response-key", "generate", "--alg", "es256", "--out", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const json::value v = ParseJson(r.out);
  EXPECT_EQ(Str(v, "alg"), "ES256");
  EXPECT_EQ(Str(v, "kid"), KidOf(Str(v, "publicKey"), "es256"));
  EXPECT_EQ(Base64Decode(Str(v, "publicKey")).value_or("").size(), 65u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(path);
  const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u) << pem;
  EXPECT_EQ(r.out.find("PRIVATE"), std::string::npos) << r.Describe();
  // Without --json: the kid and the public key; without --alg, Ed25519.
  const CommandResult text = admin().Run({"response-key", "generate", "--out", KeyFile("ed.pem")});
  ASSERT_EQ(text.exit_code, 0) << text.Describe();
  EXPECT_NE(text.out.find("kid        ed25519-"), std::string::npos) << text.Describe();
  // An algorithm it does not know is a usage error, and no file is made.
  const CommandResult unknown =
      admin().Run({"response-key", "generate", "--alg", "rs256", "--out", KeyFile("rsa.pem")});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.Describe();
  EXPECT_FALSE(std::filesystem::exists(KeyFile("rsa.pem")));
}

TEST_F(Es256Signatures, AP256KeyFileGivenWithResponseKeySignsAndIsPublished) {
  const PublishedKeyInfo file_key = Generate("es256.pem", "es256");
  ServerOptions options;
  options.args = {"--response-key", KeyFile("es256.pem")};
  Start(options);
  // The file's ES256 key, and the store's Ed25519 key for the algorithm no file gives.
  const json::value v = BodyJson(GetPublicKeys());
  const auto& keys = Arr(v, "keys");
  ASSERT_EQ(keys.size(), 2u) << json::serialize(v);
  EXPECT_EQ(Str(keys[0], "kid"), file_key.kid);
  EXPECT_EQ(Str(keys[0], "publicKey"), file_key.public_key);
  EXPECT_EQ(Str(keys[1], "alg"), "Ed25519");
  const HttpRequest request = Asking("status", Body(RandomUuidV4()));
  EXPECT_ES256_SIGNED(Send(request), file_key, BoundTo(request));
  EXPECT_EQ(server().log().find("made response key es256-"), std::string::npos) << server().log();
}

TEST_F(Es256Signatures, MixedKeyFilesSignPerAlgorithmWithTheFirstOfEachAndAreAllPublished) {
  const PublishedKeyInfo ed = Generate("ed.pem", "ed25519");
  const PublishedKeyInfo es_current = Generate("es-current.pem", "es256");
  const PublishedKeyInfo es_next = Generate("es-next.pem", "es256");
  ServerOptions options;
  options.args = {"--response-key",  KeyFile("es-current.pem"), "--response-key",
                  KeyFile("ed.pem"), "--response-key",          KeyFile("es-next.pem")};
  Start(options);
  const json::value v = BodyJson(GetPublicKeys());
  const auto& keys = Arr(v, "keys");
  ASSERT_EQ(keys.size(), 3u) << json::serialize(v);
  EXPECT_EQ(Str(keys[0], "kid"), es_current.kid);
  EXPECT_EQ(Str(keys[1], "kid"), ed.kid);
  EXPECT_EQ(Str(keys[2], "kid"), es_next.kid);
  EXPECT_EQ(server().log().find("made response key"), std::string::npos) << server().log();
  const HttpRequest es_request = Asking("status", Body(RandomUuidV4()));
  EXPECT_ES256_SIGNED(Send(es_request), es_current, BoundTo(es_request));
  const HttpRequest ed_request = Asking("status", Body(RandomUuidV4()), std::nullopt);
  EXPECT_TRUE(SignedFor(Send(ed_request), ed.public_key, BoundTo(ed_request), ed.kid));
}

TEST_F(Es256Signatures, AnIndependentPythonVerifierAcceptsTheGenuineAnswerAndRefusesAnEditedOne) {
  Start();
  const std::string keys_file = KeyFile("public-keys.json");
  std::ofstream(keys_file) << GetPublicKeys().body;
  const std::string license = NewLicense(1);
  const auto python_verifies = [&](const HttpResponse& r, const std::string& bound) {
    const std::string body_file = KeyFile("body.bin");
    std::ofstream(body_file, std::ios::binary | std::ios::trunc) << r.body;
    return RunCommand({"/usr/bin/python3", LICENSED_ES256_VERIFIER, "--keys", keys_file, "--header",
                       r.header(kResponseSignature).value_or(""), "--request-signature", bound,
                       "--status", std::to_string(r.status), "--body", body_file});
  };
  const HttpRequest request = Asking("activate", Body(license, "machine-0001"));
  const HttpResponse r = Send(request);
  ASSERT_OK(r);
  const CommandResult genuine = python_verifies(r, BoundTo(request));
  EXPECT_EQ(genuine.exit_code, 0) << genuine.Describe();
  EXPECT_NE(genuine.out.find("verified"), std::string::npos) << genuine.Describe();
  HttpResponse edited = r;
  edited.body[edited.body.size() / 2] ^= 0x01;
  const CommandResult refused = python_verifies(edited, BoundTo(request));
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_NE(refused.err.find("does not verify"), std::string::npos) << refused.Describe();
  // An error answer bound to "-" verifies as such, and not as bound to the request.
  SignOptions wrong;
  wrong.secret = "not the secret";
  const HttpRequest mismatched = Asking("status", Body(license), "es256", wrong);
  const HttpResponse refusal = Send(mismatched);
  EXPECT_EQ(python_verifies(refusal, "-").exit_code, 0);
  EXPECT_EQ(python_verifies(refusal, BoundTo(mismatched)).exit_code, 1);
}

}  // namespace
}  // namespace bb
