// The batch signer (docs/protocol.md §13.3): answers queued while a signature is under way
// are signed as one tree by the caller who signs (the leader), each header verifying with
// the clients' verifier; a lone answer is signed at once, on its caller's thread, in the
// plain form; batches are bounded; ES256 answers get a tree of their own; the leader hands
// the role over once it has signed its share.
#include "auth/batch_signer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <limits>
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

TEST(BatchSigner, ALoneAnswerIsSignedOnItsCallersThreadBeforeSignReturns) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  const Answer a = answer(0);
  std::optional<std::string> header;
  std::thread::id signed_on;
  batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
               [&](std::optional<std::string> h) {
                 header = std::move(h);
                 signed_on = std::this_thread::get_id();
               });
  ASSERT_TRUE(header.has_value());  // no hand-off: already called when sign() returned
  EXPECT_EQ(signed_on, std::this_thread::get_id());
  EXPECT_FALSE(parse_response_signature(*header)->tree.has_value()) << *header;
  EXPECT_TRUE(verifies(pinned_of(signer), *header, a));
}

// While the first answer's signature is under way (its `done` runs on the leader, which
// still has the role), another thread's answers queue; the leader signs them next, on its
// own thread, as one tree.
TEST(BatchSigner, AnswersArrivingWhileASignatureIsUnderWayAreSignedNextAsOneTreeByTheLeader) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  constexpr size_t kLater = 5;
  std::vector<std::optional<std::string>> later(kLater);
  std::vector<std::thread::id> later_signed_on(kLater);
  std::optional<std::string> first;
  const Answer a0 = answer(0);
  batcher.sign(ResponseAlgorithm::kEd25519, a0.signing_string(), a0.t,
               [&](std::optional<std::string> h) {
                 first = std::move(h);
                 std::thread other([&] {
                   for (size_t i = 0; i < kLater; ++i) {
                     const Answer a = answer(i + 1);
                     batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                                  [&, i](std::optional<std::string> v) {
                                    later[i] = std::move(v);
                                    later_signed_on[i] = std::this_thread::get_id();
                                  });
                   }
                 });
                 other.join();
                 // Queued, not signed: the other thread did not take the role.
                 for (const auto& h : later) EXPECT_FALSE(h.has_value());
               });
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(parse_response_signature(*first)->tree.has_value()) << *first;
  EXPECT_TRUE(verifies(pinned_of(signer), *first, a0));
  for (size_t i = 0; i < kLater; ++i) {
    ASSERT_TRUE(later[i].has_value()) << i;  // signed before the leader's sign() returned
    EXPECT_EQ(later_signed_on[i], std::this_thread::get_id());
    const auto parsed = parse_response_signature(*later[i]);
    ASSERT_TRUE(parsed && parsed->tree) << *later[i];
    EXPECT_EQ(parsed->tree->size, kLater);
    EXPECT_EQ(parsed->tree->index, i);
    EXPECT_TRUE(verifies(pinned_of(signer), *later[i], answer(i + 1)));
  }
  EXPECT_EQ(batcher.stats().signatures, 2u);
  EXPECT_EQ(batcher.stats().largest_batch, kLater);
}

// A leader that has signed its share (here one batch: hand_over_after = 1) gives the role
// to the next caller, who signs on its own thread; the old leader then stops.
TEST(BatchSigner, ALeaderThatHasSignedItsShareHandsTheRoleToTheNextCaller) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = true, .hand_over_after = 1});
  std::optional<std::string> second;
  std::thread::id second_signed_on;
  std::thread::id newcomer;
  std::thread::id third_signed_on;
  std::optional<std::string> third;
  const Answer a0 = answer(0);
  const Answer a1 = answer(1);
  const Answer a2 = answer(2);
  // Runs on a thread of its own and waits until its answer is signed.
  auto sign_from_another_thread = [&](const Answer& a, std::optional<std::string>& out,
                                      std::thread::id& on, std::thread::id* caller) {
    std::thread t([&] {
      if (caller != nullptr) *caller = std::this_thread::get_id();
      batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                   [&](std::optional<std::string> h) {
                     out = std::move(h);
                     on = std::this_thread::get_id();
                   });
    });
    t.join();
  };
  batcher.sign(ResponseAlgorithm::kEd25519, a0.signing_string(), a0.t,
               [&](const std::optional<std::string>&) {
                 // The leader's first batch: a1 queues behind it (the leader signs it next).
                 std::thread t([&] {
                   batcher.sign(ResponseAlgorithm::kEd25519, a1.signing_string(), a1.t,
                                [&](std::optional<std::string> h) {
                                  second = std::move(h);
                                  second_signed_on = std::this_thread::get_id();
                                  // The leader's second batch: a newcomer takes over.
                                  sign_from_another_thread(a2, third, third_signed_on, &newcomer);
                                });
                 });
                 t.join();
               });
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second_signed_on, std::this_thread::get_id());  // the leader signed it
  EXPECT_TRUE(verifies(pinned_of(signer), *second, a1));
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third_signed_on, newcomer);  // the newcomer signed its own, at once
  EXPECT_TRUE(verifies(pinned_of(signer), *third, a2));
  EXPECT_EQ(batcher.stats().signatures, 3u);
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

