// The C ABI's promises that need no server: bad options are reported through the error
// buffer, NULL is accepted everywhere and answered with LC_USAGE, 0 or NULL, the result
// of a call that reached no server still reads, and (against a listener of the test's
// own that never answers) the asynchronous check, cancellation and freeing a client
// with calls in flight keep the rules license_client.h states.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <string>
#include <thread>

#include "../loopback_stand_ins.h"
#include "license_client/license_client.h"

namespace {

lc_options Complete() {
  lc_options o = lc_options_init();
  o.url = "http://127.0.0.1:9";  // discard port: nothing answers
  o.key_id = "plugin-2026";
  o.secret = "secret";
  o.license_key = "3f2b8c1e-9d4a-4e7b-8c21-5a6f0d9e1b2c";
  o.machine_id = "c-abi-machine-01";
  o.timeout_ms = 300;
  return o;
}

TEST(CAbi, MissingOptionsAreReportedInTheErrorBuffer) {
  char error[64];
  lc_options o = Complete();
  o.url = nullptr;
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_STREQ(error, "no server URL");
  o = Complete();
  o.public_key = "not a key";
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_NE(std::strstr(error, "public key"), nullptr) << error;
  o = Complete();
  o.struct_size = 0;  // a host that did not start from lc_options_init()
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_NE(std::strstr(error, "lc_options_init"), nullptr) << error;
  char tiny[4];
  EXPECT_EQ(lc_client_new(nullptr, tiny, sizeof tiny), nullptr);
  EXPECT_STREQ(tiny, "no ");  // truncated, still terminated
  EXPECT_EQ(lc_client_new(nullptr, nullptr, 0), nullptr);
}

TEST(CAbi, NullIsAcceptedEverywhere) {
  lc_result* r = reinterpret_cast<lc_result*>(0x1);
  EXPECT_EQ(lc_activate(nullptr, &r), LC_USAGE);
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(lc_check_at_startup(nullptr, nullptr), LC_USAGE);
  EXPECT_EQ(lc_client_machine_id(nullptr), nullptr);
  EXPECT_EQ(lc_result_status(nullptr), LC_USAGE);
  EXPECT_EQ(lc_result_body(nullptr), nullptr);
  EXPECT_EQ(lc_result_activations(nullptr), -1);
  lc_result_free(nullptr);
  lc_client_free(nullptr);
}

TEST(CAbi, NoServerIsUnavailableWithAReadableResult) {
  char error[128];
  const lc_options o = Complete();
  lc_client* c = lc_client_new(&o, error, sizeof error);
  ASSERT_NE(c, nullptr) << error;
  EXPECT_STREQ(lc_client_machine_id(c), "c-abi-machine-01");
  lc_result* r = nullptr;
  EXPECT_EQ(lc_activate(c, &r), LC_UNAVAILABLE);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(lc_result_status(r), LC_UNAVAILABLE);
  EXPECT_EQ(lc_result_http_status(r), 0);
  EXPECT_STREQ(lc_result_error(r), "NETWORK");
  EXPECT_STREQ(lc_result_body(r), "");
  EXPECT_EQ(lc_result_max(r), -1);
  EXPECT_EQ(lc_result_license_status(r), nullptr);
  EXPECT_GE(lc_result_attempts(r), 1);
  lc_result_free(r);
  EXPECT_EQ(lc_deactivate(c, nullptr), LC_UNAVAILABLE) << "a NULL result pointer is fine";
  lc_client_free(c);
}

// A host compiled against the first lc_options (no `product`) is still accepted, and
// plain http:// to a remote host needs a pinned key (review item 5).
TEST(CAbi, AFirstVersionStructIsAcceptedAndRemotePlainHttpRefused) {
  char error[128];
  lc_options o = Complete();
  o.struct_size = static_cast<uint32_t>(offsetof(lc_options, product));
  o.product = "garbage the SDK must not read";
  lc_client* c = lc_client_new(&o, error, sizeof error);
  EXPECT_NE(c, nullptr) << error;
  lc_client_free(c);
  o = Complete();
  o.url = "http://licenses.example.com";
  EXPECT_EQ(lc_client_new(&o, error, sizeof error), nullptr);
  EXPECT_NE(std::strstr(error, "http://"), nullptr) << error;
}

}  // namespace

