// The response signature (docs/protocol.md §13) as the server signs it, against
// tests/vectors/response-signatures.json, whose expected values the openssl command line
// made, not this code, and the server's keys as clients pin them. The verifier alone,
// against the contract's tree and ES256 vectors, is response_verification_test.cpp.
#include "auth/response_signature.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "auth/base64.h"
#include "auth/request_signature.h"
#include "auth/response_key.h"
#include "auth/response_signer.h"

namespace licensed {
namespace {

boost::json::object load_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).as_object();
}

// Ours, made with the openssl command line (tests/vectors/README.md).
boost::json::object load_vectors() {
  return load_json(std::string(LICENSED_TEST_VECTORS_DIR) + "/response-signatures.json");
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

int64_t t_of(const boost::json::value& c) {
  return c.at("t").as_int64();
}

constexpr std::string_view kOtherRequest =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

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
    pinned_ = {pin_ed25519(public_key_)};
  }
  const boost::json::array& cases() const { return vectors_.at("cases").as_array(); }
  bool verifies(const std::string& header, std::optional<std::string_view> request_signature,
                unsigned status, const std::string& body) const {
    return verify_response_signature(pinned_, header, request_signature, status, body).has_value();
  }

  boost::json::object vectors_;
  std::unique_ptr<ResponseKey> key_;
  Ed25519PublicKey public_key_{};
  std::vector<PinnedResponseKey> pinned_;
};

TEST_F(ResponseSignatureVectors, KeyLoadsWithThePublishedPublicKeyAndKid) {
  EXPECT_EQ(key_->public_key_base64(), str(vectors_, "publicKey"));
  EXPECT_EQ(key_->public_key(), std::vector<uint8_t>(public_key_.begin(), public_key_.end()));
  EXPECT_EQ(key_->kid(), str(vectors_, "kid"));
  EXPECT_EQ(response_key_id(public_key_), str(vectors_, "kid"));
  EXPECT_EQ(pinned_.front().kid, str(vectors_, "kid"));
}

TEST_F(ResponseSignatureVectors, SigningStringSignatureAndHeaderMatchEveryCase) {
  ASSERT_GE(cases().size(), 5u);
  const ResponseSigner signer({*key_});
  for (const auto& c : cases()) {
    SCOPED_TRACE(str(c, "name"));
    const auto bound = request_signature_of(c);
    EXPECT_EQ(response_signing_string(view(bound), status_of(c), t_of(c), str(c, "body")),
              str(c, "signingString"));
    const auto signature =
        signer.sign_message(ResponseAlgorithm::kEd25519, str(c, "signingString"));
    ASSERT_TRUE(signature.has_value());
    EXPECT_EQ(base64_encode(signature->data(), signature->size()), str(c, "signature"));
    EXPECT_EQ(signer.sign(ResponseAlgorithm::kEd25519, view(bound), status_of(c), t_of(c),
                          str(c, "body")),
              str(c, "header"));
  }
}

TEST_F(ResponseSignatureVectors, VerifierAcceptsEveryCaseAndReturnsItsSignedTime) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(str(c, "name"));
    EXPECT_EQ(verify_response_signature(pinned_, str(c, "header"), view(request_signature_of(c)),
                                        status_of(c), str(c, "body")),
              t_of(c));
  }
}

TEST_F(ResponseSignatureVectors, VerifierRefusesAnyChangedInput) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(str(c, "name"));
    const std::string header = str(c, "header");
    const auto bound = request_signature_of(c);
    const std::string body = str(c, "body");
    const unsigned status = status_of(c);
    // An answer to another request, or one bound to "-" taken as an answer to ours.
    EXPECT_FALSE(verifies(header, kOtherRequest, status, body));
    if (bound) {
      EXPECT_FALSE(verifies(header, std::nullopt, status, body));
    } else {
      EXPECT_FALSE(verifies(header, kOtherRequest, status, body));
    }
    EXPECT_FALSE(verifies(header, view(bound), status + 1, body));
    // Another signed time.
    std::string later = header;
    const size_t t_at = later.find(", t=") + 4;
    later[t_at + 3] = later[t_at + 3] == '9' ? '8' : static_cast<char>(later[t_at + 3] + 1);
    EXPECT_FALSE(verifies(later, view(bound), status, body));
    // One body byte changed, one added, one removed.
    std::string changed = body.empty() ? std::string("x") : body;
    if (!body.empty()) changed[changed.size() / 2] ^= 0x01;
    EXPECT_FALSE(verifies(header, view(bound), status, changed));
    EXPECT_FALSE(verifies(header, view(bound), status, body + "\n"));
    if (!body.empty()) {
      EXPECT_FALSE(verifies(header, view(bound), status, body.substr(1)));
    }
    // Another key under the same kid, and this key under another kid.
    const auto other = ResponseKey::generate(ResponseAlgorithm::kEd25519);
    ASSERT_TRUE(other.ok());
    PinnedResponseKey impostor = other->pinned();
    impostor.kid = str(vectors_, "kid");
    EXPECT_FALSE(verify_response_signature({impostor}, header, view(bound), status, body));
    PinnedResponseKey renamed = pinned_.front();
    renamed.kid = "another-kid";
    EXPECT_FALSE(verify_response_signature({renamed}, header, view(bound), status, body));
  }
}

