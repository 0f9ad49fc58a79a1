// The SDK inside real plugins (the issue "never freeze a host, one slot per computer, one
// check per process"): every budget holds whatever the resolver does (items 1 and 2), the
// instances of a process share one start-up check, cache first (item 3), a kept answer is
// never used past expiresAt or its signed validUntil, nor brought back by a clock set
// back (item 5), and every failure says what it is (item 6).
//
// Time limits here are upper bounds only where the issue asks for one ("returns within
// its budget plus a margin"); the margin is generous (sanitizers, a loaded machine), the
// measured numbers are in client/bench/startup_wall_time.sh's table.

#include <fstream>
#include <future>
#include <latch>
#include <sstream>
#include <thread>

#include "auth/base64.h"
#include "auth/response_signature.h"
#include "core/timestamp.h"
#include "loopback_stand_ins.h"
#include "sdk_fixture.h"
#include "test_ed25519_key.h"

namespace licensed::client::test {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Steady = std::chrono::steady_clock;

// What a budget may be exceeded by before a test calls it a freeze.
constexpr milliseconds kMargin{1000};

milliseconds Since(Steady::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Steady::now() - start);
}

int64_t HoursMs(int h) {
  return std::chrono::duration_cast<milliseconds>(hours(h)).count();
}

// ---------------------------------------------------------------------------------
// Item 1: a DNS server that never answers.

// The member `name=value` of the probe's one-line report.
std::string Field(const std::string& line, const std::string& name) {
  const size_t at = line.find(name + "=");
  if (at == std::string::npos) return "";
  const size_t from = at + name.size() + 1;
  return line.substr(from, line.find(' ', from) - from);
}

class SdkHangingResolver : public SdkTest {
 protected:
  // The timing probe (the C ABI, as a host links it) in a process of its own whose
  // /etc/resolv.conf names a loopback DNS server that swallows every query: glibc's
  // resolver then waits 5 s per try, twice, and libcurl 7.88's lookup thread with it.
  bb::CommandResult ProbeWithSilentDns(int budget_ms, int instances) const {
    return bb::RunCommand({STARTUP_WALL_TIME_BINARY, "--situation", "dns-silent", "--instances",
                           std::to_string(instances), "--budget-ms", std::to_string(budget_ms),
                           "--secret", bb::kPluginKey.secret, "--license-key", bb::RandomUuidV4(),
                           "--machine-id", "dns-machine-0001", "--public-key",
                           "1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=", "--cache-dir",
                           (dir().path() / "probe-cache").string()},
                          {}, seconds(60));
  }
  static void SkipUnlessPrivateResolverConfigWorks(const bb::CommandResult& r) {
    if (r.exit_code == 2 && r.err.find("needs root") != std::string::npos) {
      GTEST_SKIP() << "no mount namespace here for a resolv.conf of the test's own: " << r.err;
    }
  }
};

TEST_F(SdkHangingResolver, TheStartupCheckReturnsWithinItsBudgetWhenTheDnsServerNeverAnswers) {
  for (const int budget_ms : {300, 1500}) {
    SCOPED_TRACE(budget_ms);
    const auto start = Steady::now();
    const bb::CommandResult r = ProbeWithSilentDns(budget_ms, 1);
    const milliseconds process = Since(start);
    SkipUnlessPrivateResolverConfigWorks(r);
    ASSERT_EQ(r.exit_code, 0) << r.Describe();
    EXPECT_EQ(Field(r.out, "status"), "5") << r.out;
    EXPECT_EQ(Field(r.out, "source"), "0") << r.out;
    EXPECT_LE(std::stoll(Field(r.out, "slowest_ms")), budget_ms + kMargin.count()) << r.out;
    // Freeing the client and exiting do not wait for the stuck lookup either (the
    // process would take 10 s and more if they did).
    EXPECT_LE(std::stoll(Field(r.out, "free_ms")), kMargin.count()) << r.out;
    EXPECT_LT(process, milliseconds(budget_ms) + 3 * kMargin) << r.out;
  }
}

