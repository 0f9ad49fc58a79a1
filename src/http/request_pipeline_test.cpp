#include "http/request_pipeline.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "auth/memory_nonce_store.h"
#include "ratelimit/memory_rate_limiter.h"

namespace licensed {
namespace {

constexpr int64_t kNow = 1'795'000'000;
constexpr char kPath[] = "/api/v1/license/status";
constexpr char kBody[] = R"({"licenseKey":"3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c"})";

class PipelineTest : public ::testing::Test {
 protected:
  PipelineTest() : keys_({{"k1", "secret-1", {}}, {"k2", "secret-2", {}}}) {
    ctx_.keys = &keys_;
    ctx_.nonces = &nonces_;
    ctx_.clock = &clock_;
    ctx_.timestamp_window_seconds = 300;
    ctx_.started_at_seconds = kNow - 1000;
  }

  // A correctly signed request; tests then spoil one thing.
  struct Signed {
    std::string key_id = "k1", secret = "secret-1", timestamp, nonce, signature, body = kBody;
    std::string content_type = "application/json";
  };
  Signed make(int64_t ts, std::string nonce) {
    Signed s;
    s.timestamp = std::to_string(ts);
    s.nonce = std::move(nonce);
    sign(s);
    return s;
  }
  static void sign(Signed& s) {
    s.signature =
        sign_request(s.secret, {"POST", kPath, s.key_id, s.timestamp, s.nonce, sha256_hex(s.body)});
  }
  static IncomingRequest incoming(const Signed& s, std::string_view ip = "10.0.0.1") {
    IncomingRequest in;
    in.method = "POST";
    in.path = kPath;
    in.content_type = s.content_type;
    in.body = s.body;
    in.client_ip = ip;
    in.signing = {s.key_id, s.timestamp, s.nonce, s.signature};
    return in;
  }
  PipelineOutcome run(const Signed& s, std::string_view ip = "10.0.0.1") {
    return run_in_memory(incoming(s, ip));
  }
  // The outcome, there when run_pipeline returns: the services are in memory.
  PipelineOutcome run_in_memory(const IncomingRequest& in) {
    std::optional<PipelineOutcome> outcome;
    run_pipeline(ctx_, Endpoint::kStatus, in, {},
                 [&outcome](PipelineOutcome o) { outcome.emplace(std::move(o)); });
    if (!outcome) {
      ADD_FAILURE() << "an in-memory pipeline did not answer before it returned";
      return {errors::internal(), std::nullopt, std::nullopt};
    }
    return std::move(*outcome);
  }
  static std::string verdict(const PipelineOutcome& o) {
    if (o.request.ok()) return "ok";
    const auto& e = o.request.error();
    std::string v = std::to_string(static_cast<int>(*e.code));
    if (const auto* r = e.extra.if_contains("reason"))
      v += std::string(":") + r->as_string().c_str();
    if (const auto* b = e.extra.if_contains("bucket"))
      v += std::string(":") + b->as_string().c_str();
    return v;
  }