TEST_F(ResponseSignatureVectors, MalformedHeadersAreRefused) {
  const auto& c = cases().at(0);
  const std::string header = str(c, "header");
  const std::string sig = str(c, "signature");
  const std::string kid = str(vectors_, "kid");
  const std::string t = std::to_string(t_of(c));
  const auto bound = request_signature_of(c);
  auto ok = [&](const std::string& h) {
    return verifies(h, view(bound), status_of(c), str(c, "body"));
  };
  ASSERT_TRUE(ok(header));
  // Separators are "," with optional spaces (docs/protocol.md §13.3).
  EXPECT_TRUE(ok("kid=" + kid + ",t=" + t + ",ed25519=" + sig));
  EXPECT_TRUE(ok("kid=" + kid + " ,  t=" + t + ",   ed25519=" + sig));
  const std::vector<std::string> malformed = {
      "",
      sig,
      "ed25519=" + sig,
      "kid=" + kid + ", ed25519=" + sig,  // v1's header: no t
      "kid=" + kid,
      "t=" + t + ", kid=" + kid + ", ed25519=" + sig,            // other order
      "kid=" + kid + ", ed25519=" + sig + ", t=" + t,            // other order
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig + ", x=1",  // extra parameter
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig + ",",      // empty parameter
      "kid=" + kid + ", kid=" + kid + ", t=" + t + ", ed25519=" + sig,
      "KID=" + kid + ", t=" + t + ", ed25519=" + sig,
      "kid=" + kid + ", t=" + t + ", Ed25519=" + sig,
      "kid=" + kid + ", t=0" + t + ", ed25519=" + sig,  // leading zero
      "kid=" + kid + ", t=-" + t + ", ed25519=" + sig,
      "kid=" + kid + ", t=, ed25519=" + sig,
      "kid=, t=" + t + ", ed25519=" + sig,
      "kid=" + std::string(65, 'a') + ", t=" + t + ", ed25519=" + sig,
      "kid=a b, t=" + t + ", ed25519=" + sig,
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig.substr(0, sig.size() - 2),  // no padding
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig.substr(4),                  // 61 bytes
      "kid=" + kid + ", t=" + t + ", ed25519=AAAA" + sig,                        // 67 bytes
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig.substr(0, 10) + "-" + sig.substr(11),
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig + ", tree=0/1",  // no path
      "kid=" + kid + ", t=" + t + ", ed25519=" + sig + ", path=, tree=0/1",
  };
  for (const auto& h : malformed) {
    EXPECT_FALSE(parse_response_signature(h).has_value()) << h;
    EXPECT_FALSE(ok(h)) << h;
  }
  // A one-leaf tree is the plain signature over another string: not this one.
  EXPECT_TRUE(parse_response_signature(header + ", tree=0/1, path=").has_value());
  EXPECT_FALSE(ok(header + ", tree=0/1, path="));
}

TEST(ResponseSignature, PublicKeyParsesFromBase64OrPem) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  ASSERT_TRUE(key.ok());
  const auto parsed = parse_response_public_key(key->public_key_base64());
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(std::vector<uint8_t>(parsed->begin(), parsed->end()), key->public_key());
  EXPECT_FALSE(parse_response_public_key("AAAA").has_value());
  EXPECT_FALSE(parse_response_public_key("not base64").has_value());
  // The SubjectPublicKeyInfo of an Ed25519 key is a fixed 12-byte prefix and the raw key.
  static constexpr uint8_t kSpkiPrefix[] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                            0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};
  std::vector<uint8_t> der(std::begin(kSpkiPrefix), std::end(kSpkiPrefix));
  der.insert(der.end(), key->public_key().begin(), key->public_key().end());
  const std::string pem = "-----BEGIN PUBLIC KEY-----\n" + base64_encode(der.data(), der.size()) +
                          "\n-----END PUBLIC KEY-----\n";
  EXPECT_EQ(parse_response_public_key(pem), parsed);
}