TEST_F(SdkHangingResolver, EightInstancesWithADnsServerThatNeverAnswersCostOneBoundedWait) {
  const bb::CommandResult r = ProbeWithSilentDns(500, 8);
  SkipUnlessPrivateResolverConfigWorks(r);
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_LE(std::stoll(Field(r.out, "total_ms")), 500 + kMargin.count()) << r.out;
}

TEST_F(SdkHangingResolver, LicensectlHoldsItsTimeoutWhenTheDnsServerNeverAnswers) {
  const std::string dns = "127.53." + std::to_string(getpid() % 250) + ".2";
  int swallow = -1;
  try {
    swallow = BoundSocket(SOCK_DGRAM, dns.c_str(), 53);
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  const std::filesystem::path conf = dir().path() / "resolv.conf";
  std::ofstream(conf) << "nameserver " << dns << "\n";
  const std::string licensectl = std::string(LICENSECTL_BINARY) +
                                 " --url http://license.test:8080 --key-id plugin-2026"
                                 " --secret s --license-key " +
                                 bb::RandomUuidV4() +
                                 " --machine-id dns-machine-0002 --public-key "
                                 "1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs= --timeout 2s status";
  const auto start = Steady::now();
  const bb::CommandResult r =
      bb::RunCommand({"/usr/bin/unshare", "--mount", "/bin/sh", "-c",
                      "mount --bind " + conf.string() + " /etc/resolv.conf && exec " + licensectl},
                     {{"XDG_CACHE_HOME", (dir().path() / "xdg").string()}}, seconds(60));
  const milliseconds took = Since(start);
  close(swallow);
  if (r.exit_code != 5 && r.err.find("licensectl") == std::string::npos) {
    GTEST_SKIP() << "no mount namespace here: " << r.Describe();
  }
  EXPECT_EQ(r.exit_code, 5) << r.Describe();
  // The whole process, unshare and mount included (and a sanitizer's start-up): 10 s
  // and more before.
  EXPECT_LT(took, seconds(2) + 2 * kMargin) << r.Describe();
}

// The same promise in the process, against a lookup that blocks libcurl itself (as a
// synchronous resolver build of libcurl would): libcurl's own timeout cannot end it, the
// SDK's wait does.
TEST_F(SdkHangingResolver, ACallReturnsWithinItsTimeWhileTheLookupIsStillBlocked) {
  auto release = std::make_shared<std::latch>(1);
  auto inside = std::make_shared<std::atomic<int>>(0);
  ClientConfig config = Config(bb::RandomUuidV4(), "http://license.test:8080");
  config.public_key = "1N1nwWzbFLvnjcPWimY+7ItavGRxfVWzJzZiRjpr9qs=";
  config.startup_budget = milliseconds(300);
  config.timeout = milliseconds(500);
  config.resolver_start = [release, inside] {
    ++*inside;
    release->wait();
  };
  auto client = Make(config);
  auto start = Steady::now();
  const Answer startup = client->check_at_startup();
  EXPECT_LT(Since(start), milliseconds(300) + kMargin);
  EXPECT_EQ(startup.outcome, Outcome::kUnavailable) << Describe(startup);
  start = Steady::now();
  const Answer status = client->status();
  EXPECT_LT(Since(start), milliseconds(500) + kMargin);
  EXPECT_EQ(status.outcome, Outcome::kUnavailable) << Describe(status);
  EXPECT_GE(inside->load(), 2) << "both returned while their lookups were still blocked";
  release->count_down();
  EXPECT_TRUE(client->wait_for_background(seconds(10)));
}

// ---------------------------------------------------------------------------------
// Item 2: no lock across the network; cancellation.

class SdkConcurrency : public SdkTest {};

TEST_F(SdkConcurrency, AStartupCheckIsNotHeldBehindAHeartbeatWaitingOnTheNetwork) {
  LoopbackServer silent;
  ClientConfig config = Config(bb::RandomUuidV4(), silent.Url());
  config.timeout = seconds(20);
  config.startup_budget = milliseconds(300);
  auto client = Make(config);
  std::stop_source stop_heartbeat;
  std::atomic<bool> heartbeat_returned{false};
  Answer heartbeat;
  std::thread background([&] {
    heartbeat = client->heartbeat(stop_heartbeat.get_token());
    heartbeat_returned = true;
  });
  ASSERT_TRUE(silent.WaitForConnections(1, seconds(10))) << "the heartbeat is on the network";
  const Answer cached = client->check_cached();
  EXPECT_EQ(cached.error, "NO_ANSWER_YET") << Describe(cached);
  const Answer startup = client->check_at_startup();
  EXPECT_EQ(startup.outcome, Outcome::kUnavailable) << Describe(startup);
  EXPECT_FALSE(heartbeat_returned) << "the check returned while the heartbeat still waited";
  // Cancelling the heartbeat returns it at once.
  const auto start = Steady::now();
  stop_heartbeat.request_stop();
  background.join();
  EXPECT_LT(Since(start), kMargin);
  EXPECT_EQ(heartbeat.error, "CANCELLED") << Describe(heartbeat);
  client->stop_background();
  EXPECT_TRUE(client->wait_for_background(seconds(10)));
}

// ---------------------------------------------------------------------------------
// Item 3: one check per process, cache first.

class SdkOneCheckPerProcess : public SdkTest {
 protected:
  double StatusRequestsSeen() const {
    const std::string metrics = AdminGet("/metrics").body;
    return std::max(
        0.0,
        bb::MetricSample(metrics, R"(licensed_http_requests_total{route="status",code="200"})"));
  }
};

TEST_F(SdkOneCheckPerProcess, InstancesWithTheSameOptionsShareOneClientAndOthersDoNot) {
  ClientConfig config = Config(bb::RandomUuidV4(), "http://127.0.0.1:9");
  std::string error;
  const auto first = Client::shared(config, error);
  const auto second = Client::shared(config, error);
  EXPECT_EQ(first.get(), second.get());
  config.license_key = bb::RandomUuidV4();
  EXPECT_NE(Client::shared(config, error).get(), first.get());
}

TEST_F(SdkOneCheckPerProcess, EightInstancesLoadingOfflineCostOneBoundedWait) {
  LoopbackServer silent;
  ClientConfig config = Config(bb::RandomUuidV4(), silent.Url());
  config.startup_budget = milliseconds(300);
  config.timeout = seconds(20);
  std::vector<std::shared_ptr<Client>> instances;
  std::vector<Answer> answers;
  const auto start = Steady::now();
  for (int i = 0; i < 8; ++i) {
    std::string error;
    instances.push_back(Client::shared(config, error));
    answers.push_back(instances.back()->check_at_startup());
  }
  EXPECT_LT(Since(start), milliseconds(300) + kMargin) << "one wait of 300 ms, not eight";
  for (const Answer& a : answers) EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  for (size_t i = 1; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i].error, "NO_ANSWER_YET") << "instance " << i << " did not wait";
  }
  EXPECT_EQ(silent.accepted(), 1) << "one status request for the whole process";
}

