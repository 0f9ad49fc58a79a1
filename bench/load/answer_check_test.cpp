// The sample of a run's answers whose signatures licensed-bench verifies: which answers
// are taken, and the check itself, plain and batched, against the keys as the server
// publishes them; an answer that was altered, unsigned or bound to another request fails.
#include "load/answer_check.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "auth/batch_signer.h"
#include "auth/response_key.h"

namespace licensed::bench {
namespace {

constexpr int64_t kT = 1795000000;
const std::string kRequestHex(64, 'c');
const std::string kRequestSignature = "v1=" + kRequestHex;

ResponseSigner make_signer() {
  std::vector<ResponseKey> keys;
  keys.push_back(ResponseKey::generate(ResponseAlgorithm::kEd25519).value());
  keys.push_back(ResponseKey::generate(ResponseAlgorithm::kEs256).value());
  return ResponseSigner(std::move(keys));
}

// The body of GET /api/v1/license/public-keys for `signer`, as the server makes it.
std::string published(const ResponseSigner& signer) {
  boost::json::array keys;
  for (const ResponseKey& key : signer.keys()) {
    keys.push_back(boost::json::object{{"kid", key.kid()},
                                       {"alg", algorithm_name(key.algorithm())},
                                       {"publicKey", key.public_key_base64()}});
  }
  return boost::json::serialize(boost::json::object{{"keys", std::move(keys)}});
}

std::vector<PinnedResponseKey> pinned(const ResponseSigner& signer) {
  auto keys = pinned_keys_of(published(signer));
  EXPECT_TRUE(keys.ok());
  return keys.ok() ? keys.value() : std::vector<PinnedResponseKey>{};
}

TEST(AnswerSample, EveryNthAnswerIsTaken) {
  AnswerSample sample(4);
  std::vector<int> taken;
  for (int i = 1; i <= 12; ++i) {
    if (sample.take()) taken.push_back(i);
  }
  EXPECT_EQ(taken, (std::vector<int>{4, 8, 12}));
}

TEST(AnswerSample, ZeroTakesNone) {
  AnswerSample sample(0);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(sample.take());
}

TEST(AnswerCheck, APlainAnswerVerifiesInEitherAlgorithmAndAnAlteredOneFails) {
  const ResponseSigner signer = make_signer();
  const auto keys = pinned(signer);
  const std::string body = R"({"valid":true})";
  for (const auto algorithm : {ResponseAlgorithm::kEd25519, ResponseAlgorithm::kEs256}) {
    const std::string header = signer.sign(algorithm, kRequestHex, 200, kT, body).value();
    EXPECT_EQ(check_answer_signature(keys, header, kRequestSignature, 200, body),
              AnswerCheck::kPlain);
    EXPECT_EQ(check_answer_signature(keys, header, kRequestSignature, 200, R"({"valid":false})"),
              AnswerCheck::kFailed);
    EXPECT_EQ(check_answer_signature(keys, header, kRequestSignature, 409, body),
              AnswerCheck::kFailed);
    // Bound to another request.
    EXPECT_EQ(check_answer_signature(keys, header, "v1=" + std::string(64, 'd'), 200, body),
              AnswerCheck::kFailed);
  }
}

TEST(AnswerCheck, AnswersSignedAsOneTreeVerifyAsTreesAndAnotherAnswersBodyFails) {
  const ResponseSigner signer = make_signer();
  const auto keys = pinned(signer);
  BatchSigner batcher(signer, {.max_batch = 4096, .start = false});
  std::vector<std::string> bodies;
  std::vector<std::string> headers(5);
  for (size_t i = 0; i < headers.size(); ++i) {
    bodies.push_back(R"({"n":)" + std::to_string(i) + "}");
    batcher.sign(ResponseAlgorithm::kEd25519,
                 response_signing_string(kRequestHex, 200, kT, bodies[i]), kT,
                 [&h = headers[i]](const std::optional<std::string>& v) { h = v.value_or(""); });
  }
  batcher.start();
  for (size_t i = 0; i < headers.size(); ++i) {
    EXPECT_EQ(check_answer_signature(keys, headers[i], kRequestSignature, 200, bodies[i]),
              AnswerCheck::kTree)
        << headers[i];
    EXPECT_EQ(check_answer_signature(keys, headers[i], kRequestSignature, 200,
                                     bodies[(i + 1) % bodies.size()]),
              AnswerCheck::kFailed);
  }
}

TEST(AnswerCheck, AnAnswerWithoutASignatureOrSignedByAnotherKeyFails) {
  const ResponseSigner signer = make_signer();
  const ResponseSigner other = make_signer();
  const std::string body = "{}";
  EXPECT_EQ(check_answer_signature(pinned(signer), std::nullopt, kRequestSignature, 200, body),
            AnswerCheck::kFailed);
  const std::string header =
      other.sign(ResponseAlgorithm::kEd25519, kRequestHex, 200, kT, body).value();
  EXPECT_EQ(check_answer_signature(pinned(signer), header, kRequestSignature, 200, body),
            AnswerCheck::kFailed);
  EXPECT_EQ(check_answer_signature(pinned(signer), "garbage", kRequestSignature, 200, body),
            AnswerCheck::kFailed);
}

TEST(PinnedKeys, AnAnswerThatPublishesNoUsableKeyIsRefused) {
  EXPECT_FALSE(pinned_keys_of("").ok());  // nginx's empty 200 in a ceiling run
  EXPECT_FALSE(pinned_keys_of(R"({"keys":[]})").ok());
  EXPECT_FALSE(pinned_keys_of(R"({"keys":[{"kid":"x","publicKey":"AAAA"}]})").ok());
  EXPECT_FALSE(pinned_keys_of(R"([1,2])").ok());
}

}  // namespace
}  // namespace licensed::bench
