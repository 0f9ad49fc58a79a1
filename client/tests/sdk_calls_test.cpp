// Issue 5 items 3 and 4 against the real server: each call of the contract, every
// outcome a plugin reacts to (409 with its hint, 403 with the status, 1703, 1707, 1700,
// 1702), the 1701 clock correction, 429 with Retry-After, and retries with backoff on
// real 500 and 503 faults and on network errors.
#include <thread>

#include "sdk_fixture.h"
#include "support/activation_age.h"
#include "support/db_lock.h"
#include "support/json_util.h"
#include "support/store_faults.h"

namespace licensed::client::test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class SdkCalls : public SdkTest {};

TEST_F(SdkCalls, ActivateHeartbeatStatusDeactivate) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.machine_name = "Studio PC";
  auto client = Make(config);

  const Answer activated = client->activate();
  ASSERT_TRUE(activated.ok()) << Describe(activated);
  EXPECT_EQ(activated.source, Source::kNetwork);
  EXPECT_EQ(activated.activations, 1);
  EXPECT_EQ(activated.max, 3);
  EXPECT_EQ(activated.license_status, "ACTIVE");
  EXPECT_EQ(activated.attempts, 1);
  EXPECT_EQ(bb::Str(bb::Arr(admin().Show(license), "activations")[0], "name"), "Studio PC");

  const Answer beat = client->heartbeat();
  EXPECT_TRUE(beat.ok()) << Describe(beat);
  const Answer status = client->status();
  EXPECT_TRUE(status.ok()) << Describe(status);
  EXPECT_TRUE(status.valid);

  const Answer released = client->deactivate();
  EXPECT_TRUE(released.ok()) << Describe(released);
  EXPECT_EQ(released.activations, 0);
  // Every call carried a fresh nonce: none was refused as reused.
  EXPECT_EQ(server().log().find("nonce_reused"), std::string::npos);
}

TEST_F(SdkCalls, MachineIdIsDerivedFromTheGuidAndTheVendorWhenNotGiven) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.machine_id.clear();
  config.vendor = "acme-audio";
  config.guid_source = [] {
    return std::optional<std::string>("6a9d3e1c54b24f8ea7c01d2e3f4a5b6c");
  };
  auto first = Make(config);
  ASSERT_TRUE(first->activate().ok());
  // A restart of the host derives the same id: still one activation.
  auto again = Make(config);
  EXPECT_EQ(again->machine_id(), first->machine_id());
  EXPECT_EQ(again->machine_id(),
            derive_machine_id("6a9d3e1c54b24f8ea7c01d2e3f4a5b6c", "acme-audio"));
  const Answer second = again->activate();
  EXPECT_EQ(second.activations, 1) << Describe(second);
  // Without a vendor the key id is the salt.
  config.vendor.clear();
  EXPECT_EQ(Make(config)->machine_id(),
            derive_machine_id("6a9d3e1c54b24f8ea7c01d2e3f4a5b6c", config.key_id));
  // An explicit id overrides the derived one.
  config.machine_id = "explicit-machine-01";
  EXPECT_EQ(Make(config)->machine_id(), "explicit-machine-01");
}

TEST_F(SdkCalls, AVendorNameThatIsNoFolderNameIsRefusedBeforeAnyRequest) {
  Start();
  ClientConfig config = Config(NewLicense(1));
  config.vendor = "../acme";
  std::string error;
  EXPECT_EQ(Client::create(config, error), nullptr);
  EXPECT_NE(error.find("vendor"), std::string::npos) << error;
}

TEST_F(SdkCalls, LimitReachedIsTypedWithCountsAndTheDashboardHint) {
  bb::ServerOptions options;
  options.args = {"--dashboard-url", "https://licenses.example.com/dashboard"};
  Start(options);
  const std::string license = NewLicense(1);
  ASSERT_TRUE(Make(Config(license))->activate().ok());
  const Answer refused = Make(Config(license))->activate();
  EXPECT_EQ(refused.outcome, Outcome::kLimitReached) << Describe(refused);
  EXPECT_EQ(refused.http_status, 409);
  EXPECT_EQ(refused.code, 1705);
  EXPECT_EQ(refused.activations, 1);
  EXPECT_EQ(refused.max, 1);
  // The SDK hands on the link as the server made it: the URL with a one-time sign-in link.
  ASSERT_TRUE(refused.dashboard_url);
  bb::ExpectSignInLink(*refused.dashboard_url, "https://licenses.example.com/dashboard");
  EXPECT_EQ(refused.attempts, 1) << "a 409 is not retried";
}

