// Where a batched answer is signed (docs/architecture.md "Where an answer is signed"): on
// its connection's thread, the one hand-off being the one it needs to be written there;
// the answers that reach that thread while it runs other work are signed together, and
// a lone answer on an idle thread is signed at once, alone, in the plain form.
#include "http/response_signing.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "auth/response_key.h"
#include "auth/response_signature.h"

namespace licensed {
namespace {

using namespace std::chrono_literals;
namespace net = boost::asio;

constexpr UnixMillis kNow = 1795000000000;

ResponseSigner make_signer() {
  std::vector<ResponseKey> keys;
  keys.push_back(ResponseKey::generate(ResponseAlgorithm::kEd25519).value());
  return ResponseSigner(std::move(keys));
}

// A network thread: its own io_context, run on its own thread until destroyed.
class NetworkThread {
 public:
  NetworkThread() : work_(net::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~NetworkThread() {
    work_.reset();
    thread_.join();
  }
  ConnectionExecutor executor() { return io_.get_executor(); }
  std::thread::id id() const { return thread_.get_id(); }

 private:
  net::io_context io_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  std::thread thread_;
};

struct Signed {
  HttpResponse res;
  std::thread::id on;
};

HttpResponse answer_numbered(size_t i) {
  return json_response(200, boost::json::object{{"n", i}}, "req-" + std::to_string(i));
}

bool verifies(const ResponseSigner& signer, const HttpResponse& res) {
  std::vector<PinnedResponseKey> pinned;
  for (const ResponseKey& key : signer.keys()) pinned.push_back(key.pinned());
  const auto it = res.find(kResponseSignatureHeader);
  if (it == res.end()) return false;
  return verify_response_signature(pinned, std::string_view(it->value().data(), it->value().size()),
                                   std::nullopt, res.result_int(), res.body())
      .has_value();
}

std::optional<ParsedResponseSignature> header_of(const HttpResponse& res) {
  const auto it = res.find(kResponseSignatureHeader);
  if (it == res.end()) return std::nullopt;
  return parse_response_signature(std::string_view(it->value().data(), it->value().size()));
}

TEST(ResponseSigning, AnAnswerFromAnotherThreadIsSignedAloneOnItsConnectionsThread) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  const ManualClock clock(kNow);
  NetworkThread network;
  std::promise<Signed> done;
  // As a store thread hands its answer over.
  sign_response_batched(answer_numbered(0), batcher, ResponseAlgorithm::kEd25519, clock,
                        std::nullopt, network.executor(), [&done](HttpResponse res) {
                          done.set_value({std::move(res), std::this_thread::get_id()});
                        });
  auto f = done.get_future();
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready);  // nothing waits to fill a batch
  const Signed s = f.get();
  EXPECT_EQ(s.on, network.id());
  const auto header = header_of(s.res);
  ASSERT_TRUE(header.has_value());
  EXPECT_FALSE(header->tree.has_value());
  EXPECT_TRUE(verifies(signer, s.res));
  EXPECT_EQ(batcher.stats().signatures, 1u);
}

TEST(ResponseSigning, AnswersReachingAThreadWhileItIsBusyAreSignedThereAsOneTree) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  const ManualClock clock(kNow);
  NetworkThread network;
  constexpr size_t kAnswers = 6;
  std::vector<std::promise<Signed>> done(kAnswers);
  // One handler of the network thread makes all of them (as answers of its own, or
  // handed over while it ran): none is signed before the handler ends.
  std::promise<size_t> signed_within;
  net::post(network.executor(), [&] {
    for (size_t i = 0; i < kAnswers; ++i) {
      sign_response_batched(answer_numbered(i), batcher, ResponseAlgorithm::kEd25519, clock,
                            std::nullopt, network.executor(), [&done, i](HttpResponse res) {
                              done[i].set_value({std::move(res), std::this_thread::get_id()});
                            });
    }
    signed_within.set_value(batcher.stats().answers);
  });
  EXPECT_EQ(signed_within.get_future().get(), 0u);
  for (size_t i = 0; i < kAnswers; ++i) {
    auto f = done[i].get_future();
    ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
    const Signed s = f.get();
    EXPECT_EQ(s.on, network.id());
    const auto header = header_of(s.res);
    ASSERT_TRUE(header && header->tree) << i;
    EXPECT_EQ(header->tree->size, kAnswers);
    EXPECT_EQ(header->tree->index, i);
    EXPECT_TRUE(verifies(signer, s.res));
  }
  EXPECT_EQ(batcher.stats().signatures, 1u);
}

TEST(ResponseSigning, WithoutAConnectionThreadTheAnswerIsSignedOnTheCallersThread) {
  const ResponseSigner signer = make_signer();
  BatchSigner batcher(signer);
  const ManualClock clock(kNow);
  std::optional<Signed> got;
  sign_response_batched(answer_numbered(0), batcher, ResponseAlgorithm::kEd25519, clock,
                        std::nullopt, ConnectionExecutor(), [&got](HttpResponse res) {
                          got = Signed{std::move(res), std::this_thread::get_id()};
                        });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->on, std::this_thread::get_id());
  EXPECT_TRUE(verifies(signer, got->res));
}

}  // namespace
}  // namespace licensed
