// Issue 4: several instances share nonces and rate-limit buckets through Redis
// (--redis), and what happens while Redis is away: nonce checks fail closed (503 1708),
// rate limits fail open (logged and counted), and both come back by themselves. The
// two instances also share one SQLite file, which SQLite's locking allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <latch>
#include <thread>
#include <utility>

#include "support/fixture.h"
#include "support/free_port.h"
#include "support/redis_server.h"

namespace bb {
namespace {

class SharedState : public BlackboxTest {
 protected:
  ServerOptions WithRedis(ServerOptions o) {
    // A generous timeout: a sanitizer build on a busy machine must not look like an
    // outage. An outage (connection refused) is seen at once whatever the timeout.
    o.args.insert(o.args.end(), {"--redis", redis_.url(), "--redis-timeout", "2000"});
    return o;
  }
  // Both instances must stop cleanly, as the fixture checks for the first.
  static void StopInstance(std::unique_ptr<ServerProcess>& instance) {
    const int status = instance->Terminate();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "second instance: wait status " << status << "\n"
        << instance->log();
  }

  // Starts two instances with these limits and sends `tries` status requests of one
  // license to each in turn; returns how many were admitted. Every other answer must be
  // a 429 of `bucket`.
  int AdmittedAcrossTwoInstances(std::string ip_limit, std::string key_limit, int tries,
                                 std::string_view bucket) {
    const ServerOptions options =
        WithRedis(WithRateLimits(std::move(ip_limit), std::move(key_limit)));
    Start(options);
    auto other = StartAnother(options);
    const std::string license = NewLicense(1);
    int admitted = 0;
    for (int i = 0; i < tries; ++i) {
      const HttpResponse r =
          bb::Send(i % 2 == 0 ? port() : other->port(), Signed("status", Body(license)));
      if (r.status == 200) {
        ++admitted;
      } else {
        EXPECT_RATE_LIMITED(r, bucket, 3600);
      }
    }
    StopInstance(other);
    return admitted;
  }

