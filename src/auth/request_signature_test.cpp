// Request signing (docs/protocol.md §3) against the contract's signing-vectors.json. Built
// for the server's unit tests and, with the SDK for Windows, run under Wine
// (client/CMakeLists.txt, LICENSE_CLIENT_PORTABLE_TESTS): only the shared signing code.
#include "auth/request_signature.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

namespace licensed {
namespace {

boost::json::array load_vectors() {
  std::ifstream in(std::string(LICENSED_SPEC_DIR) + "/signing-vectors.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).at("vectors").as_array();
}

std::string_view str(const boost::json::value& v, const char* key) {
  const auto& s = v.at(key).as_string();
  return {s.data(), s.size()};
}

TEST(SigningVectors, EveryVectorMatchesBodyHashCanonicalAndSignature) {
  const auto vectors = load_vectors();
  ASSERT_GE(vectors.size(), 5u);
  for (const auto& v : vectors) {
    const std::string body_hash = sha256_hex(str(v, "body"));
    EXPECT_EQ(body_hash, str(v, "bodySha256"));
    const CanonicalRequest req{str(v, "method"),    str(v, "path"),  str(v, "keyId"),
                               str(v, "timestamp"), str(v, "nonce"), body_hash};
    EXPECT_EQ(canonical_string(req), str(v, "canonical"));
    EXPECT_EQ(sign_request(str(v, "secret"), req), str(v, "signature"));
  }
}

TEST(SigningVectors, PreKeyedContextIsReusableAndClonable) {
  const auto vectors = load_vectors();
  const auto& v = vectors.at(0);
  HmacSha256 mac(str(v, "secret"));
  auto copy = mac.clone();
  for (int i = 0; i < 3; ++i) {
    Sha256Digest a{}, b{};
    ASSERT_TRUE(mac.compute(str(v, "canonical"), a));
    ASSERT_TRUE(copy->compute(str(v, "canonical"), b));
    EXPECT_EQ("v1=" + to_hex(a), str(v, "signature"));
    EXPECT_TRUE(digests_equal(a, b));
  }
}

}  // namespace
}  // namespace licensed
