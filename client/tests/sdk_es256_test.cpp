// The SDK and licensectl pinning the server's ES256 (P-256) key (docs/protocol.md §13.4),
// against the real server: they ask for ES256 answers (X-License-Accept-Signature: es256)
// and verify them, refusals and the cached answer included. A client pinning only the
// P-256 key treats an Ed25519 answer as signed by another key, so every call that
// succeeds here was answered in ES256.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <fstream>

#include "auth/base64.h"
#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

using bb::CommandResult;

// A PEM "PUBLIC KEY" of `key`.
std::string PublicPem(EVP_PKEY* key) {
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(out, key);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(out);
  return pem;
}

// The published P-256 point (base64) as a PEM "PUBLIC KEY", as `openssl pkey -pubout`
// writes it.
std::string P256Pem(const std::string& point_base64) {
  auto point = base64_decode(point_base64);
  char group[] = "prime256v1";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point->data(), point->size()),
      OSSL_PARAM_construct_end()};
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  EVP_PKEY* key = nullptr;
  EVP_PKEY_fromdata_init(ctx);
  EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params);
  EVP_PKEY_CTX_free(ctx);
  std::string pem = key != nullptr ? PublicPem(key) : "";
  EVP_PKEY_free(key);
  return pem;
}

// A freshly made key's public PEM: P-256 (another server's key) or P-384 (no key the
// SDK takes).
std::string NewEcPublicPem(const char* curve) {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve);
  std::string pem = PublicPem(key);
  EVP_PKEY_free(key);
  return pem;
}

class SdkEs256 : public SdkTest {
 protected:
  // A client pinning the server's ES256 key, on a manual clock, with a fake waiter.
  std::shared_ptr<Client> PinnedEs256(const std::string& license, const std::string& machine) {
    ClientConfig config = Config(license, url_);
    config.machine_id = machine;
    config.public_key = es256_key_;
    config.clock = clock_;
    config.waiter = std::make_shared<FakeWaiter>();
    return Make(config);
  }
  void StartServer() {
    Start();
    url_ = Url();
    es256_key_ = PublishedKey("ES256").second;
    // Set once the server serves: a request dated before its start would get a 1701 and
    // be sent again.
    clock_ = std::make_shared<ManualClock>(SystemClock().now_ms());
  }

  std::shared_ptr<ManualClock> clock_;
  std::string url_;
  std::string es256_key_;
};

TEST_F(SdkEs256, AClientPinningTheEs256KeyActivatesAndChecksStatusWithVerifiedAnswers) {
  StartServer();
  const std::string license = NewLicense(2);
  auto client = PinnedEs256(license, "es256-machine-01");
  const Answer activated = client->activate();
  ASSERT_TRUE(activated.ok()) << Describe(activated);
  EXPECT_EQ(activated.source, Source::kNetwork);
  EXPECT_EQ(activated.activations, 1);
  EXPECT_EQ(activated.attempts, 1) << "verified at once, not retried as unsigned";
  const Answer status = client->status();
  ASSERT_TRUE(status.ok()) << Describe(status);
  EXPECT_TRUE(status.valid);
  EXPECT_EQ(status.attempts, 1);
  EXPECT_TRUE(client->heartbeat().ok());
  // A refusal is a verified answer too: 1703 is "not usable", not a network failure.
  const Answer unknown = PinnedEs256(bb::RandomUuidV4(), "es256-machine-01")->status();
  EXPECT_EQ(unknown.outcome, Outcome::kNotUsable) << Describe(unknown);
  EXPECT_EQ(unknown.code, 1703);
}

TEST_F(SdkEs256, TheSameKeyGivenAsPemWorksAlike) {
  StartServer();
  es256_key_ = P256Pem(es256_key_);
  ASSERT_EQ(es256_key_.rfind("-----BEGIN PUBLIC KEY-----", 0), 0u) << es256_key_;
  const Answer activated = PinnedEs256(NewLicense(1), "es256-machine-02")->activate();
  EXPECT_TRUE(activated.ok()) << Describe(activated);
}