// With the leader's role handed over after each batch, and never.
class BatchSignerConcurrency : public ::testing::TestWithParam<size_t> {};

TEST_P(BatchSignerConcurrency, ManyThreadsSigningAtOnceAllGetVerifyingHeaders) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = true, .hand_over_after = GetParam()});
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

// Threads that hand their answers over and go on (as network threads do): answers that
// find a signature under way wait for the leader and are signed as trees.
TEST_P(BatchSignerConcurrency, ThreadsThatDoNotWaitGetTreesAndEveryAnswerVerifies) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer, {.max_batch = 4096, .start = true, .hand_over_after = GetParam()});
  constexpr size_t kThreads = 4;
  constexpr size_t kEach = 150;
  std::vector<std::promise<std::optional<std::string>>> promises(kThreads * kEach);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = t * kEach; i < (t + 1) * kEach; ++i) {
        const Answer a = answer(i);
        batcher.sign(ResponseAlgorithm::kEd25519, a.signing_string(), a.t,
                     [&p = promises[i]](std::optional<std::string> h) {
                       // What the answer does next (writing it) takes a moment: others arrive.
                       std::this_thread::sleep_for(50us);
                       p.set_value(std::move(h));
                     });
      }
    });
  }
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < promises.size(); ++i) {
    const auto header = promises[i].get_future().get();
    ASSERT_TRUE(header.has_value());
    EXPECT_TRUE(verifies(pinned_of(signer), *header, answer(i)));
  }
  EXPECT_EQ(batcher.stats().answers, kThreads * kEach);
  EXPECT_GT(batcher.stats().largest_batch, 1u);
  EXPECT_LT(batcher.stats().signatures, kThreads * kEach);
}

// What one thread made together (sign_all: the answers that reached a network thread
// while it ran other work) is one tree, signed on that thread.
TEST(BatchSigner, AnswersOneThreadHandsOverTogetherAreSignedAsOneTree) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  constexpr size_t kAnswers = 9;
  std::vector<std::optional<std::string>> headers(kAnswers);
  std::vector<BatchSigner::Answer> together;
  for (size_t i = 0; i < kAnswers; ++i) {
    const Answer a = answer(i);
    together.push_back({i % 3 == 2 ? ResponseAlgorithm::kEs256 : ResponseAlgorithm::kEd25519,
                        a.signing_string(), a.t,
                        [&h = headers[i]](std::optional<std::string> v) { h = std::move(v); }});
  }
  batcher.sign_all(std::move(together));
  for (size_t i = 0; i < kAnswers; ++i) {
    ASSERT_TRUE(headers[i].has_value()) << i;
    const auto parsed = parse_response_signature(*headers[i]);
    ASSERT_TRUE(parsed && parsed->tree) << *headers[i];
    EXPECT_EQ(parsed->tree->size, i % 3 == 2 ? 3u : 6u);
    EXPECT_TRUE(verifies(pinned_of(signer), *headers[i], answer(i)));
  }
  EXPECT_EQ(batcher.stats().signatures, 2u);
}

INSTANTIATE_TEST_SUITE_P(HandOverOrNot, BatchSignerConcurrency,
                         ::testing::Values(size_t{1}, std::numeric_limits<size_t>::max()));

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
