// The server's Ed25519 signatures come from libsodium; everything that checks them (the SDK,
// licensectl, the vectors) verifies with OpenSSL or its own code. Ed25519 is deterministic,
// so the two libraries must produce the same bytes for the same key and message.
#include "auth/ed25519_signing_key.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "auth/response_key.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

std::array<uint8_t, 64> openssl_signature(const ResponseKey& key, std::string_view message) {
  std::array<uint8_t, 64> out{};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t size = out.size();
  EXPECT_EQ(EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key.pkey()), 1);
  EXPECT_EQ(EVP_DigestSign(ctx, out.data(), &size,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size()),
            1);
  EVP_MD_CTX_free(ctx);
  return out;
}

bool openssl_verifies(const ResponseKey& key, std::string_view message,
                      const std::array<uint8_t, 64>& signature) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok =
      EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, key.pkey()) == 1 &&
      EVP_DigestVerify(ctx, signature.data(), signature.size(),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

TEST(Ed25519SigningKey, SignsTheSameBytesAsOpenSslForTheSameKey) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  ASSERT_TRUE(key.ok());
  ASSERT_NE(key.value().ed25519_signing_key(), nullptr);
  for (const std::string_view message : {std::string_view(""), std::string_view("v2-response\n"),
                                         std::string_view("an answer's signed string")}) {
    const auto ours = key.value().ed25519_signing_key()->sign(message);
    EXPECT_EQ(ours, openssl_signature(key.value(), message)) << message;
    EXPECT_TRUE(openssl_verifies(key.value(), message, ours)) << message;
  }
}

TEST(Ed25519SigningKey, ASignatureOfOneMessageDoesNotVerifyAnother) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  ASSERT_TRUE(key.ok());
  const auto signature = key.value().ed25519_signing_key()->sign("status 200");
  EXPECT_FALSE(openssl_verifies(key.value(), "status 201", signature));
}

TEST(Ed25519SigningKey, AKeyReadFromPemSignsAsTheKeyItWasWrittenFrom) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  ASSERT_TRUE(key.ok());
  const auto pem = key.value().to_pem();
  ASSERT_TRUE(pem.ok());
  const auto read = ResponseKey::from_pem(pem.value(), "test");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value().ed25519_signing_key()->sign("m"),
            key.value().ed25519_signing_key()->sign("m"));
}

TEST(Ed25519SigningKey, AnEs256KeyHasNoneAndStillSignsThroughOpenSsl) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key.value().ed25519_signing_key(), nullptr);
  const ResponseSigner signer({key.value()});
  EXPECT_TRUE(signer.sign_message(ResponseAlgorithm::kEs256, "m").has_value());
  EXPECT_FALSE(signer.sign_message(ResponseAlgorithm::kEd25519, "m").has_value());
}

}  // namespace
}  // namespace licensed