TEST_F(SdkOneCheckPerProcess, TheFirstInstancesAnswerServesTheOthers) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  ASSERT_TRUE(Make(config)->activate().ok());
  const double before = StatusRequestsSeen();
  std::vector<std::shared_ptr<Client>> instances;
  for (int i = 0; i < 8; ++i) {
    std::string error;
    instances.push_back(Client::shared(config, error));
    const Answer a = instances.back()->check_at_startup();
    EXPECT_TRUE(a.ok()) << i << " " << Describe(a);
    EXPECT_EQ(a.source, Source::kNetwork);
  }
  EXPECT_EQ(StatusRequestsSeen() - before, 1);
}

// Found writing the plugin skeleton: after the start-up check's "not activated", an
// activation from the editor must count for the instances that load next, not the old
// "no" for an hour; and a deactivation the other way round.
TEST_F(SdkOneCheckPerProcess, ActivatingOrDeactivatingInTheProcessReplacesItsAnswer) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  std::string error;
  const auto plugin = Client::shared(config, error);
  const Answer before = plugin->check_at_startup();
  EXPECT_FALSE(before.ok());
  EXPECT_EQ(before.source, Source::kNetwork) << Describe(before);
  ASSERT_TRUE(plugin->activate().ok());
  const Answer next = Client::shared(config, error)->check_at_startup();
  EXPECT_TRUE(next.ok()) << "the next instance sees the activation: " << Describe(next);
  ASSERT_TRUE(plugin->wait_for_background(seconds(10)));
  ASSERT_TRUE(plugin->deactivate().ok());
  const Answer after = Client::shared(config, error)->check_at_startup();
  EXPECT_FALSE(after.ok()) << "the next instance sees the deactivation: " << Describe(after);
}

