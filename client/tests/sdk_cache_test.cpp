// Issue 5 item 5 and issue 8 item 4: the start-up check answers from the network within
// its budget, else from the cache within the grace period, and says which; the cache
// keeps the signed answer and verifies it on every read, so one edited byte is enough
// for it to be ignored. Time is injected (a manual wall clock, a fake waiter).
#include <fstream>
#include <sstream>

#include "auth/request_signature.h"
#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

class SdkCache : public SdkTest {
 protected:
  // A client pinned to the server's response key, on a manual clock set to now, with a
  // fake waiter: retries cost no real time.
  std::shared_ptr<Client> Pinned(const std::string& license, const std::string& machine) {
    ClientConfig config = Config(license, url_);
    config.machine_id = machine;
    config.public_key = public_key_;
    config.clock = clock_;
    config.waiter = std::make_shared<FakeWaiter>();
    return Make(config);
  }
  void StartAndCache(const std::string& machine) {
    Start();
    url_ = Url();
    public_key_ = SigningPublicKey();
    license_ = NewLicense(3);
    // Activated by a client without the pinned key, which keeps nothing: the first
    // start-up check finds no cache and asks the network.
    ClientConfig unpinned = Config(license_, url_);
    unpinned.machine_id = machine;
    ASSERT_TRUE(Make(unpinned)->activate().ok());
    auto client = Pinned(license_, machine);
    const Answer first = client->check_at_startup();
    ASSERT_TRUE(first.ok()) << Describe(first);
    ASSERT_EQ(first.source, Source::kNetwork);
    cache_file_ = AnswerCache(CacheDir()).file_for(license_, machine);
    ASSERT_TRUE(std::filesystem::exists(cache_file_));
  }
  // A status answer the server really signed, asked without a machineId (machine:null),
  // as an attacker holding the plugin's HMAC secret could ask for.
  SignedAnswer SignedStatusWithoutMachine() const {
    const std::string path = "/api/v1/license/status";
    const std::string body = "{\"licenseKey\":\"" + license_ + "\"}";
    const std::string nonce = "00112233445566778899aabbccddeeff";
    const std::string timestamp = std::to_string(SystemClock().now_seconds());
    const HeaderList headers = signed_request_headers(bb::kPluginKey.id, bb::kPluginKey.secret,
                                                      path, timestamp, nonce, body);
    std::string request_signature;
    for (const auto& [name, value] : headers) {
      if (name == "X-License-Signature") request_signature = value.substr(3);
    }
    const HttpReply reply = http_exchange(url_ + path, headers, body, std::chrono::seconds(10));
    EXPECT_EQ(reply.status, 200) << reply.error << reply.body;
    EXPECT_NE(reply.body.find("\"machine\":null"), std::string::npos) << reply.body;
    return {request_signature,
            {path, timestamp, nonce, body},
            reply.status,
            reply.body,
            reply.response_signature};
  }
  std::string ReadCache() const {
    std::ifstream in(cache_file_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void WriteCache(const std::string& text) const {
    std::ofstream(cache_file_, std::ios::binary | std::ios::trunc) << text;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(SystemClock().now_ms());
  std::string url_;
  std::string public_key_;
  std::string license_;
  std::filesystem::path cache_file_;
};

TEST_F(SdkCache, StartupCheckAnswersFromTheNetworkAndKeepsTheSignedAnswer) {
  StartAndCache("cache-machine-01");
  const auto entry = AnswerCache(CacheDir()).load(license_, "cache-machine-01");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->status, 200);
  EXPECT_TRUE(entry->signature.has_value());
  EXPECT_EQ(entry->request_signature.size(), 64u) << "the request's HMAC as hex";
  const auto key = parse_response_public_key(public_key_);
  ASSERT_TRUE(key.has_value());
  EXPECT_TRUE(answer_signed_by({pin_ed25519(*key)}, *entry).has_value());
  // Nothing else is left in the directory (written by rename) but the latest time seen.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(CacheDir())) {
    if (e.path().filename() != "latest-time") ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_TRUE(AnswerCache(CacheDir()).latest_time().has_value());
}

// The server signs how long its answer serves (validUntil: 14 days, its default
// offlineGrace): the SDK's own 7-day grace no longer applies to such an answer.
TEST_F(SdkCache, ServerDownAnswersFromTheCacheUntilTheSignedValidUntil) {
  StartAndCache("cache-machine-02");
  Stop();
  clock_->advance_ms(std::chrono::duration_cast<milliseconds>(hours(24 * 6)).count());
  const Answer offline = Pinned(license_, "cache-machine-02")->check_at_startup();
  EXPECT_TRUE(offline.ok()) << Describe(offline);
  EXPECT_EQ(offline.source, Source::kCache);
  EXPECT_TRUE(offline.valid);
  EXPECT_EQ(offline.license_status, "ACTIVE");
  EXPECT_EQ(offline.attempts, 0) << "cache first: the network is not waited for";

  clock_->advance_ms(std::chrono::duration_cast<milliseconds>(hours(24 * 2)).count());
  const Answer past_local_grace = Pinned(license_, "cache-machine-02")->check_at_startup();
  EXPECT_EQ(past_local_grace.source, Source::kCache) << "8 days old, validUntil is 14 days";

  clock_->advance_ms(std::chrono::duration_cast<milliseconds>(hours(24 * 7)).count());
  const Answer expired = Pinned(license_, "cache-machine-02")->check_at_startup();
  EXPECT_EQ(expired.outcome, Outcome::kUnavailable) << "15 days old " << Describe(expired);
  EXPECT_EQ(expired.source, Source::kNone);
}

TEST_F(SdkCache, OneEditedByteMakesTheCachedAnswerIgnored) {
  StartAndCache("cache-machine-04");
  Stop();
  const std::string original = ReadCache();
  // Each edit changes one byte of what the signature covers: the body, the signed time
  // t (to make the answer look younger), the request signature it is bound to; and one
  // of the signature itself.
  const size_t t_at = original.find(", t=");
  ASSERT_NE(t_at, std::string::npos) << original;
  const std::string t_text = original.substr(t_at, 14);
  std::string younger = t_text;
  younger.back() = younger.back() == '9' ? '8' : static_cast<char>(younger.back() + 1);
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"ACTIVE", "ACTIVF"},
      {t_text, younger},
      {"\"requestSignature\":\"", "\"requestSignature\":\"x"},
      {"ed25519=", "ed25519=A"}};
  for (const auto& [from, to] : edits) {
    SCOPED_TRACE(from);
    std::string edited = original;
    const size_t at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << original;
    // Same length where possible: one byte replaced, not inserted.
    if (from.size() == to.size()) {
      edited.replace(at, from.size(), to);
    } else {
      const size_t pos = at + from.size();
      edited[pos] = edited[pos] == 'A' ? 'B' : 'A';
    }
    ASSERT_NE(edited, original);
    WriteCache(edited);
    const Answer a = Pinned(license_, "cache-machine-04")->check_at_startup();
    EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
    EXPECT_EQ(a.source, Source::kNone);
  }
  WriteCache(original);
  EXPECT_EQ(Pinned(license_, "cache-machine-04")->check_at_startup().source, Source::kCache);
}

