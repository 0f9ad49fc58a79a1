// What every dashboard session store does, run against the in-memory one and the Redis
// one (on a real Redis); then what only one of them does.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "dashboard/memory_session_store.h"
#include "dashboard/redis_session_store.h"
#include "http/dashboard_error.h"
#include "support/await_answer.h"
#include "support/redis_server.h"
#include "support/redis_test_keys.h"

namespace licensed {
namespace {

constexpr UnixMillis kStart = 1'795'000'000'000;
constexpr int64_t kLifetime = 60'000;

// A store on a clock the test moves. Redis also expires keys on its own clock, after
// the same lifetime, which these tests never wait for: our clock ends a session first.
struct SessionsUnderTest {
  ManualClock clock{kStart};
  std::unique_ptr<RedisClient> redis;
  std::unique_ptr<SessionStore> store;
};

using Factory = std::function<std::unique_ptr<SessionsUnderTest>()>;

std::unique_ptr<SessionsUnderTest> InMemory() {
  auto t = std::make_unique<SessionsUnderTest>();
  t->store = std::make_unique<MemorySessionStore>(t->clock, kLifetime, 10);
  return t;
}

std::unique_ptr<SessionsUnderTest> InRedis() {
  auto t = std::make_unique<SessionsUnderTest>();
  t->redis = std::make_unique<RedisClient>(bb::ClientOptionsFor(bb::SharedRedis()));
  t->store = std::make_unique<RedisSessionStore>(*t->redis, bb::UniqueKeyPrefix(), t->clock,
                                                 kLifetime, 100);
  return t;
}

class SessionStoreConformance : public ::testing::TestWithParam<std::pair<const char*, Factory>> {
 protected:
  void SetUp() override { t_ = GetParam().second(); }
  SessionStore& sessions() { return *t_->store; }
  ManualClock& clock() { return t_->clock; }
  // The session of that id, failing the test when the store did not answer.
  std::optional<DashboardSession> Find(std::string_view id) {
    auto found = sessions().find(id);
    EXPECT_TRUE(found.ok()) << found.error().message;
    return found.ok() ? found.value() : std::nullopt;
  }
  NewDashboardSession Open(std::string_view key) {
    auto opened = sessions().open(key);
    EXPECT_TRUE(opened.ok()) << opened.error().message;
    return opened.ok() ? opened.value() : NewDashboardSession{};
  }
  // What `start(done)` answers, as a network thread gets it: in memory before the call
  // returns, on the caller's thread (no hop); from Redis on one of the client's workers.
  template <class T, class Start>
  T FromNetworkThread(Start start) {
    auto answer = bb::AwaitAnswer<T>(std::move(start));
    bb::ExpectAnsweredFrom(answer, std::string_view(GetParam().first) == "memory");
    return answer.value ? std::move(*answer.value) : T(Error::internal("no answer"));
  }