TEST_F(SdkCalls, InactiveLicenseCarriesItsStatus) {
  Start();
  const std::string license = NewLicense(3);
  admin().SetStatus(license, "SUSPENDED");
  const Answer a = Make(Config(license))->activate();
  EXPECT_EQ(a.outcome, Outcome::kNotUsable) << Describe(a);
  EXPECT_EQ(a.http_status, 403);
  EXPECT_EQ(a.code, 1704);
  EXPECT_EQ(a.license_status, "SUSPENDED");
  EXPECT_EQ(a.attempts, 1);
}

TEST_F(SdkCalls, UnknownKeyAndUnactivatedMachineAreNotUsableAndNotRetried) {
  Start();
  const Answer unknown = Make(Config(bb::RandomUuidV4()))->activate();
  EXPECT_EQ(unknown.outcome, Outcome::kNotUsable) << Describe(unknown);
  EXPECT_EQ(unknown.code, 1703);
  EXPECT_EQ(unknown.attempts, 1);
  const Answer not_activated = Make(Config(NewLicense(3)))->heartbeat();
  EXPECT_EQ(not_activated.outcome, Outcome::kNotUsable) << Describe(not_activated);
  EXPECT_EQ(not_activated.code, 1707);
  EXPECT_EQ(not_activated.attempts, 1);
  const Answer status = Make(Config(NewLicense(3)))->status();
  EXPECT_EQ(status.outcome, Outcome::kNotUsable) << "valid:false " << Describe(status);
  EXPECT_EQ(status.http_status, 200);
  EXPECT_FALSE(status.valid);
}

TEST_F(SdkCalls, WronglySignedAndMalformedRequestsAreRefusedWithoutRetry) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig wrong_secret = Config(license);
  wrong_secret.secret = "not the secret";
  const Answer bad_signature = Make(wrong_secret)->activate();
  EXPECT_EQ(bad_signature.outcome, Outcome::kRefused) << Describe(bad_signature);
  EXPECT_EQ(bad_signature.code, 1700);
  EXPECT_EQ(bad_signature.attempts, 1);

  ClientConfig short_machine = Config(license);
  short_machine.machine_id = "short";  // fewer than 8 code points
  const Answer malformed = Make(short_machine)->activate();
  EXPECT_EQ(malformed.outcome, Outcome::kRefused) << Describe(malformed);
  EXPECT_EQ(malformed.http_status, 400);
  EXPECT_EQ(malformed.code, 1702);
  EXPECT_EQ(malformed.attempts, 1);
}

TEST_F(SdkCalls, StaleTimestampIsCorrectedFromServerTimeAndResentOnce) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  // A client clock an hour behind, far outside the 300 s window.
  const int64_t skew_ms = -3'600'000;
  config.clock = std::make_shared<ManualClock>(SystemClock().now_ms() + skew_ms);
  auto client = Make(config);
  const Answer a = client->activate();
  ASSERT_TRUE(a.ok()) << Describe(a);
  EXPECT_EQ(a.attempts, 2) << "one 1701, one resend";
  EXPECT_NEAR(client->clock_offset_seconds(), 3600, 5);
  // The offset is kept: the next call needs no correction.
  const Answer next = client->heartbeat();
  EXPECT_TRUE(next.ok()) << Describe(next);
  EXPECT_EQ(next.attempts, 1);
}

// A clock that runs backwards an hour on every read: the corrected resend is stale
// again, and the SDK resends only once.
class RunawayClock final : public Clock {
 public:
  explicit RunawayClock(UnixMillis start) : next_(start) {}
  UnixMillis now_ms() const override { return next_.fetch_sub(3'600'000); }