// A background refresh whose "valid" left the server before a deactivation but arrives
// after it must not write the cache the deactivation emptied (seen as a flaky
// InstalledPackage test: the next process found the machine licensed offline).
TEST_F(SdkOneCheckPerProcess, ARefreshAnsweredBeforeADeactivationDoesNotBringBackTheCache) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  std::promise<void> refresh_arrived;
  std::promise<void> deactivated;
  auto released = deactivated.get_future().share();
  std::atomic<bool> first_status{true};
  config.answer_arrived = [&](std::string_view endpoint) {
    if (endpoint != "status" || !first_status.exchange(false)) return;
    refresh_arrived.set_value();
    released.wait_for(seconds(20));
  };
  auto plugin = Make(config);
  ASSERT_TRUE(plugin->activate().ok());
  const Answer startup = plugin->check_at_startup();
  EXPECT_EQ(startup.source, Source::kCache) << Describe(startup);
  ASSERT_EQ(refresh_arrived.get_future().wait_for(seconds(20)), std::future_status::ready);
  EXPECT_TRUE(plugin->deactivate().ok());
  deactivated.set_value();
  ASSERT_TRUE(plugin->wait_for_background(seconds(20)));
  EXPECT_FALSE(AnswerCache(CacheDir()).load(license, config.machine_id).has_value())
      << "the late refresh wrote the deactivated machine's answer back";
  EXPECT_FALSE(Make(config)->check_cached().ok()) << "a new process is not licensed offline";
}

TEST_F(SdkOneCheckPerProcess, AGoodCachedAnswerAnswersAtOnceAndIsRefreshedInTheBackground) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  ASSERT_TRUE(Make(config)->activate().ok()) << "activation writes the cache";
  const double before = StatusRequestsSeen();
  auto plugin = Make(config);
  const Answer first = plugin->check_at_startup();
  EXPECT_TRUE(first.ok()) << Describe(first);
  EXPECT_EQ(first.source, Source::kCache);
  EXPECT_EQ(first.attempts, 0) << "nothing waited for";
  ASSERT_TRUE(plugin->wait_for_background(seconds(10)));
  EXPECT_EQ(StatusRequestsSeen() - before, 1) << "one refresh";
  const Answer later = plugin->check_cached();
  EXPECT_EQ(later.source, Source::kNetwork) << "the refresh's answer serves the next check";
  const auto entry = AnswerCache(CacheDir()).load(license, config.machine_id);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->request.path, "/api/v1/license/status") << "the refresh replaced the activation";
}