  RedisServer redis_;
};

TEST_F(SharedState, ANonceUsedOnOneInstanceIsRefusedOnTheOther) {
  const ServerOptions options = WithRedis({});
  Start(options);
  auto other = StartAnother(options);
  const std::string license = NewLicense(2);

  const HttpRequest first = Signed("activate", Body(license, "machine-0001"));
  ASSERT_OK(bb::Send(port(), first));
  EXPECT_BAD_SIGNATURE(bb::Send(other->port(), first), "nonce_reused");

  const HttpRequest second = Signed("status", Body(license));
  ASSERT_OK(bb::Send(other->port(), second));
  EXPECT_BAD_SIGNATURE(bb::Send(port(), second), "nonce_reused");
  StopInstance(other);
}

// Dashboard sessions live in Redis too: a browser signed in on one instance is signed in
// on every other (a load balancer may send each request elsewhere), and signing out on
// one ends the session on all.
TEST_F(SharedState, ADashboardSessionOpenedOnOneInstanceServesOnTheOtherUntilSignOut) {
  const ServerOptions options = WithRedis({});
  Start(options);
  auto other = StartAnother(options);
  const std::string license = NewLicense(2);

  const DashboardSession session = DashboardSignIn(port(), license);
  ASSERT_FALSE(session.cookie.empty());

  const HttpRequest view = DashboardGet(session, "/dashboard/api/license");
  const HttpResponse seen = bb::Send(other->port(), view);
  ASSERT_EQ(seen.status, 200) << "the other instance does not know the session\n"
                              << seen.Describe();
  EXPECT_NE(seen.body.find(license), std::string::npos) << seen.Describe();

  HttpRequest sign_out;
  sign_out.method = "DELETE";
  sign_out.target = "/dashboard/api/session";
  sign_out.Set("Cookie", session.cookie);
  sign_out.Set("X-CSRF-Token", session.csrf_token);
  const HttpResponse out = bb::Send(other->port(), sign_out);
  ASSERT_EQ(out.status, 200) << out.Describe();
  const HttpResponse after = bb::Send(port(), view);
  EXPECT_EQ(after.status, 401) << "signed out on one instance, still in on the other\n"
                               << after.Describe();
  StopInstance(other);
}

// The dashboard's read buckets are Redis buckets too: a session reading through both
// instances behind a load balancer gets the one allowance (60 a minute), not one each.
TEST_F(SharedState, ASessionsDashboardReadsCountInOneBucketAcrossBothInstances) {
  const ServerOptions options = WithRedis({});
  Start(options);
  auto other = StartAnother(options);
  const std::string license = NewLicense(2);
  const HttpRequest view = DashboardGet(DashboardSignIn(port(), license), "/dashboard/api/audit");
  int admitted = 0;
  for (int i = 0; i < 100; ++i) {
    const HttpResponse r = bb::Send(i % 2 == 0 ? port() : other->port(), view);
    if (r.status != 200) {
      EXPECT_RATE_LIMITED(r, "session", 60);
      break;
    }
    ++admitted;
  }
  EXPECT_GE(admitted, 60);
  EXPECT_LE(admitted, 65) << "each instance counted its own reads";
  StopInstance(other);
}

TEST_F(SharedState, AKeyLimitOfNAdmitsNInTotalAcrossBothInstances) {
  EXPECT_EQ(AdmittedAcrossTwoInstances("off", "4/1h", 8, "key"), 4);
}

TEST_F(SharedState, AnIpLimitOfNAdmitsNInTotalAcrossBothInstances) {
  EXPECT_EQ(AdmittedAcrossTwoInstances("3/1h", "off", 6, "ip"), 3);
}

TEST_F(SharedState, NoncesOutliveARestartSoRequestsSignedBeforeItAreAccepted) {
  Start(WithRedis({}));
  const std::string license = NewLicense(1);
  SignOptions before_restart;
  before_restart.timestamp = static_cast<std::int64_t>(std::time(nullptr));
  const HttpRequest request = Signed("status", Body(license), kPluginKey, before_restart);
  ASSERT_OK(Send(request));
  // Timestamps are whole seconds: restart in a later one, so the request is dated
  // before the new process started.
  std::this_thread::sleep_until(
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
      std::chrono::seconds(1));
  RestartServer();
  // Redis still knows the nonce, so the replay is refused for what it is ...
  EXPECT_BAD_SIGNATURE(Send(request), "nonce_reused");
  // ... and a new request dated before the restart is accepted, where an in-memory
  // server must refuse it as stale.
  before_restart.nonce.reset();
  EXPECT_OK(Send(Signed("status", Body(license), kPluginKey, before_restart)));
}

TEST_F(SharedState, TwoInstancesOnOneSqliteFileKeepTheCapExactUnderConcurrentActivations) {
  const ServerOptions options = WithRedis({});
  Start(options);
  auto other = StartAnother(options);
  const std::string license = NewLicense(5);
  constexpr int kThreads = 24;
  std::vector<HttpRequest> requests;
  for (int i = 0; i < kThreads; ++i) {
    requests.push_back(Signed("activate", Body(license, "racing-machine-" + std::to_string(i))));
  }
  std::vector<int> statuses(kThreads);
  std::latch go(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    const std::uint16_t p = i % 2 == 0 ? port() : other->port();
    threads.emplace_back([&, i, p] {
      go.arrive_and_wait();
      statuses[i] = bb::Send(p, requests[i], std::chrono::seconds(30)).status;
    });
  }
  for (auto& t : threads) t.join();
  // SQLite serialises the two processes' writers (the busy timeout waits for the other's
  // lock), so the cap holds across processes exactly as within one.
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), 5);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 409), kThreads - 5);
  EXPECT_EQ(Arr(admin().Show(license), "activations").size(), 5u);
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 5u);
  StopInstance(other);
}

