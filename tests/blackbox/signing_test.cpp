// docs/protocol.md §3.4, server rules about keys and nonces.
#include <gtest/gtest.h>

#include "support/fixture.h"
#include "support/pg_database.h"

namespace bb {
namespace {

class Signing : public BlackboxTest {};

TEST_F(Signing, SeveralLiveKeysAreAllAccepted) {
  ServerOptions o;
  o.args = {"--signing-key", kCiKey.id + "=" + kCiKey.secret};
  Start(o);
  const std::string license = NewLicense(2);
  EXPECT_OK(Call("activate", Body(license, "machine-0001"), kPluginKey));
  EXPECT_OK(Call("activate", Body(license, "machine-0002"), kCiKey));
  EXPECT_OK(Call("status", Body(license), kPluginKey));
  EXPECT_OK(Call("status", Body(license), kCiKey));
}

TEST_F(Signing, UppercaseHexSignatureIsAccepted) {
  Start();
  const std::string license = NewLicense(1);
  HttpRequest req = Signed("status", Body(license));
  std::string sig = *req.Get("X-License-Signature");
  for (std::size_t i = 3; i < sig.size(); ++i) sig[i] = static_cast<char>(std::toupper(sig[i]));
  req.Set("X-License-Signature", sig);
  EXPECT_OK(Send(req));
}

TEST_F(Signing, NonceOf16To128CharactersIsAccepted) {
  Start();
  const std::string license = NewLicense(1);
  for (const std::string& nonce :
       {RandomHex(8), std::string("Ab_-") + RandomHex(6), RandomHex(64), RandomHex(63) + "_Z"}) {
    SCOPED_TRACE(nonce);
    SignOptions o;
    o.nonce = nonce;
    EXPECT_OK(Call("status", Body(license), kPluginKey, o));
  }
}

TEST_F(Signing, NonceIsRememberedPerKeyId) {
  ServerOptions o;
  o.args = {"--signing-key", kCiKey.id + "=" + kCiKey.secret};
  Start(o);
  const std::string license = NewLicense(1);
  SignOptions same;
  same.nonce = RandomNonce();
  EXPECT_OK(Call("status", Body(license), kPluginKey, same));
  EXPECT_OK(Call("status", Body(license), kCiKey, same));
  EXPECT_BAD_SIGNATURE(Call("status", Body(license), kCiKey, same), "nonce_reused");
}

// --max-nonces bounds the in-memory nonce store; past it the server refuses rather than
// forget a nonce early (which would let a replay through).
TEST_F(Signing, BeyondMaxNoncesRequestsAre503AndEveryRememberedNonceStillRefused) {
  if (TestWithRedis()) GTEST_SKIP() << "--max-nonces bounds the in-memory store only";
  ServerOptions options;
  options.args = {"--max-nonces", "3"};
  Start(options);
  // NewLicense goes through the admin command line: it takes no nonce.
  const std::string license = NewLicense(2);
  const HttpRequest first = Signed("status", Body(license));
  ASSERT_OK(Send(first));
  ASSERT_OK(Status(license));
  ASSERT_OK(Status(license));
  EXPECT_API_ERROR(Status(license), 503, 1708, "LICENSE_API_UNAVAILABLE");
  EXPECT_BAD_SIGNATURE(Send(first), "nonce_reused");
}

TEST_F(Signing, KeyIdOf64CharactersIsAccepted) {
  const SigningKey long_key{std::string(60, 'k') + "._-9", "long-key-secret"};
  ASSERT_EQ(long_key.id.size(), 64u);
  ServerOptions o;
  o.args = {"--signing-key", long_key.id + "=" + long_key.secret};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Call("status", Body(license), long_key));
}

TEST_F(Signing, KeyBoundToProductsAnswersAsUnknownLicenseForAnotherProduct) {
  admin().CreateProduct("delay", "Delay Lab");
  const SigningKey bound{"reverb-only", "bound-secret-0123456789"};
  const SigningKey free{"any-product", "free-secret-0123456789"};
  const auto config = dir().WriteFile("licensed.toml", R"(
[[signing_keys]]
id = "reverb-only"
secret = "bound-secret-0123456789"
products = ["reverb"]

[[signing_keys]]
id = "any-product"
secret = "free-secret-0123456789"
)");
  ServerOptions o;
  o.signing_key_flag = false;
  o.args = {"--config", config.string()};
  Start(o);
  const std::string reverb = NewLicense(2, "reverb");
  const std::string delay = NewLicense(2, "delay");

  EXPECT_OK(Call("activate", Body(reverb, "machine-0001"), bound));
  EXPECT_OK(Call("activate", Body(delay, "machine-0001"), free));
  EXPECT_OK(Call("status", Body(reverb), free));

  const std::string unknown = RandomUuidV4();
  for (const char* endpoint : {"activate", "heartbeat", "status", "deactivate"}) {
    SCOPED_TRACE(endpoint);
    const HttpResponse other = Call(endpoint, Body(delay, "machine-0001"), bound);
    EXPECT_API_ERROR(other, 404, 1703, "LICENSE_API_NOT_FOUND");
    const HttpResponse missing = Call(endpoint, Body(unknown, "machine-0001"), bound);
    EXPECT_EQ(Comparable(other, {delay}), Comparable(missing, {unknown}));
  }
  // The refused requests changed nothing.
  EXPECT_EQ(Arr(admin().Show(delay), "activations").size(), 1u);
}

}  // namespace
}  // namespace bb
