// The batch signer (docs/protocol.md §13.3): answers queued while it is busy are signed as
// one tree, each header verifying with the clients' verifier; a lone answer is signed at
// once in the plain form; batches are bounded; ES256 answers get a tree of their own.
#include "auth/batch_signer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "auth/response_key.h"
#include "auth/response_signature.h"

namespace licensed {
namespace {

using namespace std::chrono_literals;

ResponseSigner make_signer() {
  std::vector<ResponseKey> keys;
  keys.push_back(ResponseKey::generate(ResponseAlgorithm::kEd25519).value());
  keys.push_back(ResponseKey::generate(ResponseAlgorithm::kEs256).value());
  return ResponseSigner(std::move(keys));
}

std::vector<PinnedResponseKey> pinned_of(const ResponseSigner& signer) {
  std::vector<PinnedResponseKey> out;
  for (const ResponseKey& key : signer.keys()) out.push_back(key.pinned());
  return out;
}

// One answer as the server would sign it: the body names its number.
struct Answer {
  std::string request_signature;
  std::string body;
  int64_t t = 1795000000;
  std::string signing_string() const {
    return response_signing_string(request_signature, 200, t, body);
  }
};

Answer answer(size_t i) {
  return {std::string(63, 'a') + static_cast<char>('0' + i % 10),
          R"({"n":)" + std::to_string(i) + "}", 1795000000 + static_cast<int64_t>(i % 3)};
}

// Queues `n` answers on a signer not yet started, then starts it: they wait together.
std::vector<std::string> sign_queued(BatchSigner& batcher, size_t n,
                                     ResponseAlgorithm algorithm = ResponseAlgorithm::kEd25519) {
  std::vector<std::promise<std::optional<std::string>>> promises(n);
  for (size_t i = 0; i < n; ++i) {
    const Answer a = answer(i);
    batcher.sign(algorithm, a.signing_string(), a.t,
                 [&p = promises[i]](std::optional<std::string> h) { p.set_value(std::move(h)); });
  }
  batcher.start();
  std::vector<std::string> headers;
  for (auto& p : promises) headers.push_back(p.get_future().get().value_or(""));
  return headers;
}

bool verifies(const std::vector<PinnedResponseKey>& pinned, const std::string& header,
              const Answer& a) {
  return verify_response_signature(pinned, header, a.request_signature, 200, a.body) == a.t;
}

TEST(BatchSigner, AnswersQueuedTogetherAreSignedAsOneTreeAndEachVerifies) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = false});
  const auto headers = sign_queued(batcher, 37);
  for (size_t i = 0; i < headers.size(); ++i) {
    SCOPED_TRACE(headers[i]);
    const auto parsed = parse_response_signature(headers[i]);
    ASSERT_TRUE(parsed && parsed->tree);
    EXPECT_EQ(parsed->tree->index, i);
    EXPECT_EQ(parsed->tree->size, 37u);
    EXPECT_TRUE(verifies(pinned_of(signer), headers[i], answer(i)));
    // Another answer's body under this header does not verify.
    EXPECT_FALSE(verifies(pinned_of(signer), headers[i], answer(i + 1)));
  }
  EXPECT_EQ(batcher.stats().signatures, 1u);
  EXPECT_EQ(batcher.stats().answers, 37u);
  EXPECT_EQ(batcher.stats().largest_batch, 37u);
}

TEST(BatchSigner, ALoneAnswerIsSignedAtOnceInThePlainForm) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  for (size_t i = 0; i < 3; ++i) {
    std::promise<std::optional<std::string>> p;
    const Answer a = answer(i);
    batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                 [&p](std::optional<std::string> h) { p.set_value(std::move(h)); });
    auto f = p.get_future();
    // Nothing else is queued: no wait for a batch to fill.
    ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
    const std::string header = f.get().value_or("");
    const auto parsed = parse_response_signature(header);
    ASSERT_TRUE(parsed.has_value()) << header;
    EXPECT_FALSE(parsed->tree.has_value()) << header;
    EXPECT_TRUE(verifies(pinned_of(signer), header, a));
  }
  EXPECT_EQ(batcher.stats().largest_batch, 1u);
}

TEST(BatchSigner, SigningAloneInlineSignsALoneAnswerOnItsCallersThreadBeforeSignReturns) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = true, .sign_alone_inline = true});
  const Answer a = answer(0);
  std::optional<std::string> header;
  std::thread::id signed_on;
  batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
               [&](std::optional<std::string> h) {
                 header = std::move(h);
                 signed_on = std::this_thread::get_id();
               });
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(signed_on, std::this_thread::get_id());
  EXPECT_TRUE(verifies(pinned_of(signer), *header, a));
}