 private:
  std::unique_ptr<SessionsUnderTest> t_;
};

TEST_P(SessionStoreConformance, OpensASessionWithRandomIdAndCsrfToken) {
  const auto a = Open("key-a");
  const auto b = Open("key-a");
  EXPECT_EQ(a.id.size(), 43u);  // 256 bits in base64url
  EXPECT_NE(a.id, b.id);
  EXPECT_NE(a.csrf_token, b.csrf_token);
  EXPECT_NE(a.id, a.csrf_token);
  const auto found = Find(a.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->license_key, "key-a");
  EXPECT_EQ(found->expires_at, kStart + kLifetime);
  EXPECT_TRUE(csrf_token_matches(*found, a.csrf_token));
  EXPECT_FALSE(csrf_token_matches(*found, b.csrf_token));
  EXPECT_FALSE(csrf_token_matches(*found, ""));
  EXPECT_FALSE(csrf_token_matches(*found, a.csrf_token.substr(1)));
  EXPECT_FALSE(Find("not-a-session"));
  EXPECT_FALSE(Find(""));
}

TEST_P(SessionStoreConformance, ALicenseKeyComesBackAsItWasWhateverItHolds) {
  const std::string odd = "line\nbreak\n\n and : colons \xE2\x9C\x93";
  const auto a = Open(odd);
  const auto found = Find(a.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->license_key, odd);
  EXPECT_TRUE(csrf_token_matches(*found, a.csrf_token));
}

TEST_P(SessionStoreConformance, ASessionEndsAtItsLifetimeOrAtClose) {
  const auto a = Open("key-a");
  const auto b = Open("key-b");
  clock().advance_ms(kLifetime - 1);
  EXPECT_TRUE(Find(a.id));
  EXPECT_TRUE(sessions().close(b.id).ok());
  EXPECT_FALSE(Find(b.id));
  EXPECT_TRUE(sessions().close(b.id).ok()) << "closing twice is no error";
  clock().advance_ms(1);
  EXPECT_FALSE(Find(a.id));
}

TEST_P(SessionStoreConformance, SessionsOpenedFoundAndClosedFromANetworkThreadAreTheSame) {
  using Found = Result<std::optional<DashboardSession>>;
  const auto opened = FromNetworkThread<Result<NewDashboardSession>>(
      [&](Completion<Result<NewDashboardSession>> done) {
        sessions().open_async("key-a", std::move(done));
      });
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const auto found = Find(opened->id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->license_key, "key-a");
  EXPECT_TRUE(csrf_token_matches(*found, opened->csrf_token));
  const auto found_there = FromNetworkThread<Found>(
      [&](Completion<Found> done) { sessions().find_async(opened->id, std::move(done)); });
  ASSERT_TRUE(found_there.ok() && found_there.value()) << "not found from a network thread";
  EXPECT_EQ(found_there.value()->license_key, "key-a");
  const auto closed = FromNetworkThread<Status>(
      [&](Completion<Status> done) { sessions().close_async(opened->id, std::move(done)); });
  EXPECT_TRUE(closed.ok());
  EXPECT_FALSE(Find(opened->id));
}

TEST_P(SessionStoreConformance, ASignInLinkIsTakenOnceAndNamesTheLicenseAndTheRefusedMachine) {
  const SignInLink link{"key\nwith a newline", "ci-runner-\xE2\x80\xAE-42", "CI runner"};
  auto token = sessions().open_link(link);
  ASSERT_TRUE(token.ok()) << token.error().message;
  EXPECT_TRUE(is_session_id(token.value())) << "256 random bits in base64url";
  auto other = sessions().open_link(link);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(token.value(), other.value());
  auto taken = sessions().take_link(token.value());
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  ASSERT_TRUE(taken.value());
  EXPECT_EQ(taken.value()->license_key, link.license_key);
  EXPECT_EQ(taken.value()->machine_id, link.machine_id);
  EXPECT_EQ(taken.value()->machine_name, link.machine_name);
  auto again = sessions().take_link(token.value());
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again.value()) << "a link signs in once";
  auto unknown = sessions().take_link("not-a-link");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown.value());
}

TEST_P(SessionStoreConformance, ASignInLinkEndsAfterItsMinutes) {
  auto kept = sessions().open_link({"key-a", "machine-1", ""});
  auto late = sessions().open_link({"key-a", "machine-2", ""});
  ASSERT_TRUE(kept.ok() && late.ok());
  clock().advance_ms(kSignInLinkMs - 1);
  auto in_time = sessions().take_link(kept.value());
  ASSERT_TRUE(in_time.ok() && in_time.value());
  EXPECT_EQ(in_time.value()->machine_name, "");
  clock().advance_ms(1);
  auto too_late = sessions().take_link(late.value());
  ASSERT_TRUE(too_late.ok());
  EXPECT_FALSE(too_late.value());
}

TEST_P(SessionStoreConformance, ASignInLinkOpenedAndTakenFromANetworkThreadIsTheSame) {
  using Taken = Result<std::optional<SignInLink>>;
  const auto token =
      FromNetworkThread<Result<std::string>>([&](Completion<Result<std::string>> done) {
        sessions().open_link_async({"key-a", "machine-1", "Studio"}, std::move(done));
      });
  ASSERT_TRUE(token.ok()) << token.error().message;
  const auto taken = FromNetworkThread<Taken>(
      [&](Completion<Taken> done) { sessions().take_link_async(token.value(), std::move(done)); });
  ASSERT_TRUE(taken.ok() && taken.value());
  EXPECT_EQ(taken.value()->machine_id, "machine-1");
}

INSTANTIATE_TEST_SUITE_P(Stores, SessionStoreConformance,
                         ::testing::Values(std::make_pair("memory", Factory(InMemory)),
                                           std::make_pair("redis", Factory(InRedis))),
                         [](const auto& info) { return std::string(info.param.first); });

