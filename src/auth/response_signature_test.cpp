// The response signature (spec section 13) against tests/vectors/response-signatures.json,
// whose expected values the openssl command line made, not this code.
#include "auth/response_signature.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "auth/base64.h"
#include "auth/response_key.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

boost::json::object load_vectors() {
  std::ifstream in(std::string(LICENSED_TEST_VECTORS_DIR) + "/response-signatures.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).as_object();
}

std::string str(const boost::json::value& v, const char* key) {
  const auto& s = v.at(key).as_string();
  return {s.data(), s.size()};
}

std::optional<std::string> nonce_of(const boost::json::value& c) {
  if (c.at("nonce").is_null()) return std::nullopt;
  return str(c, "nonce");
}

std::optional<std::string_view> view(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return std::string_view(*s);
}

unsigned status_of(const boost::json::value& c) {
  return static_cast<unsigned>(c.at("status").as_int64());
}

class ResponseSignatureVectors : public ::testing::Test {
 protected:
  void SetUp() override {
    vectors_ = load_vectors();
    auto key = ResponseKey::from_pem(str(vectors_, "privateKeyPem"), "vector key");
    ASSERT_TRUE(key.ok()) << key.error().message;
    key_ = std::make_unique<ResponseKey>(key.value());
    auto pub = parse_response_public_key(str(vectors_, "publicKey"));
    ASSERT_TRUE(pub.has_value());
    public_key_ = *pub;
  }
  const boost::json::array& cases() const { return vectors_.at("cases").as_array(); }

  boost::json::object vectors_;
  std::unique_ptr<ResponseKey> key_;
  Ed25519PublicKey public_key_{};
};

TEST_F(ResponseSignatureVectors, KeyLoadsWithThePublishedPublicKeyAndKid) {
  EXPECT_EQ(key_->public_key_base64(), str(vectors_, "publicKey"));
  EXPECT_EQ(key_->public_key(), public_key_);
  EXPECT_EQ(key_->kid(), str(vectors_, "kid"));
  EXPECT_EQ(response_key_id(public_key_), str(vectors_, "kid"));
}

TEST_F(ResponseSignatureVectors, SigningStringSignatureAndHeaderMatchEveryCase) {
  ASSERT_GE(cases().size(), 5u);
  const ResponseSigner signer({*key_});
  for (const auto& c : cases()) {
    SCOPED_TRACE(str(c, "name"));
    const auto nonce = nonce_of(c);
    EXPECT_EQ(response_signing_string(view(nonce), status_of(c), str(c, "date"), str(c, "body")),
              str(c, "signingString"));
    const auto signature = signer.sign_message(str(c, "signingString"));
    ASSERT_TRUE(signature.has_value());
    EXPECT_EQ(base64_encode(signature->data(), signature->size()), str(c, "signature"));
    EXPECT_EQ(signer.sign(view(nonce), status_of(c), str(c, "date"), str(c, "body")),
              str(c, "header"));
  }
}

TEST_F(ResponseSignatureVectors, VerifierAcceptsEveryCase) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(str(c, "name"));
    EXPECT_TRUE(verify_response_signature(public_key_, str(c, "header"), view(nonce_of(c)),
                                          status_of(c), str(c, "date"), str(c, "body")));
  }
}

TEST_F(ResponseSignatureVectors, VerifierRefusesAnyChangedInput) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(str(c, "name"));
    const std::string header = str(c, "header");
    const auto nonce = nonce_of(c);
    const std::string date = str(c, "date");
    const std::string body = str(c, "body");
    const unsigned status = status_of(c);
    // Another nonce: a replayed answer to another question.
    EXPECT_FALSE(
        verify_response_signature(public_key_, header, "0123456789abcdefXXXX", status, date, body));
    if (nonce) {
      EXPECT_FALSE(
          verify_response_signature(public_key_, header, std::nullopt, status, date, body));
    }
    EXPECT_FALSE(
        verify_response_signature(public_key_, header, view(nonce), status + 1, date, body));
    EXPECT_FALSE(
        verify_response_signature(public_key_, header, view(nonce), status, date + " ", body));
    // One body byte changed, one added, one removed.
    std::string changed = body.empty() ? std::string("x") : body;
    if (!body.empty()) changed[changed.size() / 2] ^= 0x01;
    EXPECT_FALSE(
        verify_response_signature(public_key_, header, view(nonce), status, date, changed));
    EXPECT_FALSE(
        verify_response_signature(public_key_, header, view(nonce), status, date, body + "\n"));
    if (!body.empty()) {
      EXPECT_FALSE(verify_response_signature(public_key_, header, view(nonce), status, date,
                                             body.substr(1)));
    }
    // Another key.
    const auto other = ResponseKey::generate();
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(
        verify_response_signature(other->public_key(), header, view(nonce), status, date, body));
  }
}