namespace {

using licensed::client::test::LoopbackServer;
using std::chrono::milliseconds;
using std::chrono::seconds;

// What a callback saw, for the thread that checks it.
struct Seen {
  std::atomic<int> calls{0};
  std::atomic<int> status{-1};
  std::atomic<bool> freed{false};  // set by the test just before lc_client_free returns
  std::atomic<bool> after_free{false};
};

void record(void* user, lc_status status, const lc_result* result) {
  auto* seen = static_cast<Seen*>(user);
  if (seen->freed) seen->after_free = true;
  seen->status = status;
  EXPECT_NE(result, nullptr);
  ++seen->calls;
}

bool WaitUntil(const std::atomic<int>& value, int at_least, milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (value < at_least && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  return value >= at_least;
}

TEST(CAbi, TheAsynchronousCheckCallsItsCallbackOnceAndPollGivesTheSameResult) {
  lc_options o = Complete();
  o.startup_budget_ms = 200;
  lc_client* c = lc_client_new(&o, nullptr, 0);
  ASSERT_NE(c, nullptr);
  Seen seen;
  lc_call* call = lc_check_at_startup_async(c, record, &seen);
  ASSERT_NE(call, nullptr);
  ASSERT_TRUE(WaitUntil(seen.calls, 1, seconds(10)));
  lc_status status = LC_OK;
  lc_result* r = nullptr;
  ASSERT_EQ(lc_call_poll(call, &status, &r), 1);
  EXPECT_EQ(status, LC_UNAVAILABLE);
  EXPECT_EQ(seen.status, LC_UNAVAILABLE);
  EXPECT_EQ(lc_result_source(r), LC_SOURCE_NONE);
  EXPECT_STRNE(lc_result_message(r), "") << "a message a plugin can show";
  lc_result_free(r);
  lc_call_free(call);
  EXPECT_EQ(seen.calls, 1);
  lc_client_free(c);
}

TEST(CAbi, ACheckWithoutCallbackIsPolled) {
  lc_options o = Complete();
  o.startup_budget_ms = 100;
  lc_client* c = lc_client_new(&o, nullptr, 0);
  lc_call* call = lc_check_at_startup_async(c, nullptr, nullptr);
  ASSERT_NE(call, nullptr);
  lc_status status = LC_OK;
  const auto until = std::chrono::steady_clock::now() + seconds(10);
  while (lc_call_poll(call, &status, nullptr) == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(status, LC_UNAVAILABLE);
  lc_call_free(call);
  lc_client_free(c);
}

// A client of a server that accepts and never answers, with 20 s to wait for it.
class CAbiSilentServer : public ::testing::Test {
 protected:
  lc_client* NewClient() {
    lc_options o = Complete();
    o.url = url_.c_str();
    o.timeout_ms = 20000;
    o.startup_budget_ms = 20000;
    return lc_client_new(&o, nullptr, 0);
  }
  // An asynchronous check of `c`, once it is on the network.
  lc_call* CheckOnTheNetwork(lc_client* c, Seen& seen) {
    lc_call* call = lc_check_at_startup_async(c, record, &seen);
    EXPECT_TRUE(silent_.WaitForConnections(1, seconds(10))) << "the check is on the network";
    return call;
  }
  LoopbackServer silent_;
  std::string url_ = silent_.Url();
};

// The rule of license_client.h: lc_client_free returns promptly with a call in flight,
// and the callback is never called once it has returned.
TEST_F(CAbiSilentServer,
       FreeingAClientWithAnAsynchronousCheckInFlightReturnsAtOnceAndTheCallbackNeverComes) {
  lc_client* c = NewClient();
  Seen seen;
  lc_call* call = CheckOnTheNetwork(c, seen);
  const auto start = std::chrono::steady_clock::now();
  lc_client_free(c);
  seen.freed = true;
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, seconds(2)) << "free does not wait for the network";
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(seen.calls, 0);
  EXPECT_FALSE(seen.after_free);
  lc_status status = LC_OK;
  lc_result* r = nullptr;
  EXPECT_EQ(lc_call_poll(call, &status, &r), 1) << "a cancelled call is over";
  EXPECT_EQ(status, LC_UNAVAILABLE);
  EXPECT_STREQ(lc_result_error(r), "CANCELLED");
  lc_result_free(r);
  lc_call_free(call);
}

TEST_F(CAbiSilentServer, CancellingACallStopsItAndItsCallbackNeverComes) {
  lc_client* c = NewClient();
  Seen seen;
  lc_call* call = CheckOnTheNetwork(c, seen);
  lc_call_cancel(call);
  EXPECT_EQ(lc_call_poll(call, nullptr, nullptr), 1);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(seen.calls, 0);
  lc_call_free(call);
  lc_client_free(c);
}

TEST_F(CAbiSilentServer, FreeingAClientWhileAnotherThreadIsBlockedInACallReturnsThatCallAtOnce) {
  lc_client* c = NewClient();
  std::atomic<int> returned{0};
  std::string error;
  std::thread blocked([&] {
    lc_result* r = nullptr;
    EXPECT_EQ(lc_status_check(c, &r), LC_UNAVAILABLE);
    error = lc_result_error(r);
    lc_result_free(r);
    ++returned;
  });
  ASSERT_TRUE(silent_.WaitForConnections(1, seconds(10)));
  const auto start = std::chrono::steady_clock::now();
  lc_client_free(c);
  blocked.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(2))
      << "free and the blocked call return at once, not after the 20 s timeout";
  EXPECT_EQ(returned, 1);
  EXPECT_EQ(error, "CANCELLED");
}

struct FreeFromCallback {
  lc_client* client = nullptr;
  std::atomic<int> done{0};
};

TEST(CAbi, AClientMayBeFreedFromInsideItsOwnCallback) {
  lc_options o = Complete();
  o.startup_budget_ms = 100;
  auto* state = new FreeFromCallback;
  state->client = lc_client_new(&o, nullptr, 0);
  lc_call* call = lc_check_at_startup_async(
      state->client,
      [](void* user, lc_status, const lc_result*) {
        auto* s = static_cast<FreeFromCallback*>(user);
        lc_client_free(s->client);
        ++s->done;
      },
      state);
  ASSERT_TRUE(WaitUntil(state->done, 1, seconds(10)));
  lc_call_free(call);
  delete state;
}

TEST(CAbi, TheCacheOnlyCheckAnswersAtOnceWithoutTheNetwork) {
  LoopbackServer silent;
  const std::string url = silent.Url();
  lc_options o = Complete();
  o.url = url.c_str();
  lc_client* c = lc_client_new(&o, nullptr, 0);
  lc_result* r = nullptr;
  EXPECT_EQ(lc_check_cached(c, &r), LC_UNAVAILABLE);
  EXPECT_STREQ(lc_result_error(r), "NO_ANSWER_YET");
  EXPECT_STRNE(lc_result_message(r), "");
  lc_result_free(r);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(silent.accepted(), 0) << "no connection was made";
  lc_client_free(c);
}

TEST(CAbi, VersionStatusAndSourceHaveTexts) {
  EXPECT_STRNE(lc_version(), "");
  EXPECT_NE(std::strchr(lc_version(), '.'), nullptr) << lc_version();
  for (const lc_status s :
       {LC_OK, LC_USAGE, LC_NOT_USABLE, LC_LIMIT_REACHED, LC_UNAVAILABLE, LC_REFUSED}) {
    EXPECT_STRNE(lc_status_string(s), "") << s;
  }
  EXPECT_STREQ(lc_status_string(static_cast<lc_status>(42)), "unknown status");
  EXPECT_STREQ(lc_source_string(LC_SOURCE_NETWORK), "network");
  EXPECT_STREQ(lc_source_string(LC_SOURCE_CACHE), "cache");
  EXPECT_STREQ(lc_source_string(LC_SOURCE_OFFLINE), "offline");
  EXPECT_STREQ(lc_source_string(LC_SOURCE_NONE), "none");
}

}  // namespace