TEST_F(SdkEs256, TheCachedEs256AnswerIsVerifiedAgainWhenTheServerIsDown) {
  StartServer();
  const std::string license = NewLicense(2);
  ASSERT_TRUE(PinnedEs256(license, "es256-machine-03")->activate().ok());
  std::filesystem::remove_all(CacheDir());  // the start-up check asks the network
  const Answer first = PinnedEs256(license, "es256-machine-03")->check_at_startup();
  ASSERT_TRUE(first.ok()) << Describe(first);
  ASSERT_EQ(first.source, Source::kNetwork);
  const auto entry = AnswerCache(CacheDir()).load(license, "es256-machine-03");
  ASSERT_TRUE(entry.has_value());
  ASSERT_TRUE(entry->signature.has_value());
  EXPECT_NE(entry->signature->find(", es256="), std::string::npos) << *entry->signature;
  Stop();
  const Answer offline = PinnedEs256(license, "es256-machine-03")->check_at_startup();
  EXPECT_TRUE(offline.ok()) << Describe(offline);
  EXPECT_EQ(offline.source, Source::kCache);
  // One edited byte of the signed body and the cached answer no longer counts.
  const auto file = AnswerCache(CacheDir()).file_for(license, "es256-machine-03");
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("ACTIVE");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 6, "ACTIVF");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  const Answer edited = PinnedEs256(license, "es256-machine-03")->check_at_startup();
  EXPECT_EQ(edited.outcome, Outcome::kUnavailable) << Describe(edited);
  EXPECT_EQ(edited.source, Source::kNone);
}

TEST_F(SdkEs256, AnotherP256KeyIsTheWrongPinnedKeyNotAConfigurationError) {
  StartServer();
  es256_key_ = NewEcPublicPem("P-256");
  const Answer a = PinnedEs256(NewLicense(1), "es256-machine-04")->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.error, "PINNED_KEY_MISMATCH") << Describe(a);
}

class LicensectlEs256 : public SdkTest {
 protected:
  CommandResult Run(const std::string& license, const std::string& public_key,
                    const std::string& command) const {
    return bb::RunCommand(
        {LICENSECTL_BINARY, "--url", Url(), "--key-id", bb::kPluginKey.id, "--secret",
         bb::kPluginKey.secret, "--license-key", license, "--machine-id", "es256-runner-0001",
         "--public-key", public_key, "--timeout", "5s", command},
        {{"XDG_CACHE_HOME", (dir().path() / "xdg").string()}}, std::chrono::seconds(60));
  }
};

TEST_F(LicensectlEs256, APinnedEs256PemFileVerifiesEveryAnswer) {
  Start();
  const std::string license = NewLicense(1);
  const std::string pem =
      dir().WriteFile("es256-public.pem", P256Pem(PublishedKey("ES256").second)).string();
  for (const char* command : {"activate", "heartbeat", "status", "deactivate"}) {
    const CommandResult r = Run(license, pem, command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.Describe();
  }
  // A verified refusal keeps its exit status: 1703 is 3, not a network failure (5).
  EXPECT_EQ(Run(bb::RandomUuidV4(), pem, "status").exit_code, 3);
  // The base64 point works alike.
  EXPECT_EQ(Run(license, PublishedKey("ES256").second, "status").exit_code, 3)
      << "deactivated above: valid false";
}

TEST_F(LicensectlEs256, AnotherP256KeyIsANetworkFailureAndAP384KeyAUsageError) {
  Start();
  const std::string license = NewLicense(1);
  const std::string other = dir().WriteFile("other.pem", NewEcPublicPem("P-256")).string();
  const CommandResult wrong = Run(license, other, "status");
  EXPECT_EQ(wrong.exit_code, 5) << wrong.Describe();
  const std::string p384 = dir().WriteFile("p384.pem", NewEcPublicPem("P-384")).string();
  const CommandResult unreadable = Run(license, p384, "status");
  EXPECT_EQ(unreadable.exit_code, 2) << unreadable.Describe();
  EXPECT_NE(unreadable.err.find("public"), std::string::npos) << unreadable.Describe();
}

}  // namespace
}  // namespace licensed::client::test