TEST(ResponseSignature, SignerIsDeterministicAcrossThreadsAndSigners) {
  const auto a = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  const auto b = ResponseKey::generate(ResponseAlgorithm::kEd25519);
  ASSERT_TRUE(a.ok() && b.ok());
  const ResponseSigner first({a.value(), b.value()});
  const ResponseSigner second({b.value()});
  EXPECT_EQ(first.signing_key(ResponseAlgorithm::kEd25519)->kid(), a->kid());
  const auto expected =
      first.sign(ResponseAlgorithm::kEd25519, kOtherRequest, 200, 1795339800, "body");
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(expected->rfind("kid=" + a->kid() + ", t=1795339800, ed25519=", 0), 0u);
  // Alternating signers on one thread must not mix up their per-thread contexts.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(first.sign(ResponseAlgorithm::kEd25519, kOtherRequest, 200, 1795339800, "body"),
              expected);
    const auto other =
        second.sign(ResponseAlgorithm::kEd25519, kOtherRequest, 200, 1795339800, "body");
    ASSERT_TRUE(other.has_value());
    EXPECT_TRUE(verify_response_signature({b->pinned()}, *other, kOtherRequest, 200, "body"));
  }
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        if (first.sign(ResponseAlgorithm::kEd25519, kOtherRequest, 200, 1795339800, "body") !=
            expected)
          ++mismatches;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A PEM "PUBLIC KEY" of `key`; the point compressed when asked.
std::string public_pem(EVP_PKEY* key, bool compressed = false) {
  if (compressed) {
    EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                                   OSSL_PKEY_EC_POINT_CONVERSION_FORMAT_COMPRESSED);
  }
  BIO* out = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(out, key);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(out);
  return pem;
}

TEST(ResponseSignature, APinnedKeyOfEitherAlgorithmParsesFromBase64OrPem) {
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    SCOPED_TRACE(algorithm_token(a));
    const auto key = ResponseKey::generate(a);
    ASSERT_TRUE(key.ok());
    const auto from_base64 = parse_pinned_response_key(key->public_key_base64());
    ASSERT_TRUE(from_base64.has_value());
    EXPECT_EQ(from_base64->kid, key->kid());
    EXPECT_EQ(from_base64->algorithm, a);
    EXPECT_EQ(from_base64->public_key, key->public_key());
    const auto from_pem = parse_pinned_response_key(public_pem(key->pkey()));
    ASSERT_TRUE(from_pem.has_value());
    EXPECT_EQ(from_pem->kid, key->kid());
    EXPECT_EQ(from_pem->public_key, key->public_key());
  }
}

TEST(ResponseSignature, AP256PemWithACompressedPointPinsTheUncompressedPoint) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  EVP_PKEY* copy = EVP_PKEY_dup(key->pkey());
  ASSERT_NE(copy, nullptr);
  const std::string pem = public_pem(copy, true);
  EVP_PKEY_free(copy);
  const auto pinned = parse_pinned_response_key(pem);
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->public_key, key->public_key());
  EXPECT_EQ(pinned->kid, key->kid());
}

TEST(ResponseSignature, APinnedKeyThatIsNeitherAlgorithmIsRefused) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  std::vector<uint8_t> compressed(33, 0x11);
  compressed[0] = 0x02;
  std::vector<uint8_t> off_curve(65, 0x00);
  off_curve[0] = 0x04;
  std::vector<uint8_t> wrong_prefix = key->public_key();
  wrong_prefix[0] = 0x05;
  EVP_PKEY* p384 = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384");
  ASSERT_NE(p384, nullptr);
  const std::string p384_pem = public_pem(p384);
  EVP_PKEY_free(p384);
  EVP_PKEY* x25519 = EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519");
  ASSERT_NE(x25519, nullptr);
  const std::string x25519_pem = public_pem(x25519);
  EVP_PKEY_free(x25519);
  for (const std::string& text :
       {base64_encode(compressed.data(), compressed.size()),
        base64_encode(off_curve.data(), off_curve.size()),
        base64_encode(wrong_prefix.data(), wrong_prefix.size()),
        base64_encode(key->public_key().data(), 64), p384_pem, x25519_pem, std::string("AAAA"),
        std::string("not base64"), std::string("-----BEGIN PUBLIC KEY-----\nAAAA\n")}) {
    EXPECT_FALSE(parse_pinned_response_key(text).has_value()) << text;
  }
}

