// The test client's own signer against the shared vectors: if this fails, every other
// test's verdict about signatures is void.
#include <gtest/gtest.h>

#include "support/json_util.h"
#include "support/signer.h"
#include "support/spec_files.h"

namespace bb {
namespace {

TEST(SigningVectors, SignerReproducesEveryVector) {
  const auto path = SpecDir() / "signing-vectors.json";
  const json::value doc = ParseJson(ReadFile(path));
  ASSERT_EQ(Str(doc, "scheme"), "v1");
  const json::array& vectors = Arr(doc, "vectors");
  ASSERT_FALSE(vectors.empty()) << path;
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    const json::value& v = vectors[i];
    SCOPED_TRACE("vector " + std::to_string(i));
    const std::string body = Str(v, "body");
    const std::string body_hash = Sha256Hex(body);
    EXPECT_EQ(body_hash, Str(v, "bodySha256"));
    const std::string canonical = CanonicalString(Str(v, "method"), Str(v, "path"), Str(v, "keyId"),
                                                  Str(v, "timestamp"), Str(v, "nonce"), body_hash);
    EXPECT_EQ(canonical, Str(v, "canonical"));
    EXPECT_EQ(SignCanonical(Str(v, "secret"), canonical), Str(v, "signature"));
  }
}

TEST(SigningVectors, SignedRequestCarriesTheFourHeaders) {
  SignOptions options;
  options.timestamp = 1795000000;
  options.nonce = "q8Jm0vX2c1Tn4YwZs6Lb3A";
  const std::string body =
      R"({"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c","machineId":"a3c9e1f0b2d4c6e8a3c9e1f0b2d4c6e8a3c9e1f0b2d4c6e8a3c9e1f0b2d4c6e8","machineName":"Studio PC"})";
  const HttpRequest req = SignedRequest({"plugin-2026", "s3cr3t-0123456789abcdef0123456789abcdef"},
                                        "/api/v1/license/activate?ignored=1", body, options);
  EXPECT_EQ(req.Get("X-License-Key-Id"), "plugin-2026");
  EXPECT_EQ(req.Get("X-License-Timestamp"), "1795000000");
  EXPECT_EQ(req.Get("X-License-Nonce"), "q8Jm0vX2c1Tn4YwZs6Lb3A");
  EXPECT_EQ(req.Get("X-License-Signature"),
            "v1=eb18615a56a7155b82b8857e693a3a2a76d2c0935980b188502260555ac46b38");
  EXPECT_EQ(req.Get("Content-Type"), "application/json");
  EXPECT_EQ(RandomNonce().size(), 32u);
  EXPECT_NE(RandomNonce(), RandomNonce());
}

}  // namespace
}  // namespace bb