TEST_F(SharedState, WhileRedisIsDownNoncesFailClosedAndLimitsFailOpenThenServiceResumes) {
  Start(WithRedis(WithRateLimits("4/1h", "off")));
  const std::string license = NewLicense(1);
  const HttpRequest before = Signed("status", Body(license));
  ASSERT_OK(Send(before));
  for (int i = 0; i < 3; ++i) ASSERT_OK(Status(license));
  EXPECT_RATE_LIMITED(Status(license), "ip", 3600);

  redis_.Stop();
  // The exhausted ip bucket lets the request through (fail open); the nonce check
  // cannot tell a replay, so it refuses (fail closed).
  const HttpResponse down = Status(license);
  EXPECT_API_ERROR(down, 503, 1708, "LICENSE_API_UNAVAILABLE");
  EXPECT_GE(std::stoi(down.header("Retry-After").value_or("0")), 1) << down.Describe();
  EXPECT_API_ERROR(Status(license), 503, 1708, "LICENSE_API_UNAVAILABLE");
  const std::string metrics = AdminGet("/metrics").body;
  EXPECT_GE(MetricSample(metrics, "licensed_redis_nonce_unavailable_total"), 2) << metrics;
  EXPECT_GE(MetricSample(metrics, "licensed_redis_rate_limit_fail_open_total"), 2) << metrics;
  EXPECT_TRUE(server().LogEventually("redis unavailable, rate limits not enforced (fail open)"))
      << server().log();
  EXPECT_TRUE(server().LogEventually("redis unavailable, nonce checks refused")) << server().log();

  // Timestamps are whole seconds, so a request dated in the very second Redis comes
  // back empty cannot be told from a later one (the restart rule's blind spot, as for
  // a restarted server): let the second of `before` end first.
  std::this_thread::sleep_until(
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
      std::chrono::seconds(1));
  redis_.Start();  // empty, as after a restart without persistence
  // Service resumes. Requests dated up to the second in which Redis came back empty
  // are refused as stale (401 1701, the client resends later): their nonces may have
  // been forgotten.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  HttpResponse r;
  do {
    r = Status(license);
    if (r.status == 503) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (r.status == 401) std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  } while ((r.status == 503 || r.status == 401) && std::chrono::steady_clock::now() < deadline);
  EXPECT_OK(r);
  EXPECT_TRUE(server().LogEventually("redis recovered: nonce checks work again")) << server().log();
  // A replay of the request from before the outage: Redis forgot its nonce, but its
  // date gives it away.
  EXPECT_API_ERROR(Send(before), 401, 1701, "STALE_TIMESTAMP");
  // The ip bucket (empty again, 4 an hour) is enforced again.
  bool limited = false;
  for (int i = 0; i < 4 && !limited; ++i) limited = Status(license).status == 429;
  EXPECT_TRUE(limited);
}

TEST_F(SharedState, ServeDoesNotStartWithoutItsRedisAndNeverPrintsItsPassword) {
  const std::string unreachable =
      "redis://:hunter2-secret@127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const CommandResult r = RunCommand(
      {LicensedBinary(), "serve", "--listen", "127.0.0.1:0", "--store", store(), "--signing-key",
       kPluginKey.id + "=" + kPluginKey.secret, "--redis", unreachable});
  EXPECT_EQ(r.exit_code, 1) << r.Describe();
  EXPECT_NE(r.err.find("cannot use redis at 127.0.0.1"), std::string::npos) << r.Describe();
  EXPECT_EQ((r.out + r.err).find("hunter2"), std::string::npos) << r.Describe();

  const CommandResult bad = RunCommand({LicensedBinary(), "serve", "--store", store(),
                                        "--signing-key", kPluginKey.id + "=" + kPluginKey.secret,
                                        "--redis", "rediss://:hunter2-secret@host"});
  EXPECT_EQ(bad.exit_code, 2) << bad.Describe();
  EXPECT_EQ((bad.out + bad.err).find("hunter2"), std::string::npos) << bad.Describe();
}

}  // namespace
}  // namespace bb