TEST_F(SdkOneCheckPerProcess, TheCacheOnlyCheckNeverTouchesTheNetwork) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  ASSERT_TRUE(Make(config)->activate().ok());
  LoopbackServer silent;
  config.url = silent.Url();
  auto plugin = Make(config);
  const Answer a = plugin->check_cached();
  EXPECT_TRUE(a.ok()) << Describe(a);
  EXPECT_EQ(a.source, Source::kCache);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(silent.accepted(), 0);
}

// ---------------------------------------------------------------------------------
// Item 5: offline truth.

// An Ed25519 key of the test's own, to sign answers the server does not make yet
// (validUntil): the SDK pins its public half.
class TestResponseKey {
 public:
  std::string public_key_base64() const { return key_.public_key_base64(); }
  // The X-License-Response-Signature of `body` answering `request_signature` at `t`.
  std::string Sign(const std::string& request_signature, int status, int64_t t,
                   const std::string& body) const {
    const Ed25519Signature sig =
        key_.Sign(response_signing_string(request_signature, status, t, body));
    return format_response_signature(key_.key_id(), t, sig);
  }

 private:
  TestEd25519Key key_;
};

class SdkOfflineTruth : public SdkTest {
 protected:
  // A client of a server that is not there, pinned to the test's key, on a manual clock.
  ClientConfig Offline(const std::string& machine) {
    ClientConfig c = Config(license_, "http://127.0.0.1:9");
    c.machine_id = machine;
    c.public_key = key_.public_key_base64();
    c.clock = clock_;
    c.waiter = std::make_shared<FakeWaiter>();
    c.startup_budget = milliseconds(200);
    return c;
  }
  // Keeps in the cache a status answer signed now by the test's key, with these extra
  // members (e.g. "validUntil" and "expiresAt" as JSON text).
  void KeepSignedStatus(const ClientConfig& c, const std::string& valid_until,
                        const std::string& expires_at = "null") {
    const int64_t now = clock_->now_seconds();
    const std::string path = "/api/v1/license/status";
    const std::string request_body =
        R"({"licenseKey":")" + license_ + R"(","machineId":")" + c.machine_id + R"("})";
    const std::string timestamp = std::to_string(now);
    const std::string nonce = bb::RandomNonce();
    const HeaderList headers =
        signed_request_headers(c.key_id, c.secret, path, timestamp, nonce, request_body);
    std::string request_signature;
    for (const auto& [name, value] : headers) {
      if (name == "X-License-Signature") request_signature = value.substr(3);
    }
    const std::string body =
        R"({"ok":true,"valid":true,"licenseKey":")" + license_ +
        R"(","product":{"slug":"reverb","name":"Reverb Pro"},"status":"ACTIVE","expiresAt":)" +
        expires_at + R"(,"validUntil":)" + valid_until +
        R"(,"activations":1,"max":3,"machine":{"id":")" + c.machine_id +
        R"(","activated":true,"lastSeenAt":null}})";
    const SignedAnswer answer{request_signature,
                              {path, timestamp, nonce, request_body},
                              200,
                              body,
                              key_.Sign(request_signature, 200, now, body)};
    ASSERT_TRUE(AnswerCache(CacheDir()).store(license_, c.machine_id, answer));
  }
  Answer StartAt(const ClientConfig& c, int64_t hours_from_start) {
    clock_->set(start_ms_ + HoursMs(static_cast<int>(hours_from_start)));
    auto client = Make(c);
    Answer a = client->check_at_startup();
    client->stop_background();
    EXPECT_TRUE(client->wait_for_background(seconds(10)));
    return a;
  }
  static std::string Quoted(int64_t unix_seconds) {
    return "\"" + format_timestamp(unix_seconds * 1000) + "\"";
  }

  TestResponseKey key_;
  std::string license_ = bb::RandomUuidV4();
  int64_t start_ms_ = SystemClock().now_ms();
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(start_ms_);
};