 private:
  mutable std::atomic<UnixMillis> next_;
};

TEST_F(SdkCalls, AStaleTimestampAfterTheOneResendIsRefused) {
  Start();
  ClientConfig config = Config(NewLicense(3));
  config.clock = std::make_shared<RunawayClock>(SystemClock().now_ms() - 3'600'000);
  const Answer a = Make(config)->activate();
  EXPECT_EQ(a.outcome, Outcome::kRefused) << Describe(a);
  EXPECT_EQ(a.code, 1701);
  EXPECT_EQ(a.attempts, 2);
}

TEST_F(SdkCalls, ATooLargeBodyIsRefusedWithoutRetry) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig too_large = Config(license);
  too_large.machine_name = std::string(17 * 1024, 'x');  // body over 16 KiB: 413 1702
  const Answer large = Make(too_large)->activate();
  EXPECT_EQ(large.outcome, Outcome::kRefused) << Describe(large);
  EXPECT_EQ(large.http_status, 413);
  EXPECT_EQ(large.attempts, 1);
}

TEST_F(SdkCalls, ABaseUrlWithAPathPrefixKeepsItAndSignsTheApiPath) {
  Start();
  ClientConfig config = Config(NewLicense(3));
  // A proxy may add a prefix (docs/protocol.md §2): the signed path still starts at /api/.
  config.url = Url() + "/licensing/";
  const Answer a = Make(config)->activate();
  EXPECT_TRUE(a.ok()) << Describe(a);
}

TEST_F(SdkCalls, RateLimitedWaitsRetryAfterWithinTheTimeout) {
  Start(bb::WithRateLimits("off", "1/1s"));
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  auto client = Make(config);
  ASSERT_TRUE(client->activate().ok());
  // The bucket is empty now: the next call is answered 429 Retry-After: 1, waits that
  // (real time: the server's bucket refills in real time), and then succeeds.
  const Answer a = client->heartbeat();
  EXPECT_TRUE(a.ok()) << Describe(a);
  EXPECT_GE(a.attempts, 2) << Describe(a);
}

TEST_F(SdkCalls, RateLimitedBeyondTheTimeoutGivesUpWithoutWaiting) {
  Start(bb::WithRateLimits("off", "1/1h"));
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  auto waiter = std::make_shared<FakeWaiter>();
  config.waiter = waiter;
  auto client = Make(config);
  ASSERT_TRUE(client->activate().ok());
  const Answer a = client->heartbeat();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.code, 1706);
  EXPECT_GT(a.retry_after_seconds, 10);
  EXPECT_EQ(a.attempts, 1);
  EXPECT_TRUE(waiter->sleeps().empty()) << "waited although Retry-After exceeds the timeout";
}

TEST_F(SdkCalls, InternalErrorIsRetriedWithGrowingJitteredBackoffUntilTheTimeout) {
  Start();
  const std::string license = NewLicense(3);
  // A real fault: the license row corrupted in the store file, so the server answers
  // 500 1709 to every request on it.
  bb::CorruptLicenseStatus(db_path(), license);
  ClientConfig config = Config(license);
  auto waiter = std::make_shared<FakeWaiter>();
  config.waiter = waiter;
  config.timeout = seconds(10);
  const Answer a = Make(config)->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.http_status, 500);
  EXPECT_EQ(a.code, 1709);
  const auto sleeps = waiter->sleeps();
  ASSERT_GE(sleeps.size(), 3u);
  EXPECT_EQ(a.attempts, static_cast<int>(sleeps.size()) + 1);
  milliseconds total{0};
  for (size_t i = 0; i < sleeps.size(); ++i) {
    const int64_t window = std::min<int64_t>(4000, 250LL << i);
    EXPECT_GE(sleeps[i].count(), window / 2) << i;
    EXPECT_LE(sleeps[i].count(), window) << i;
    total += sleeps[i];
  }
  EXPECT_LE(total, config.timeout);
}