TEST_F(ResponseSignatureVectors, NoNonceIsSignedAsADash) {
  // "-" is not a valid nonce (16-128 characters), so it cannot collide with one.
  for (const auto& c : cases()) {
    if (!c.at("nonce").is_null()) continue;
    EXPECT_TRUE(verify_response_signature(public_key_, str(c, "header"), "-", status_of(c),
                                          str(c, "date"), str(c, "body")));
  }
}

TEST_F(ResponseSignatureVectors, MalformedHeadersAreRefused) {
  const auto& c = cases().at(0);
  const std::string header = str(c, "header");
  const std::string sig = str(c, "signature");
  const std::string kid = str(vectors_, "kid");
  const auto nonce = nonce_of(c);
  auto verifies = [&](const std::string& h) {
    return verify_response_signature(public_key_, h, view(nonce), status_of(c), str(c, "date"),
                                     str(c, "body"));
  };
  ASSERT_TRUE(verifies(header));
  const std::vector<std::string> malformed = {
      "",
      sig,
      "ed25519=" + sig,
      "kid=" + kid,
      "ed25519=" + sig + ", kid=" + kid,            // other order
      "kid=" + kid + ",ed25519=" + sig,             // no space
      "kid=" + kid + ",  ed25519=" + sig,           // two spaces
      "kid=" + kid + ", ed25519=" + sig + " ",      // trailing space
      " kid=" + kid + ", ed25519=" + sig,           // leading space
      "kid=" + kid + ", ed25519=" + sig + ", x=1",  // extra parameter
      "KID=" + kid + ", ed25519=" + sig,
      "kid=" + kid + ", Ed25519=" + sig,
      "kid=, ed25519=" + sig,
      "kid=" + std::string(65, 'a') + ", ed25519=" + sig,
      "kid=a b, ed25519=" + sig,
      "kid=" + kid + ", ed25519=" + sig.substr(0, sig.size() - 2),             // padding dropped
      "kid=" + kid + ", ed25519=" + sig.substr(4),                             // 61 bytes
      "kid=" + kid + ", ed25519=AAAA" + sig,                                   // 67 bytes
      "kid=" + kid + ", ed25519=" + sig.substr(0, 10) + "-" + sig.substr(11),  // base64url
      "kid=" + kid + ", ed25519=" + sig.substr(0, 10) + "\n" + sig.substr(11),
  };
  for (const auto& h : malformed) {
    EXPECT_FALSE(parse_response_signature(h).has_value()) << h;
    EXPECT_FALSE(verifies(h)) << h;
  }
  // The kid names the key but does not make the signature: another kid still verifies.
  EXPECT_TRUE(verifies("kid=other-key, ed25519=" + sig));
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

TEST(ResponseSignature, PublicKeyParsesFromBase64OrPem) {
  const auto key = ResponseKey::generate();
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(parse_response_public_key(key->public_key_base64()), key->public_key());
  EXPECT_FALSE(parse_response_public_key("AAAA").has_value());
  EXPECT_FALSE(parse_response_public_key("not base64").has_value());
  // The SubjectPublicKeyInfo of an Ed25519 key is a fixed 12-byte prefix and the raw key.
  static constexpr uint8_t kSpkiPrefix[] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                            0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
  std::vector<uint8_t> der(std::begin(kSpkiPrefix), std::end(kSpkiPrefix));
  der.insert(der.end(), key->public_key().begin(), key->public_key().end());
  const std::string pem = "-----BEGIN PUBLIC KEY-----\n" + base64_encode(der.data(), der.size()) +
                          "\n-----END PUBLIC KEY-----\n";
  EXPECT_EQ(parse_response_public_key(pem), key->public_key());
}

TEST(ResponseSignature, SignerIsDeterministicAcrossThreadsAndSigners) {
  const auto a = ResponseKey::generate();
  const auto b = ResponseKey::generate();
  ASSERT_TRUE(a.ok() && b.ok());
  const ResponseSigner first({a.value(), b.value()});
  const ResponseSigner second({b.value()});
  EXPECT_EQ(first.signing_key().kid(), a->kid());
  const auto expected = first.sign("n0nce-0123456789", 200, "date", "body");
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(expected->rfind("kid=" + a->kid() + ", ed25519=", 0), 0u);
  // Alternating signers on one thread must not mix up their per-thread contexts.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(first.sign("n0nce-0123456789", 200, "date", "body"), expected);
    const auto other = second.sign("n0nce-0123456789", 200, "date", "body");
    ASSERT_TRUE(other.has_value());
    EXPECT_TRUE(verify_response_signature(b->public_key(), *other, "n0nce-0123456789", 200, "date",
                                          "body"));
  }
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        if (first.sign("n0nce-0123456789", 200, "date", "body") != expected) ++mismatches;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace licensed