TEST(ResponseSignature, Es256SignaturesAreRawRAndSThatTheSharedVerifierAccepts) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  const ResponseSigner signer({key.value()});
  // Several messages on one thread: a context reused must not carry the last message.
  for (int i = 0; i < 4; ++i) {
    const std::string body = "body " + std::to_string(i);
    const auto header =
        signer.sign(ResponseAlgorithm::kEs256, kOtherRequest, 200, 1795339800, body);
    ASSERT_TRUE(header.has_value());
    EXPECT_EQ(header->rfind("kid=" + key->kid() + ", t=1795339800, es256=", 0), 0u) << *header;
    const auto parsed = parse_response_signature(*header);
    ASSERT_TRUE(parsed.has_value()) << *header;
    EXPECT_EQ(parsed->algorithm, ResponseAlgorithm::kEs256);
    EXPECT_EQ(verify_response_signature({key->pinned()}, *header, kOtherRequest, 200, body),
              1795339800);
    EXPECT_FALSE(
        verify_response_signature({key->pinned()}, *header, kOtherRequest, 200, body + "x"));
    EXPECT_FALSE(verify_response_signature({key->pinned()}, *header, std::nullopt, 200, body));
  }
  // Randomised: two signatures of one message differ, and both verify.
  const auto a = signer.sign_message(ResponseAlgorithm::kEs256, "message");
  const auto b = signer.sign_message(ResponseAlgorithm::kEs256, "message");
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(verify_message_signature(key->pinned(), *a, "message"));
  EXPECT_TRUE(verify_message_signature(key->pinned(), *b, "message"));
  EXPECT_FALSE(verify_message_signature(key->pinned(), *a, "another message"));
}

TEST(ResponseSignature, Es256SigningFromManyThreadsAlwaysVerifies) {
  const auto key = ResponseKey::generate(ResponseAlgorithm::kEs256);
  ASSERT_TRUE(key.ok());
  const ResponseSigner signer({key.value()});
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const std::string message = "thread " + std::to_string(t) + " message " + std::to_string(i);
        const auto signature = signer.sign_message(ResponseAlgorithm::kEs256, message);
        if (!signature || !verify_message_signature(key->pinned(), *signature, message)) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ResponseSignature, PerAlgorithmTheFirstKeyOfThatAlgorithmSigns) {
  std::vector<ResponseKey> keys;
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEs256, ResponseAlgorithm::kEd25519,
                                    ResponseAlgorithm::kEs256, ResponseAlgorithm::kEd25519}) {
    auto key = ResponseKey::generate(a);
    ASSERT_TRUE(key.ok());
    keys.push_back(key.value());
  }
  const ResponseSigner signer(keys);
  EXPECT_EQ(signer.algorithms(), (std::vector<ResponseAlgorithm>{ResponseAlgorithm::kEd25519,
                                                                 ResponseAlgorithm::kEs256}));
  EXPECT_EQ(signer.signing_key(ResponseAlgorithm::kEs256)->kid(), keys[0].kid());
  EXPECT_EQ(signer.signing_key(ResponseAlgorithm::kEd25519)->kid(), keys[1].kid());
  for (const ResponseAlgorithm a : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    const auto header = signer.sign(a, std::nullopt, 404, 1795339800, "{}");
    ASSERT_TRUE(header.has_value());
    EXPECT_TRUE(verify_response_signature({signer.signing_key(a)->pinned()}, *header, std::nullopt,
                                          404, "{}"));
  }

  const ResponseSigner ed25519_only({keys[1]});
  EXPECT_EQ(ed25519_only.algorithms(),
            (std::vector<ResponseAlgorithm>{ResponseAlgorithm::kEd25519}));
  EXPECT_EQ(ed25519_only.signing_key(ResponseAlgorithm::kEs256), nullptr);
  EXPECT_FALSE(ed25519_only.sign(ResponseAlgorithm::kEs256, std::nullopt, 200, 1, "{}"));
}

}  // namespace
}  // namespace licensed