TEST_F(SdkOfflineTruth, AnAnswerCarryingValidUntilIsUsedUntilThenAndNeverAfter) {
  const ClientConfig c = Offline("valid-until-0001");
  const int64_t valid_until = clock_->now_seconds() + 48 * 3600;
  KeepSignedStatus(c, Quoted(valid_until));
  const Answer now = StartAt(c, 0);
  EXPECT_TRUE(now.ok()) << Describe(now);
  EXPECT_EQ(now.source, Source::kCache);
  EXPECT_EQ(now.valid_until, valid_until) << "the result says how long it stays good";
  EXPECT_TRUE(StartAt(c, 47).ok());
  EXPECT_EQ(StartAt(c, 48).source, Source::kNone) << "not at validUntil";
  EXPECT_EQ(StartAt(c, 96).source, Source::kNone);
}

TEST_F(SdkOfflineTruth, TheServersValidUntilWinsOverTheLocalGraceEitherWay) {
  ClientConfig c = Offline("valid-until-0002");
  c.grace = std::chrono::hours(24);
  KeepSignedStatus(c, Quoted(clock_->now_seconds() + 30 * 24 * 3600));
  EXPECT_TRUE(StartAt(c, 20 * 24).ok()) << "20 days: longer than the local grace of 1 day";
  ClientConfig d = Offline("valid-until-0003");
  KeepSignedStatus(d, Quoted(clock_->now_seconds() + 3600));
  EXPECT_EQ(StartAt(d, 2).source, Source::kNone) << "an hour's validUntil, not 7 days' grace";
}

TEST_F(SdkOfflineTruth, AnAnswerWhoseValidUntilIsNullIsNeverUsedOffline) {
  const ClientConfig c = Offline("valid-until-0004");
  KeepSignedStatus(c, "null");
  EXPECT_EQ(StartAt(c, 0).source, Source::kNone);
}

TEST_F(SdkOfflineTruth, ACachedAnswerIsNeverUsedPastTheLicensesExpiry) {
  const ClientConfig c = Offline("expires-at-0001");
  const int64_t expires = clock_->now_seconds() + 24 * 3600;
  KeepSignedStatus(c, Quoted(expires + 10 * 24 * 3600), Quoted(expires));
  const Answer before = StartAt(c, 23);
  EXPECT_TRUE(before.ok()) << Describe(before);
  EXPECT_EQ(before.valid_until, expires);
  for (const int hours_later : {25, 72}) {  // 72: the +72 h of the issue
    const Answer after = StartAt(c, hours_later);
    EXPECT_FALSE(after.ok()) << hours_later << " h: " << Describe(after);
    EXPECT_FALSE(after.valid) << hours_later << " h";
    EXPECT_FALSE(after.valid_until.has_value()) << hours_later << " h";
  }
}

// Past the license's expiry the kept answer is no "yes", but it is a signed "expired":
// offline, the start-up check and check_cached say so (with the reason) instead of "no
// answer", and never grant use.
TEST_F(SdkOfflineTruth, ACachedAnswerPastTheLicensesExpiryIsReportedExpiredAndNotUsable) {
  const ClientConfig c = Offline("expires-at-0003");
  const int64_t expires = clock_->now_seconds() + 24 * 3600;
  KeepSignedStatus(c, Quoted(expires), Quoted(expires));
  ASSERT_TRUE(StartAt(c, 23).ok());
  for (const int hours_later : {24, 25, 24 * 30}) {
    clock_->set(start_ms_ + HoursMs(hours_later));
    auto client = Make(c);
    const Answer cached = client->check_cached();
    const Answer startup = client->check_at_startup();
    client->stop_background();
    EXPECT_TRUE(client->wait_for_background(seconds(10)));
    for (const Answer& a : {cached, startup}) {
      EXPECT_EQ(a.outcome, Outcome::kNotUsable) << hours_later << " h: " << Describe(a);
      EXPECT_EQ(a.source, Source::kCache) << hours_later << " h";
      EXPECT_EQ(a.license_status, "EXPIRED") << hours_later << " h";
      EXPECT_EQ(a.error, "EXPIRED");
      EXPECT_EQ(a.message, "this license has expired: renew it to go on using the plugin");
      EXPECT_FALSE(a.valid);
      EXPECT_FALSE(a.valid_until.has_value()) << "no use granted";
      EXPECT_EQ(a.expires_at, expires);
    }
  }
}