// Cache first: the start-up check answers from the cache at once, and the status request
// it sends in the background learns of the refusal, drops the cache, and answers the
// next check of the process.
TEST_F(SdkCache, ARefusalFromTheServerClearsTheCache) {
  StartAndCache("cache-machine-05");
  admin().SetStatus(license_, "REVOKED");
  auto plugin = Pinned(license_, "cache-machine-05");
  const Answer first = plugin->check_at_startup();
  EXPECT_EQ(first.source, Source::kCache) << Describe(first);
  ASSERT_TRUE(plugin->wait_for_background(std::chrono::seconds(10)));
  const Answer revoked = plugin->check_at_startup();
  EXPECT_EQ(revoked.outcome, Outcome::kNotUsable) << Describe(revoked);
  EXPECT_EQ(revoked.source, Source::kNetwork);
  EXPECT_EQ(revoked.license_status, "REVOKED");
  EXPECT_FALSE(std::filesystem::exists(cache_file_));
  Stop();
  const Answer offline = Pinned(license_, "cache-machine-05")->check_at_startup();
  EXPECT_EQ(offline.outcome, Outcome::kUnavailable) << "no old yes outlives a no";
}

TEST_F(SdkCache, ACacheWrittenForAnotherMachineIsNotRead) {
  StartAndCache("cache-machine-06");
  Stop();
  const Answer other = Pinned(license_, "cache-machine-07")->check_at_startup();
  EXPECT_EQ(other.source, Source::kNone) << Describe(other);
}

// Review item 1: a genuinely signed "valid" answer about another machine, copied into
// this machine's cache file, does not unlock this machine.
TEST_F(SdkCache, ASignedAnswerForAnotherMachineCopiedIntoTheCacheIsIgnored) {
  StartAndCache("cache-machine-08");
  const std::string other = ReadCache();
  ASSERT_TRUE(Pinned(license_, "cache-machine-09")->activate().ok());
  Stop();
  cache_file_ = AnswerCache(CacheDir()).file_for(license_, "cache-machine-09");
  WriteCache(other);
  const Answer a = Pinned(license_, "cache-machine-09")->check_at_startup();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.source, Source::kNone);
}