TEST_F(SdkCalls, LockedStoreIsRetriedUntilItAnswers) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  config.timeout = seconds(60);
  auto client = Make(config);
  Answer a;
  {
    bb::DbLock lock(db_path());
    std::thread caller([&] { a = client->activate(); });
    // The server has answered (at least) one 503 1708 when it logs the locked store.
    for (int i = 0; i < 3000 && server().log().find("store locked") == std::string::npos; ++i) {
      std::this_thread::sleep_for(milliseconds(20));
    }
    lock.Release();
    caller.join();
  }
  ASSERT_TRUE(a.ok()) << Describe(a);
  EXPECT_GE(a.attempts, 2) << Describe(a);
}

TEST_F(SdkCalls, LockedStoreBeyondTheTimeoutGivesUpWithThe503) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  // The server waits 5 s for the lock, then answers 503 1708; the retry after it is cut
  // short by the timeout. What the caller sees is the server's answer, not the cut.
  config.timeout = seconds(8);
  bb::DbLock lock(db_path());
  const Answer a = Make(config)->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.http_status, 503);
  EXPECT_EQ(a.code, 1708);
  EXPECT_GE(a.retry_after_seconds, 1);
  EXPECT_GE(a.attempts, 2);
}

TEST_F(SdkCalls, NetworkErrorsAreRetriedUntilTheTimeout) {
  Start();
  const std::string license = NewLicense(3);
  ClientConfig config = Config(license);
  const std::uint16_t dead_port = port();
  Stop();  // nothing listens there any more
  config.url = "http://127.0.0.1:" + std::to_string(dead_port);
  auto waiter = std::make_shared<FakeWaiter>();
  config.waiter = waiter;
  config.timeout = seconds(5);
  const Answer a = Make(config)->activate();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.http_status, 0);
  EXPECT_EQ(a.error, "NETWORK");
  EXPECT_GE(a.attempts, 3);
  EXPECT_EQ(a.attempts, static_cast<int>(waiter->sleeps().size()) + 1);
}

TEST_F(SdkCalls, ConfigurationErrorsAreReportedNotThrown) {
  std::string error;
  ClientConfig config;
  EXPECT_EQ(Client::create(config, error), nullptr);
  EXPECT_EQ(error, "no server URL");
  config = ClientConfig{};
  config.url = "http://127.0.0.1:1";
  config.key_id = "k";
  config.secret = "s";
  config.license_key = "l";
  config.machine_id = "machine-0001";
  config.public_key = "not a key";
  error.clear();
  EXPECT_EQ(Client::create(config, error), nullptr);
  EXPECT_NE(error.find("public key"), std::string::npos) << error;
}

// docs/protocol.md §10: a plugin that only heartbeats gets back in after its machine was
// reclaimed as stale; it never sees the 1707.
TEST_F(SdkCalls, HeartbeatAfterAReclaimActivatesAgainByItself) {
  Start();
  const std::string license =
      admin().CreateLicense(std::string(bb::kProduct), 2, std::nullopt, "10m");
  auto client = Make(Config(license));
  ASSERT_TRUE(client->activate().ok());
  bb::AgeActivations(store(), license, std::chrono::minutes(11));
  ASSERT_EQ(Activate(license, "other-machine-0001").status, 200);  // reclaims the client's
  const bb::HttpResponse gone = Heartbeat(license, client->machine_id());
  ASSERT_EQ(gone.status, 404) << gone.Describe();

  const Answer back = client->heartbeat();
  ASSERT_TRUE(back.ok()) << Describe(back);
  EXPECT_EQ(back.activations, 2) << Describe(back);
  EXPECT_EQ(AuditRecords(license, "license.reclaim").size(), 1u);
  EXPECT_EQ(AuditRecords(license, "license.activate").size(), 3u);
  EXPECT_TRUE(client->heartbeat().ok());
}

TEST_F(SdkCalls, HeartbeatAfterDeactivateDoesNotTakeTheSlotBack) {
  Start();
  const std::string license = NewLicense(2);
  auto client = Make(Config(license));
  ASSERT_TRUE(client->activate().ok());
  ASSERT_TRUE(client->deactivate().ok());
  const Answer a = client->heartbeat();
  EXPECT_EQ(a.code, 1707) << Describe(a);
}

}  // namespace
}  // namespace licensed::client::test