// A validUntil (grace) that ran out before the license's expiry says nothing about the
// license: still no answer, as before.
TEST_F(SdkOfflineTruth, AGraceThatRanOutBeforeTheLicensesExpiryIsStillNoAnswer) {
  const ClientConfig c = Offline("expires-at-0004");
  const int64_t now = clock_->now_seconds();
  KeepSignedStatus(c, Quoted(now + 3600), Quoted(now + 30 * 24 * 3600));
  const Answer a = StartAt(c, 2);
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.source, Source::kNone);
}

// Set back by less than the 24 h tolerated, the clock still does not make an answer
// good again: expiry is measured by the latest time the SDK has seen.
TEST_F(SdkOfflineTruth, AClockSetBackDoesNotBringAnExpiredAnswerBack) {
  const ClientConfig c = Offline("expires-at-0002");
  const int64_t expires = clock_->now_seconds() + 24 * 3600;
  KeepSignedStatus(c, Quoted(expires + 10 * 24 * 3600), Quoted(expires));
  for (const int hours_from_start : {30, 20}) {  // 20: the clock set back 10 hours
    const Answer a = StartAt(c, hours_from_start);
    EXPECT_FALSE(a.ok()) << hours_from_start << " h: " << Describe(a);
    EXPECT_EQ(a.license_status, "EXPIRED") << hours_from_start << " h: measured by the latest "
                                           << "time seen";
    EXPECT_FALSE(a.valid_until.has_value());
  }
}

// The real server signs validUntil (its default offlineGrace, 14 days, here before
// expiresAt): answers serve offline until then, not for the SDK's own 7-day grace.
TEST_F(SdkOfflineTruth, ActivationAtTheStudioIsEnoughToPlayTheGigOffline) {
  Start();
  const std::string license = NewLicense(3, bb::kProduct, bb::TimestampFromNow(hours(24 * 30)));
  ClientConfig config = Config(license);
  config.public_key = SigningPublicKey();
  config.clock = clock_;
  const Answer activated = Make(config)->activate();
  ASSERT_TRUE(activated.ok()) << Describe(activated);
  ASSERT_TRUE(activated.signed_at.has_value());
  ASSERT_TRUE(activated.valid_until.has_value());
  EXPECT_NEAR(static_cast<double>(*activated.valid_until),
              static_cast<double>(*activated.signed_at + 14 * 24 * 3600), 2.0);
  Stop();
  clock_->advance_ms(HoursMs(24 * 3));
  const Answer gig = Make(config)->check_at_startup();
  EXPECT_TRUE(gig.ok()) << Describe(gig);
  EXPECT_EQ(gig.source, Source::kCache);
  EXPECT_TRUE(gig.valid);
  EXPECT_EQ(gig.valid_until, activated.valid_until);
}

TEST_F(SdkOfflineTruth, DeactivatingThisMachineDropsItsKeptAnswer) {
  Start();
  ClientConfig config = Config(NewLicense(3));
  config.public_key = SigningPublicKey();
  auto client = Make(config);
  ASSERT_TRUE(client->activate().ok());
  ASSERT_EQ(client->check_cached().source, Source::kCache);
  ASSERT_TRUE(client->deactivate().ok());
  EXPECT_EQ(Make(config)->check_cached().source, Source::kNone);
}

// ---------------------------------------------------------------------------------
// Item 6: diagnostics.

