// Verifying answers (docs/protocol.md §13, §13.3, §13.4) with the shared verifier alone,
// against the contract's response-tree-vectors.json: no server key is involved, so this
// file is built for the server's unit tests and, with the SDK for Windows, run under
// Wine (client/CMakeLists.txt, LICENSE_CLIENT_PORTABLE_TESTS). There CNG verifies ES256
// but has no Ed25519: the Ed25519 signatures are then expected to be refused, and
// everything else (signing strings, leaves, roots, ES256) is checked the same.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "auth/base64.h"
#include "auth/crypto_primitives.h"
#include "auth/request_signature.h"
#include "auth/response_signature.h"
#include "auth/response_tree.h"

namespace licensed {
namespace {

// The contract's batched and ES256 vectors, made by an independent generator.
boost::json::object load_tree_vectors() {
  std::ifstream in(std::string(LICENSED_SPEC_DIR) + "/response-tree-vectors.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).as_object();
}

std::vector<uint8_t> bytes_of(const std::string& b64) {
  const auto bytes = base64_decode(b64);
  EXPECT_TRUE(bytes.has_value()) << b64;
  return bytes.value_or(std::vector<uint8_t>{});
}

std::string str(const boost::json::value& v, const char* key) {
  const auto& s = v.at(key).as_string();
  return {s.data(), s.size()};
}

std::optional<std::string> request_signature_of(const boost::json::value& c) {
  if (c.at("requestSignature").is_null()) return std::nullopt;
  return str(c, "requestSignature");
}

std::optional<std::string_view> view(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return std::string_view(*s);
}

unsigned status_of(const boost::json::value& c) {
  return static_cast<unsigned>(c.at("status").as_int64());
}

// Batched and ES256 answer signatures (docs/protocol.md §13.3, §13.4) against the contract's
// response-tree-vectors.json: every case verifies (the Ed25519 ones where the system
// verifies Ed25519), every must-fail case fails.
class ResponseTreeVectors : public ::testing::Test {
 protected:
  void SetUp() override {
    vectors_ = load_tree_vectors();
    pinned_ = {PinnedResponseKey{str(vectors_, "kid"), ResponseAlgorithm::kEd25519,
                                 bytes_of(str(vectors_, "publicKey"))}};
  }
  std::optional<int64_t> verify(const boost::json::value& c, const std::string& header) const {
    return verify_response_signature(pinned_, header, view(request_signature_of(c)), status_of(c),
                                     str(c, "body"));
  }
  // What verifying an Ed25519 signature made at `t` gives: `t`, or nothing where the
  // system has no Ed25519 (Windows CNG).
  static std::optional<int64_t> ed25519_verified(const std::string& t) {
    if (!crypto::ed25519_available()) return std::nullopt;
    return std::stoll(t);
  }

  boost::json::object vectors_;
  std::vector<PinnedResponseKey> pinned_;
};

TEST_F(ResponseTreeVectors, ThePlainAnswerVerifiesAndItsSigningStringMatches) {
  const auto& c = vectors_.at("plain");
  EXPECT_EQ(response_signing_string(view(request_signature_of(c)), status_of(c),
                                    std::stoll(str(c, "t")), str(c, "body")),
            str(c, "signingString"));
  EXPECT_EQ(verify(c, str(c, "header")), ed25519_verified(str(c, "t")));
}

TEST_F(ResponseTreeVectors, EveryLeafFoldsToItsRootAndItsHeaderVerifies) {
  const auto& cases = vectors_.at("cases").as_array();
  ASSERT_GE(cases.size(), 19u);
  for (const auto& c : cases) {
    const auto size = static_cast<uint64_t>(c.at("treeSize").as_int64());
    const auto index = static_cast<uint64_t>(c.at("index").as_int64());
    SCOPED_TRACE(std::to_string(index) + "/" + std::to_string(size));
    const std::string signing = response_signing_string(view(request_signature_of(c)), status_of(c),
                                                        std::stoll(str(c, "t")), str(c, "body"));
    EXPECT_EQ(signing, str(c, "signingString"));
    const TreeHash leaf = tree_leaf_hash(signing);
    EXPECT_EQ(to_hex(leaf.data(), leaf.size()), str(c, "leafHash"));
    std::vector<TreeHash> path;
    for (const auto& h : c.at("path").as_array()) {  // lowercase hex, one per hash
      const std::string hex(h.as_string());
      ASSERT_EQ(hex.size(), 64u);
      TreeHash node{};
      for (size_t i = 0; i < node.size(); ++i) {
        node[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
      }
      path.push_back(node);
    }
    const auto root = tree_root_from_path(leaf, index, size, path);
    ASSERT_TRUE(root.has_value());
    EXPECT_EQ(to_hex(root->data(), root->size()), str(c, "rootHash"));
    EXPECT_EQ(tree_signing_string(size, *root), str(c, "treeString"));
    EXPECT_EQ(verify(c, str(c, "header")), ed25519_verified(str(c, "t")));
  }
}

TEST_F(ResponseTreeVectors, EveryMustFailCaseFailsToVerify) {
  const auto& cases = vectors_.at("mustFail").as_array();
  ASSERT_GE(cases.size(), 12u);
  for (const auto& c : cases) {
    SCOPED_TRACE(str(c, "why"));
    EXPECT_FALSE(verify(c, str(c, "header")).has_value());
  }
}

TEST_F(ResponseTreeVectors, APathOfTheWrongLengthFoldsToNoRoot) {
  const TreeHash leaf = tree_leaf_hash("x");
  EXPECT_FALSE(tree_root_from_path(leaf, 0, 2, {}).has_value());
  EXPECT_FALSE(tree_root_from_path(leaf, 0, 1, {leaf}).has_value());
  EXPECT_FALSE(tree_root_from_path(leaf, 2, 2, {leaf}).has_value());
  EXPECT_EQ(tree_root_from_path(leaf, 0, 1, {}), leaf);
}

TEST_F(ResponseTreeVectors, TheEs256SignatureVerifiesAndItsAlteredCopiesFail) {
  const auto& es = vectors_.at("es256").as_object();
  const std::vector<PinnedResponseKey> pinned = {
      {str(es, "kid"), ResponseAlgorithm::kEs256, bytes_of(str(es, "publicKey"))}};
  auto signature_of = [](const std::string& b64) {
    std::array<uint8_t, 64> out{};
    const auto bytes = base64_decode(b64);
    if (!bytes || bytes->size() != out.size()) return std::optional<std::array<uint8_t, 64>>();
    std::copy(bytes->begin(), bytes->end(), out.begin());
    return std::optional(out);
  };
  auto verifies = [&](const std::string& b64, const std::string& message) {
    const auto signature = signature_of(b64);
    return signature && verify_message_signature(pinned.front(), *signature, message);
  };
  EXPECT_TRUE(verifies(str(es, "signature"), str(es, "message")));
  for (const auto& bad : es.at("mustFail").as_array()) {
    SCOPED_TRACE(str(bad, "why"));
    const std::string message =
        bad.as_object().contains("message") ? str(bad, "message") : str(es, "message");
    EXPECT_FALSE(verifies(str(bad, "signature"), message));
  }
  // As an answer header: the vector's message is the first case's signing string.
  const auto& c = vectors_.at("cases").as_array().at(0);
  ASSERT_EQ(str(es, "message"), str(c, "signingString"));
  const std::string prefix = "kid=" + str(es, "kid") + ", t=" + str(c, "t") + ", ";
  EXPECT_TRUE(verify_response_signature(pinned, prefix + "es256=" + str(es, "signature"),
                                        view(request_signature_of(c)), status_of(c),
                                        str(c, "body")));
  // The same bytes named as Ed25519 are not an ES256 signature.
  EXPECT_FALSE(verify_response_signature(pinned, prefix + "ed25519=" + str(es, "signature"),
                                         view(request_signature_of(c)), status_of(c),
                                         str(c, "body")));
}

TEST(ResponseSignature, Base64IsStrictAndCanonical) {
  const std::string text = "hello";
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  EXPECT_EQ(base64_encode(bytes, 5), "aGVsbG8=");
  EXPECT_EQ(base64_encode(bytes, 4), "aGVsbA==");
  EXPECT_EQ(base64_encode(bytes, 3), "aGVs");
  EXPECT_EQ(base64_encode(bytes, 0), "");
  EXPECT_EQ(base64_decode("aGVsbG8="), std::vector<uint8_t>(bytes, bytes + 5));
  EXPECT_EQ(base64_decode("aGVsbA=="), std::vector<uint8_t>(bytes, bytes + 4));
  EXPECT_EQ(base64_decode(""), std::vector<uint8_t>());
  for (const char* bad : {"aGVsbG8", "aGVsbG9=", "aGVsbB==", "aGV=bG8=", "aGVs bG8=", " aGVsbG8=",
                          "aGVsbG8=\n", "a===", "====", "aGVsbG8_", "aGVsbA=a"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
  }
}

// The ES256 key a Windows plugin pins, as the server publishes it (base64 of the point)
// or as PEM; what is neither key is refused.
TEST(ResponseSignature, AnEs256KeyPinsFromBase64OrPemOnEverySystem) {
  const auto es = load_tree_vectors().at("es256").as_object();
  const auto from_base64 = parse_pinned_response_key(str(es, "publicKey"));
  ASSERT_TRUE(from_base64.has_value());
  EXPECT_EQ(from_base64->algorithm, ResponseAlgorithm::kEs256);
  EXPECT_EQ(from_base64->public_key, bytes_of(str(es, "publicKey")));
  EXPECT_EQ(from_base64->kid, response_key_id(ResponseAlgorithm::kEs256, from_base64->public_key));
  // `openssl pkey -pubout` of the same key.
  const auto from_pem = parse_pinned_response_key(
      "-----BEGIN PUBLIC KEY-----\n"
      "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEoo4Y+UCZQ838HtMsDBhQMvja4tAp\n"
      "5A1d9RkAIqZmyDRax3HYyGnM3wi73vP1p0sFQss/uMChmjHecgEv2O2GUQ==\n"
      "-----END PUBLIC KEY-----\n");
  ASSERT_TRUE(from_pem.has_value());
  EXPECT_EQ(from_pem->algorithm, ResponseAlgorithm::kEs256);
  EXPECT_EQ(from_pem->public_key, from_base64->public_key);
  EXPECT_EQ(from_pem->kid, from_base64->kid);
  // An X25519 PEM, 64 bytes, and a point of 33 bytes (compressed) are no key.
  for (const char* bad :
       {"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VuAyEA0jBx3p6ea0TDgpY82S6mfzTIUuWnASVspnCybOT3gVY=\n"
        "-----END PUBLIC KEY-----\n",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
        "AqKOGPlAmUPN/B7TLAwYUDL42uLQKeQNXfUZACKmZsg0"}) {
    EXPECT_FALSE(parse_pinned_response_key(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace licensed