  ManualClock clock_{kNow * 1000};
  KeyRing keys_;
  MemoryNonceStore nonces_{1000};
  PipelineContext ctx_;
};

TEST_F(PipelineTest, AcceptsAWellSignedRequestOnceAndNormalisesNothingElse) {
  const auto s = make(kNow, "nonce-0000000000000001");
  EXPECT_EQ(verdict(run(s)), "ok");
  EXPECT_EQ(verdict(run(s)), "1700:nonce_reused");
}

TEST_F(PipelineTest, TimestampWindowIsInclusive) {
  EXPECT_EQ(verdict(run(make(kNow - 300, "nonce-0000000000000002"))), "ok");
  EXPECT_EQ(verdict(run(make(kNow + 300, "nonce-0000000000000003"))), "ok");
  EXPECT_EQ(verdict(run(make(kNow - 301, "nonce-0000000000000004"))), "1701");
  EXPECT_EQ(verdict(run(make(kNow + 301, "nonce-0000000000000005"))), "1701");
}

TEST_F(PipelineTest, TimestampsTooLargeForInt64AreStaleNotMalformed) {
  auto far = make(kNow, "nonce-0000000000000014");
  far.timestamp = "1" + std::string(25, '0');
  sign(far);
  EXPECT_EQ(verdict(run(far)), "1701");
}

TEST_F(PipelineTest, RequestsDatedBeforeStartAreStaleEvenInsideTheWindow) {
  ctx_.started_at_seconds = kNow - 10;
  EXPECT_EQ(verdict(run(make(kNow - 11, "nonce-0000000000000006"))), "1701");
  EXPECT_EQ(verdict(run(make(kNow - 10, "nonce-0000000000000007"))), "ok");
}

TEST_F(PipelineTest, RequestsDatedAheadOfTheClockAskForDurableNonces) {
  auto ahead = run(make(kNow + 5, "nonce-0000000000000008"));
  ASSERT_TRUE(ahead.request.ok());
  EXPECT_TRUE(ahead.request->keep_nonce_durably);
  auto now = run(make(kNow, "nonce-0000000000000009"));
  ASSERT_TRUE(now.request.ok());
  EXPECT_FALSE(now.request->keep_nonce_durably);
  // Consumed by a request later refused for its body: still to be kept.
  auto bad = make(kNow + 5, "nonce-000000000000000a");
  bad.body = "{}";
  sign(bad);
  auto refused = run(bad);
  EXPECT_EQ(verdict(refused), "1702");
  EXPECT_TRUE(refused.nonce_to_keep.has_value());
}

TEST_F(PipelineTest, EveryLiveKeyIsAcceptedAndUnknownIdsAreRefused) {
  auto s = make(kNow, "nonce-000000000000000b");
  s.key_id = "k2";
  s.secret = "secret-2";
  sign(s);
  EXPECT_EQ(verdict(run(s)), "ok");
  s.key_id = "k3";
  s.nonce = "nonce-000000000000000c";
  sign(s);
  EXPECT_EQ(verdict(run(s)), "1700:unknown_key");
  s.key_id = "k1";  // signed with k2's secret under k1's id
  s.nonce = "nonce-000000000000000d";
  s.secret = "secret-2";
  sign(s);
  EXPECT_EQ(verdict(run(s)), "1700:signature_mismatch");
}

// docs/protocol.md §11: the IP bucket keys an IPv6 client by its /64.
TEST_F(PipelineTest, TheIpBucketCountsAnIpv6SlashSixtyFourAsOneClient) {
  MemoryRateLimiter ip({1, 60'000});
  ctx_.ip_limiter = &ip;
  EXPECT_EQ(verdict(run(make(kNow, "nonce-0000000000000a01"), "2001:db8:1:2::1")), "ok");
  EXPECT_EQ(verdict(run(make(kNow, "nonce-0000000000000a02"), "2001:db8:1:2::ffff")), "1706:ip");
  EXPECT_EQ(verdict(run(make(kNow, "nonce-0000000000000a03"), "2001:db8:1:3::1")), "ok");
  ctx_.ip_limiter = nullptr;
}

TEST_F(PipelineTest, ChecksRunInTheContractsOrder) {
  MemoryRateLimiter ip({1, 60'000}), key({1, 60'000});
  ctx_.ip_limiter = &ip;
  ctx_.key_limiter = &key;
  EXPECT_EQ(verdict(run(make(kNow, "nonce-000000000000000e"))), "ok");
  // IP bucket (3) before headers (4).
  auto no_headers = make(kNow, "nonce-000000000000000f");
  no_headers.signature.clear();
  EXPECT_EQ(verdict(run(no_headers)), "1706:ip");
  // Headers (4) before timestamp (5), timestamp before signature (6), signature before
  // nonce (7), nonce before schema (8), schema before key bucket (9).
  ctx_.ip_limiter = nullptr;
  auto missing = make(kNow - 1000, "nonce-0000000000000010");
  IncomingRequest in;
  in.method = "POST";
  in.path = kPath;
  in.body = kBody;
  in.content_type = "application/json";
  in.signing = {missing.key_id, missing.timestamp, std::nullopt, missing.signature};
  EXPECT_EQ(verdict(run_in_memory(in)), "1700:missing_header");
  auto stale_and_bad = make(kNow - 1000, "nonce-0000000000000011");
  stale_and_bad.signature = "v1=" + std::string(64, '0');
  EXPECT_EQ(verdict(run(stale_and_bad)), "1701");
  auto reused_and_bad = make(kNow, "nonce-000000000000000e");
  reused_and_bad.signature = "v1=" + std::string(64, '0');
  EXPECT_EQ(verdict(run(reused_and_bad)), "1700:signature_mismatch");
  auto reused_and_malformed = make(kNow, "nonce-000000000000000e");
  reused_and_malformed.body = "[]";
  sign(reused_and_malformed);
  EXPECT_EQ(verdict(run(reused_and_malformed)), "1700:nonce_reused");
  auto malformed = make(kNow, "nonce-0000000000000012");
  malformed.content_type = "text/plain";
  EXPECT_EQ(verdict(run(malformed)), "1702");
  EXPECT_EQ(verdict(run(make(kNow, "nonce-0000000000000013"))), "1706:key");
}

// A nonce store that answers later, from another thread, as the Redis store answers
// from one of its workers: the check parks until the test hands it its verdict.
class ParkingNonceStore final : public NonceStore {
 public:
  void check_and_insert_async(std::string_view, std::string_view, UnixMillis, UnixMillis, int64_t,
                              Completion<NonceVerdict> done) override {
    parked_.set_value(std::move(done));
  }
  // The parked check's completion, once a request has parked.
  Completion<NonceVerdict> wait_for_parked() {
    auto parked = parked_.get_future();
    if (parked.wait_for(std::chrono::seconds(30)) != std::future_status::ready) return {};
    return parked.get();
  }

 private:
  NonceVerdict check_and_insert_impl(std::string_view, std::string_view, UnixMillis, UnixMillis,
                                     int64_t) override {
    return NonceVerdict::kFresh;
  }
  std::promise<Completion<NonceVerdict>> parked_;
};

TEST_F(PipelineTest, AParkedCheckResumesOnTheConnectionsThreadAndAnswersAsInMemory) {
  ParkingNonceStore parking;
  ctx_.nonces = &parking;
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::thread connection([&io] { io.run(); });
  const Signed s = make(kNow, "nonce-0000000000000020");
  const IncomingRequest in = incoming(s);
  std::promise<std::pair<std::thread::id, PipelineOutcome>> answered;
  boost::asio::post(io, [&] {
    run_pipeline(ctx_, Endpoint::kStatus, in, io.get_executor(), [&answered](PipelineOutcome o) {
      answered.set_value({std::this_thread::get_id(), std::move(o)});
    });
  });
  Completion<NonceVerdict> parked = parking.wait_for_parked();
  ASSERT_TRUE(parked) << "the request never reached the nonce check";
  parked(NonceVerdict::kFresh);  // from this thread, not the connection's
  auto future = answered.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  const auto [thread, outcome] = future.get();
  EXPECT_EQ(thread, connection.get_id());
  EXPECT_EQ(verdict(outcome), "ok");
  work.reset();
  connection.join();
}

TEST_F(PipelineTest, OnItsConnectionsThreadAnInMemoryPipelineAnswersBeforeItReturns) {
  MemoryRateLimiter ip(RateSpec{5, 60'000});
  MemoryRateLimiter key(RateSpec{5, 60'000});
  ctx_.ip_limiter = &ip;
  ctx_.key_limiter = &key;
  const Signed s = make(kNow, "nonce-0000000000000021");
  const IncomingRequest in = incoming(s);
  boost::asio::io_context io;
  std::optional<std::string> answered_before_return;
  boost::asio::post(io, [&] {
    std::optional<std::string> answer;
    run_pipeline(ctx_, Endpoint::kStatus, in, io.get_executor(),
                 [&answer](const PipelineOutcome& o) { answer = verdict(o); });
    answered_before_return = answer;
  });
  io.run();
  EXPECT_EQ(answered_before_return, "ok");
}

}  // namespace
}  // namespace licensed