class SdkDiagnostics : public SdkTest {
 protected:
  // licensectl status against `url`, with `extra` flags.
  bb::CommandResult LicensectlStatus(const std::string& url, std::vector<std::string> extra) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY,
                                     "--url",
                                     url,
                                     "--key-id",
                                     "plugin-2026",
                                     "--secret",
                                     "s",
                                     "--license-key",
                                     bb::RandomUuidV4(),
                                     "--machine-id",
                                     "diagnostics-0001"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("status");
    return bb::RunCommand(argv, {{"XDG_CACHE_HOME", (dir().path() / "xdg").string()}});
  }
};

TEST_F(SdkDiagnostics, EveryFailureCarriesAnErrorAndAMessageAPluginCanShow) {
  Start();
  const std::string license = NewLicense(1);
  const Answer not_activated = Make(Config(license))->status();
  EXPECT_EQ(not_activated.outcome, Outcome::kNotUsable);
  EXPECT_EQ(not_activated.message, "this computer is not activated: activate it");
  EXPECT_FALSE(not_activated.error.empty());
  ASSERT_TRUE(Make(Config(license))->activate().ok());
  const Answer full = Make(Config(license))->activate();
  EXPECT_NE(full.message.find("deactivate one"), std::string::npos) << Describe(full);
  const Answer unknown = Make(Config(bb::RandomUuidV4()))->status();
  EXPECT_NE(unknown.message.find("not known"), std::string::npos) << Describe(unknown);
  admin().SetStatus(license, "SUSPENDED");
  const Answer suspended = Make(Config(license))->status();
  EXPECT_EQ(suspended.message, "this license is suspended: it cannot be used (contact the vendor)");
  ClientConfig wrong = Config(license);
  wrong.secret = "not the secret";
  const Answer refused = Make(wrong)->status();
  EXPECT_NE(refused.message.find("key id or secret"), std::string::npos) << Describe(refused);
  Stop();
  ClientConfig down = Config(license, "http://127.0.0.1:9");
  down.timeout = milliseconds(300);
  const Answer unreachable = Make(down)->status();
  EXPECT_EQ(unreachable.error, "NETWORK");
  EXPECT_NE(unreachable.message.find("could not be reached"), std::string::npos)
      << Describe(unreachable);
}

TEST_F(SdkDiagnostics, AProxysBadGatewayIsATransientFailureForTheSdkAndLicensectl) {
  for (const int http : {502, 504}) {
    SCOPED_TRACE(http);
    LoopbackServer proxy(HttpAnswer(http, "Bad Gateway", "<html>upstream down</html>"));
    ClientConfig config = Config(bb::RandomUuidV4(), proxy.Url());
    config.timeout = milliseconds(600);
    config.waiter = std::make_shared<FakeWaiter>();
    const Answer a = Make(config)->status();
    EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
    EXPECT_GE(a.attempts, 2) << "retried as an outage";
    EXPECT_NE(a.message.find("proxy"), std::string::npos) << Describe(a);
    const bb::CommandResult r = LicensectlStatus(proxy.Url(), {"--timeout", "1s"});
    EXPECT_EQ(r.exit_code, 5) << r.Describe();
  }
}

TEST_F(SdkDiagnostics, AnUnreadablePinnedKeyIsAConfigurationErrorBeforeAnyRequest) {
  LoopbackServer silent;
  ClientConfig config = Config(bb::RandomUuidV4(), silent.Url());
  config.public_key = "not a key";
  std::string error;
  EXPECT_EQ(Client::create(config, error), nullptr);
  EXPECT_NE(error.find("pinned public key"), std::string::npos) << error;
  const bb::CommandResult r = LicensectlStatus(silent.Url(), {"--public-key", "not a key"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_NE(r.err.find("pinned public key"), std::string::npos) << r.Describe();
  EXPECT_EQ(silent.accepted(), 0);
}

}  // namespace
}  // namespace licensed::client::test