TEST(MemorySessionStore, AtCapacityTheExpiredGoFirstThenTheOldest) {
  ManualClock clock(kStart);
  MemorySessionStore sessions(clock, kLifetime, 2);
  auto live = [&](const Result<NewDashboardSession>& s) {
    return s.ok() && sessions.find(s->id).ok() && sessions.find(s->id).value().has_value();
  };
  const auto first = sessions.open("k1");
  clock.advance_ms(10);
  const auto second = sessions.open("k2");
  clock.advance_ms(10);
  const auto third = sessions.open("k3");
  EXPECT_EQ(sessions.size(), 2u);
  EXPECT_FALSE(live(first));
  EXPECT_TRUE(live(second));
  EXPECT_TRUE(live(third));
  clock.advance_ms(kLifetime);
  const auto fourth = sessions.open("k4");
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_TRUE(live(fourth));
}

// Redis only: while it is away nobody is signed in by mistake, and nothing is opened.
TEST(RedisSessionStore, WhileRedisIsDownTheStoreAnswersUnavailableAndThenResumes) {
  bb::RedisServer server;
  ManualClock clock(kStart);
  RedisClient client(bb::ClientOptionsFor(server));
  RedisSessionStore sessions(client, bb::UniqueKeyPrefix(), clock, kLifetime, 100);
  const auto a = sessions.open("key-a");
  ASSERT_TRUE(a.ok());
  server.Stop();
  const auto found = sessions.find(a->id);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.error().code, StatusCode::kUnavailable);
  // Whoever holds a cookie is not told where Redis is or what it said (the operator is).
  const ApiError answer = to_dashboard_error(found.error(), DashboardStep::kSignedIn);
  EXPECT_EQ(answer.code, ErrorCode::kUnavailable);
  EXPECT_EQ(answer.message.find("127.0.0.1"), std::string::npos) << answer.message;
  EXPECT_EQ(answer.message.find("redis"), std::string::npos) << answer.message;
  EXPECT_NE(found.error().message.find("redis"), std::string::npos) << found.error().message;
  EXPECT_FALSE(sessions.open("key-b").ok());
  EXPECT_FALSE(sessions.close(a->id).ok());
  // The lookup a network thread makes answers unavailable alike.
  using Found = Result<std::optional<DashboardSession>>;
  const auto parked = bb::AwaitAnswer<Found>(
      [&](Completion<Found> done) { sessions.find_async(a->id, std::move(done)); });
  ASSERT_TRUE(parked.value.has_value());
  ASSERT_FALSE(parked.value->ok());
  EXPECT_EQ(parked.value->error().code, StatusCode::kUnavailable);
  server.Start();  // empty: Redis kept nothing
  auto again = sessions.find(a->id);
  for (int i = 0; i < 50 && !again.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the client retries later
    again = sessions.find(a->id);
  }
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again.value().has_value());
  EXPECT_TRUE(sessions.open("key-b").ok());
}

// Redis only: one license's sign-ins within a lifetime are bounded, so a leaked key used
// from many addresses cannot fill the Redis the nonces share; other licenses go on.
TEST(RedisSessionStore, ALicenseOpensAtMostItsSignInsPerLifetime) {
  ManualClock clock(kStart);
  RedisClient client(bb::ClientOptionsFor(bb::SharedRedis()));
  RedisSessionStore sessions(client, bb::UniqueKeyPrefix(), clock, kLifetime, 3);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sessions.open("key-a").ok()) << i;
  const auto refused = sessions.open("key-a");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, StatusCode::kRateLimited);
  EXPECT_EQ(to_dashboard_error(refused.error(), DashboardStep::kSignIn).http_status, 429);
  EXPECT_TRUE(sessions.open("key-b").ok());
}

}  // namespace
}  // namespace licensed

namespace licensed {
namespace {

TEST(SignInLinks, AreMadeOnlyForAUrlNamingTheDashboardPage) {
  EXPECT_TRUE(is_dashboard_page_url("https://licenses.example.com/dashboard"));
  EXPECT_TRUE(is_dashboard_page_url("https://licenses.example.com/dashboard/"));
  EXPECT_TRUE(is_dashboard_page_url("https://example.com/licensing/dashboard?lang=de"));
  EXPECT_TRUE(is_dashboard_page_url("http://127.0.0.1:8080/dashboard"));
  EXPECT_FALSE(is_dashboard_page_url("https://example.com/account/activations"));
  EXPECT_FALSE(is_dashboard_page_url("https://example.com/my-dashboard"));
  EXPECT_FALSE(is_dashboard_page_url("https://example.com/dashboard/machines"));
  EXPECT_FALSE(is_dashboard_page_url("https://example.com"));
  EXPECT_FALSE(is_dashboard_page_url("https://example.com?next=/dashboard"));
  EXPECT_FALSE(is_dashboard_page_url("/dashboard"));
}

}  // namespace
}  // namespace licensed