TEST_F(SdkCache, ASignedAnswerWithoutMachineInTheCacheIsIgnored) {
  StartAndCache("cache-machine-10");
  const SignedAnswer anonymous = SignedStatusWithoutMachine();
  Stop();
  const auto key = parse_response_public_key(public_key_);
  ASSERT_TRUE(key.has_value());
  ASSERT_TRUE(answer_signed_by({pin_ed25519(*key)}, anonymous).has_value())
      << "a genuine answer, not a forgery";
  ASSERT_TRUE(AnswerCache(CacheDir()).store(license_, "cache-machine-10", anonymous));
  const Answer a = Pinned(license_, "cache-machine-10")->check_at_startup();
  EXPECT_EQ(a.outcome, Outcome::kUnavailable) << Describe(a);
  EXPECT_EQ(a.source, Source::kNone);
}

TEST_F(SdkCache, AConfiguredProductMustMatchTheAnswer) {
  StartAndCache("cache-machine-11");
  ClientConfig config = Config(license_, url_);
  config.machine_id = "cache-machine-11";
  config.public_key = public_key_;
  config.clock = clock_;
  config.waiter = std::make_shared<FakeWaiter>();
  config.product = std::string(bb::kProduct);
  const Answer same = Make(config)->check_at_startup();
  EXPECT_TRUE(same.ok()) << Describe(same);
  config.product = "another-product";
  const Answer online = Make(config)->check_at_startup();
  EXPECT_FALSE(online.ok()) << "the network answer is about another product " << Describe(online);
  Stop();
  const Answer offline = Make(config)->check_at_startup();
  EXPECT_EQ(offline.source, Source::kNone) << Describe(offline);
  config.product = std::string(bb::kProduct);
  EXPECT_EQ(Make(config)->check_at_startup().source, Source::kCache);
}

// Review item 2: without a pinned key there is no offline grace: nothing is written,
// and a hand-written file is not read.
TEST_F(SdkCache, WithoutAPinnedKeyTheCacheIsNeitherWrittenNorRead) {
  StartAndCache("cache-machine-12");
  const std::string genuine = ReadCache();
  std::filesystem::remove(cache_file_);
  ClientConfig config = Config(license_, url_);
  config.machine_id = "cache-machine-12";
  config.clock = clock_;
  config.waiter = std::make_shared<FakeWaiter>();
  const Answer online = Make(config)->check_at_startup();
  ASSERT_TRUE(online.ok()) << Describe(online);
  EXPECT_EQ(online.source, Source::kNetwork);
  EXPECT_FALSE(std::filesystem::exists(cache_file_)) << "written without a pinned key";
  Stop();
  WriteCache(genuine);
  const Answer offline = Make(config)->check_at_startup();
  EXPECT_EQ(offline.source, Source::kNone) << Describe(offline);
  EXPECT_EQ(offline.outcome, Outcome::kUnavailable);
}

// Review item 3: an answer dated more than 5 minutes ahead of the client's clock is
// refused; a little skew is tolerated.
TEST_F(SdkCache, AnAnswerDatedInTheFutureIsIgnored) {
  StartAndCache("cache-machine-13");
  Stop();
  // docs/protocol.md §15: refused when the local clock is more than 24 h before the signed time.
  clock_->advance_ms(-std::chrono::duration_cast<milliseconds>(hours(23)).count());
  EXPECT_EQ(Pinned(license_, "cache-machine-13")->check_at_startup().source, Source::kCache)
      << "23 hours of skew is tolerated";
  clock_->advance_ms(-std::chrono::duration_cast<milliseconds>(hours(2)).count());
  const Answer a = Pinned(license_, "cache-machine-13")->check_at_startup();
  EXPECT_EQ(a.source, Source::kNone) << "dated 25 hours ahead " << Describe(a);
}

// docs/protocol.md §15: the SDK remembers the latest time it has seen; a clock set back more
// than 24 h behind it makes the cached answer invalid until the clock is right.
TEST_F(SdkCache, AClockSetBackMoreThanADayBehindTheLatestTimeSeenIgnoresTheCache) {
  StartAndCache("cache-machine-14");
  Stop();
  clock_->advance_ms(std::chrono::duration_cast<milliseconds>(hours(72)).count());
  EXPECT_EQ(Pinned(license_, "cache-machine-14")->check_at_startup().source, Source::kCache);
  clock_->advance_ms(-std::chrono::duration_cast<milliseconds>(hours(23)).count());
  EXPECT_EQ(Pinned(license_, "cache-machine-14")->check_at_startup().source, Source::kCache)
      << "23 hours back is tolerated";
  clock_->advance_ms(-std::chrono::duration_cast<milliseconds>(hours(26)).count());
  const Answer a = Pinned(license_, "cache-machine-14")->check_at_startup();
  EXPECT_EQ(a.source, Source::kNone) << "49 hours behind the latest time seen " << Describe(a);
  clock_->advance_ms(std::chrono::duration_cast<milliseconds>(hours(48)).count());
  EXPECT_EQ(Pinned(license_, "cache-machine-14")->check_at_startup().source, Source::kCache)
      << "valid again once the clock is right";
}

}  // namespace
}  // namespace licensed::client::test