TEST(BatchSigner, ABatchIsBoundedByMaxBatch) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4, .start = false});
  const auto headers = sign_queued(batcher, 10);
  std::vector<uint32_t> sizes;
  for (size_t i = 0; i < headers.size(); ++i) {
    const auto parsed = parse_response_signature(headers[i]);
    ASSERT_TRUE(parsed.has_value()) << headers[i];
    sizes.push_back(parsed->tree ? parsed->tree->size : 1);
    EXPECT_TRUE(verifies(pinned_of(signer), headers[i], answer(i)));
  }
  EXPECT_EQ(sizes, (std::vector<uint32_t>{4, 4, 4, 4, 4, 4, 4, 4, 2, 2}));
  EXPECT_EQ(batcher.stats().signatures, 3u);
}

TEST(BatchSigner, Es256AnswersAreBatchedApartFromEd25519Ones) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = false});
  std::vector<std::promise<std::optional<std::string>>> promises(8);
  for (size_t i = 0; i < promises.size(); ++i) {
    const Answer a = answer(i);
    batcher.sign(i % 2 == 0 ? ResponseAlgorithm::kEd25519 : ResponseAlgorithm::kEs256,
                 a.signing_string(), a.t,
                 [&p = promises[i]](std::optional<std::string> h) { p.set_value(std::move(h)); });
  }
  batcher.start();
  for (size_t i = 0; i < promises.size(); ++i) {
    const std::string header = promises[i].get_future().get().value_or("");
    const auto parsed = parse_response_signature(header);
    ASSERT_TRUE(parsed && parsed->tree) << header;
    EXPECT_EQ(parsed->algorithm,
              i % 2 == 0 ? ResponseAlgorithm::kEd25519 : ResponseAlgorithm::kEs256);
    EXPECT_EQ(parsed->tree->size, 4u);
    EXPECT_EQ(parsed->tree->index, i / 2);
    EXPECT_TRUE(verifies(pinned_of(signer), header, answer(i)));
  }
  EXPECT_EQ(batcher.stats().signatures, 2u);
}

// With inline signing on and off.
class BatchSignerConcurrency : public ::testing::TestWithParam<bool> {};

TEST_P(BatchSignerConcurrency, ManyThreadsSigningAtOnceAllGetVerifyingHeaders) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = true, .sign_alone_inline = GetParam()});
  constexpr size_t kThreads = 8;
  constexpr size_t kEach = 200;
  std::vector<std::thread> threads;
  std::atomic<size_t> good{0};
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < kEach; ++i) {
        const Answer a = answer(t * kEach + i);
        std::promise<std::optional<std::string>> p;
        batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                     [&p](std::optional<std::string> h) { p.set_value(std::move(h)); });
        const auto header = p.get_future().get();
        if (header && verifies(pinned_of(signer), *header, a)) good.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), kThreads * kEach);
  EXPECT_EQ(batcher.stats().answers, kThreads * kEach);
  EXPECT_LE(batcher.stats().signatures, kThreads * kEach);
}

// The store's one writer thread, as the server runs it: it hands its answers over and
// goes on, so what it makes while the signer signs is batched.
TEST(BatchSigner, AnswersOfOneThreadThatDoesNotWaitAreBatched) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  constexpr size_t kAnswers = 500;
  std::vector<std::promise<std::optional<std::string>>> promises(kAnswers);
  for (size_t i = 0; i < kAnswers; ++i) {
    const Answer a = answer(i);
    batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                 [&p = promises[i]](std::optional<std::string> h) { p.set_value(std::move(h)); });
  }
  for (size_t i = 0; i < kAnswers; ++i) {
    const auto header = promises[i].get_future().get();
    ASSERT_TRUE(header.has_value());
    EXPECT_TRUE(verifies(pinned_of(signer), *header, answer(i)));
  }
  EXPECT_GT(batcher.stats().largest_batch, 1u);
  EXPECT_LT(batcher.stats().signatures, kAnswers);
}

INSTANTIATE_TEST_SUITE_P(InlineOrNot, BatchSignerConcurrency, ::testing::Bool());

TEST(BatchSigner, AfterStopAnswersAreSignedOnTheCallersThread) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  batcher.stop();
  const Answer a = answer(0);
  std::optional<std::string> header;
  batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
               [&header](std::optional<std::string> h) { header = std::move(h); });
  ASSERT_TRUE(header.has_value());  // already called, before sign() returned
  EXPECT_TRUE(verifies(pinned_of(signer), *header, a));
}

TEST(BatchSigner, AnswersQueuedBeforeStopAreStillSigned) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = false});
  std::vector<std::optional<std::string>> headers(5);
  for (size_t i = 0; i < headers.size(); ++i) {
    const Answer a = answer(i);
    batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                 [&h = headers[i]](std::optional<std::string> v) { h = std::move(v); });
  }
  batcher.stop();
  for (size_t i = 0; i < headers.size(); ++i) {
    ASSERT_TRUE(headers[i].has_value());
    EXPECT_TRUE(verifies(pinned_of(signer), *headers[i], answer(i)));
  }
}

}  // namespace
}  // namespace licensed
