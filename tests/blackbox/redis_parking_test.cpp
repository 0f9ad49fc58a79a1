// Architecture issue, item 6: with --redis, a request that waits on Redis parks (its call
// runs on a Redis worker) and its network thread serves other connections meanwhile;
// when Redis answers, the request resumes on its connection and is answered as it would
// have been. Redis sits behind a proxy that can hold its answers, and the server has
// one network thread, so a thread that waited on Redis would stall every connection.
// Nothing here is timed: each test shows an answer that came while Redis held another
// request's answer; the waits are guards against a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "support/fixture.h"
#include "support/raw_connection.h"
#include "support/redis_proxy.h"
#include "support/redis_server.h"

namespace bb {
namespace {

constexpr std::chrono::seconds kGuard{30};

class RedisParking : public BlackboxTest {
 protected:
  // One network thread; Redis through the proxy, with a timeout longer than any hold
  // here, so a held answer is a slow Redis, not an outage.
  ServerOptions Options(ServerOptions o = {}) {
    o.args.insert(o.args.end(),
                  {"--threads", "1", "--redis", proxy_.url(), "--redis-timeout", "60000"});
    return o;
  }

  // Sends `request` on a connection of its own and waits until Redis holds the answer
  // it parked on.
  std::unique_ptr<RawConnection> Park(const HttpRequest& request) {
    auto connection = std::make_unique<RawConnection>(port());
    EXPECT_TRUE(connection->connected());
    EXPECT_TRUE(connection->Write(Serialize(port(), request)));
    EXPECT_TRUE(proxy_.WaitUntilHolding(kGuard)) << "the request never asked Redis";
    return connection;
  }

  // A route on the same listener that needs no Redis, answered while Redis holds.
  void ExpectServedWhileHeld() {
    const HttpResponse keys = GetPublicKeys();
    EXPECT_EQ(keys.status, 200) << keys.Describe();
    HttpRequest page;
    page.method = "GET";
    page.target = "/dashboard";
    const HttpResponse dashboard = Send(page);
    EXPECT_EQ(dashboard.status, 200) << dashboard.Describe();
    EXPECT_GT(proxy_.held_bytes(), 0u) << "Redis let go of the parked request's answer";
  }

  RedisServer redis_;
  RedisProxy proxy_{redis_.port()};
};

TEST_F(RedisParking, AnotherConnectionIsServedWhileRedisHoldsItsAnswer) {
  Start(Options());
  const std::string license = NewLicense(1);
  proxy_.Hold();
  const HttpRequest activate = Signed("activate", Body(license, "machine-0001"));
  auto parked = Park(activate);
  ExpectServedWhileHeld();

  proxy_.Release();
  const HttpResponse answer = parked->Read(kGuard);
  EXPECT_OK(answer);
  EXPECT_TRUE(SignedFor(answer, SigningPublicKey(), BoundTo(activate)));
  EXPECT_EQ(Int(BodyJson(answer), "activations"), 1) << answer.Describe();
}

// The verdict after the park is the one the check gives without it: a replay parked on
// its nonce check is refused, its answer bound to "-" (docs/protocol.md §13.5).
TEST_F(RedisParking, AReplayParkedOnItsNonceCheckIsRefusedAsWithoutParking) {
  Start(Options());
  const std::string license = NewLicense(1);
  const HttpRequest status = Signed("status", Body(license));
  ASSERT_OK(Send(status));
  proxy_.Hold();
  auto parked = Park(status);
  ExpectServedWhileHeld();

  proxy_.Release();
  const HttpResponse answer = parked->Read(kGuard);
  EXPECT_BAD_SIGNATURE(answer, "nonce_reused");
  EXPECT_TRUE(SignedFor(answer, SigningPublicKey(), std::nullopt));
}

// Both buckets are Redis buckets: a request parks on the IP bucket first, and once Redis
// answers it goes on through the checks in the contract's order to the key bucket.
TEST_F(RedisParking, ARequestParkedOnItsIpBucketGoesOnToItsKeyBucket) {
  Start(Options(WithRateLimits("10/1h", "1/1h")));
  const std::string license = NewLicense(1);
  ASSERT_OK(Call("status", Body(license)));
  proxy_.Hold();
  const HttpRequest again = Signed("status", Body(license));
  auto parked = Park(again);
  ExpectServedWhileHeld();

  proxy_.Release();
  const HttpResponse answer = parked->Read(kGuard);
  EXPECT_RATE_LIMITED(answer, "key", 3600);
  EXPECT_TRUE(SignedFor(answer, SigningPublicKey(), BoundTo(again)));
}

// More parked requests than Redis workers (two per network thread): those beyond wait in
// the workers' queue, and every one is answered once Redis lets go.
TEST_F(RedisParking, RequestsParkedBeyondTheWorkersAreAllAnsweredOnceRedisAnswers) {
  Start(Options());
  const std::string license = NewLicense(8);
  proxy_.Hold();
  std::vector<std::unique_ptr<RawConnection>> parked;
  for (int i = 0; i < 6; ++i) {
    parked.push_back(std::make_unique<RawConnection>(port()));
    const HttpRequest activate =
        Signed("activate", Body(license, "machine-000" + std::to_string(i)));
    ASSERT_TRUE(parked.back()->Write(Serialize(port(), activate)));
  }
  ASSERT_TRUE(proxy_.WaitUntilHolding(kGuard)) << "no request asked Redis";
  ExpectServedWhileHeld();

  proxy_.Release();
  for (auto& connection : parked) EXPECT_OK(connection->Read(kGuard));
}

// The dashboard's read bucket and session live in Redis too.
TEST_F(RedisParking, ADashboardReadParkedOnRedisLetsOtherConnectionsBeServed) {
  Start(Options());
  const std::string license = NewLicense(1);
  const DashboardSession session = DashboardSignIn(port(), license);
  ASSERT_FALSE(session.cookie.empty());
  proxy_.Hold();
  auto parked = Park(DashboardGet(session, "/dashboard/api/license"));
  ExpectServedWhileHeld();

  proxy_.Release();
  const HttpResponse view = parked->Read(kGuard);
  EXPECT_EQ(view.status, 200) << view.Describe();
  EXPECT_NE(view.body.find(license), std::string::npos) << view.Describe();
}

// SIGTERM drains in-flight requests: a parked one is among them, answered once Redis
// answers, and the server then exits cleanly (its Redis workers end before its threads'
// contexts go).
TEST_F(RedisParking, AServerStoppingWaitsForAParkedRequestAndAnswersIt) {
  Start(Options());
  const std::string license = NewLicense(1);
  proxy_.Hold();
  auto parked = Park(Signed("activate", Body(license, "machine-0001")));
  std::thread stopping([this] { EXPECT_EQ(server().Terminate(), 0); });
  EXPECT_TRUE(server().LogEventually("draining in-flight requests"));

  proxy_.Release();
  EXPECT_OK(parked->Read(kGuard));
  stopping.join();
}

}  // namespace
}  // namespace bb
