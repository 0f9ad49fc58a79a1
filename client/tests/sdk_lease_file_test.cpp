// Borrowed seats in the SDK (docs/protocol.md §27 and §21 "Offline files."; issue 25 item 2):
// a LICENSE LEASE file installed in the machine-wide directory answers the start-up check
// with no network (source lease) until its expiresAt, then stops; a file that was edited,
// copied to another computer, signed as something else or has expired is refused; the
// clock rules are the activation file's (from issuedAt - 24 h, not set back more than
// 24 h behind the latest time seen); checking the borrowed session in deletes the file
// first; a joined seat holds the borrowed seat without the network; the C ABI says
// LC_SOURCE_LEASE. No server runs: the URL is a closed port, so any network use would
// show, and the files are real files in a temporary directory, signed here with OpenSSL
// over `v1-lease-file\n` + payload as the server signs them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/lease_file.h"
#include "core/timestamp.h"
#include "license_client.h"
#include "license_client/license_client.hpp"
#include "loopback_stand_ins.h"
#include "platform/private_file.h"
#include "seat_session.h"
#include "test_ed25519_key.h"

namespace licensed::client {
namespace {

namespace json = boost::json;

constexpr int64_t kDay = 24 * 60 * 60;
constexpr int64_t kStart = 1'790'000'000;
const std::string kLicense = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const std::string kLaptop = "studio-laptop-0001";
const std::string kOtherComputer = "studio-desktop-0002";

// An Ed25519 key of the test's own, standing in for the server's response key.
class LeaseSigner {
 public:
  std::string public_key_base64() const { return key_.public_key_base64(); }
  // A lease file (docs/protocol.md §27) of `machine`'s seat, issued at `issued`, borrowed
  // for `days`, under the session the machine id names (a checkout without sessionId).
  std::string File(const std::string& machine, int64_t issued, int64_t days,
                   std::string_view prefix = kLeaseFileSigningPrefix) const {
    return Signed(Payload(machine, issued, days), prefix);
  }
  static std::string Payload(const std::string& machine, int64_t issued, int64_t days) {
    const json::object payload{
        {"id", "0123456789abcdef0123456789abcdef"},
        {"licenseKey", kLicense},
        {"product", json::object{{"slug", "reverb"}, {"name", "Reverb Pro"}}},
        {"machine", json::object{{"id", machine}, {"name", nullptr}}},
        {"sessionId", machine},
        {"entitlements",
         json::array{json::object{{"code", "pro"}, {"expiresAt", nullptr}, {"active", true}}}},
        {"issuedAt", format_timestamp(issued * 1000)},
        {"expiresAt", format_timestamp((issued + days * kDay) * 1000)}};
    return json::serialize(payload);
  }
  std::string Signed(const std::string& payload,
                     std::string_view prefix = kLeaseFileSigningPrefix) const {
    const Ed25519Signature sig = key_.Sign(std::string(prefix) + payload);
    const json::object envelope{
        {"v", 1},
        {"kid", key_.key_id()},
        {"signature", base64_encode(sig.data(), sig.size())},
        {"payload",
         base64_encode(reinterpret_cast<const uint8_t*>(payload.data()), payload.size())}};
    return armour(kLeaseFileLabel, json::serialize(envelope));
  }

 private:
  TestEd25519Key key_;
};

// `file` with one byte of its payload changed (the borrowed days), the signature kept.
std::string EditedFile(const std::string& file) {
  auto bytes = dearmour_as(file, kLeaseFileLabel);
  json::object envelope = json::parse(std::string(bytes->begin(), bytes->end())).as_object();
  auto payload = base64_decode(envelope["payload"].as_string());
  std::string text(payload->begin(), payload->end());
  const size_t at = text.find("\"expiresAt\":\"") + 13 + 9;  // the day of the month
  text[at] = text[at] == '9' ? '8' : static_cast<char>(text[at] + 1);
  envelope["payload"] = base64_encode(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  return armour(kLeaseFileLabel, json::serialize(envelope));
}

class SdkLeaseFile : public ::testing::Test {
 protected:
  SdkLeaseFile() {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("sdk-lease-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  ~SdkLeaseFile() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A client of a server that is not there (a closed port), pinned to the test's key.
  ClientConfig Config(const std::string& machine = kLaptop) const {
    ClientConfig c;
    c.url = "http://127.0.0.1:9";
    c.key_id = "plugin-2026";
    c.secret = "test-secret";
    c.license_key = kLicense;
    c.machine_id = machine;
    c.product = "reverb";
    c.public_key = signer_.public_key_base64();
    c.cache_dir = dir_ / ("cache-" + machine);
    c.offline_dir = dir_ / "machine-wide";
    c.clock = clock_;
    c.startup_budget = std::chrono::milliseconds(200);
    c.timeout = std::chrono::milliseconds(300);
    return c;
  }
  static std::shared_ptr<Client> Make(ClientConfig config) {
    std::string error;
    auto client = Client::create(std::move(config), error);
    EXPECT_TRUE(client) << error;
    return client;
  }
  size_t FilesInstalled() const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir_ / "machine-wide", ec)) {
      (void)e;
      ++n;
    }
    return n;
  }

  std::filesystem::path dir_;
  LeaseSigner signer_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kStart * 1000);
};

TEST_F(SdkLeaseFile, AnInstalledLeaseFileAnswersTheStartUpCheckWithNoNetworkUntilItEnds) {
  const Answer installed = Make(Config())->install_lease_file(signer_.File(kLaptop, kStart, 3));
  ASSERT_TRUE(installed.ok()) << installed.message;
  EXPECT_EQ(installed.source, Source::kLease);
  EXPECT_EQ(FilesInstalled(), 1u);

  // A new process (a client of its own) on the laptop, off the network.
  const auto client = Make(Config());
  const auto began = std::chrono::steady_clock::now();
  const Answer cached = client->check_cached();
  const Answer a = client->check_at_startup();
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(150))
      << "answered without waiting on the network";
  for (const Answer& x : {cached, a}) {
    EXPECT_TRUE(x.ok()) << x.message;
    EXPECT_EQ(x.source, Source::kLease);
    EXPECT_TRUE(x.valid);
    EXPECT_EQ(x.valid_until, kStart + 3 * kDay);
    EXPECT_EQ(x.license_key, kLicense);
    EXPECT_TRUE(x.has_entitlement("pro"));
    EXPECT_EQ(x.attempts, 0) << "no request was sent";
    EXPECT_EQ(x.warning, "");
  }
  EXPECT_STREQ(source_name(a.source), "lease");

  // The last day: still the borrowed seat, with a warning to show.
  clock_->set((kStart + 3 * kDay - 1) * 1000);
  const Answer last_second = Make(Config())->check_at_startup();
  EXPECT_EQ(last_second.source, Source::kLease) << last_second.message;
  EXPECT_NE(last_second.warning.find("borrowed seat ends at 2026-09-24T"), std::string::npos)
      << last_second.warning;
  // Its expiresAt: the file stops answering (the server is not there: no answer at all).
  clock_->set((kStart + 3 * kDay) * 1000);
  const Answer ended = Make(Config())->check_at_startup();
  EXPECT_FALSE(ended.ok());
  EXPECT_EQ(ended.outcome, Outcome::kUnavailable);
  EXPECT_NE(ended.source, Source::kLease);
}

TEST_F(SdkLeaseFile, AnEditedLeaseFileIsRefusedAndOneEditedAfterInstallingIsIgnored) {
  const auto client = Make(Config());
  const Answer edited = client->install_lease_file(EditedFile(signer_.File(kLaptop, kStart, 3)));
  EXPECT_EQ(edited.outcome, Outcome::kNotUsable);
  EXPECT_EQ(edited.server_message, "bad_signature");
  EXPECT_EQ(edited.message, "the lease file's signature does not verify: it was changed or forged");
  EXPECT_EQ(FilesInstalled(), 0u) << "nothing refused is installed";

  ASSERT_TRUE(client->install_lease_file(signer_.File(kLaptop, kStart, 3)).ok());
  ASSERT_EQ(Make(Config())->check_cached().source, Source::kLease);
  // Someone lengthens the loan in the installed file.
  ASSERT_TRUE(replace_private_file(client->lease_file_path(),
                                   EditedFile(read_whole_file(client->lease_file_path()).value())));
  const Answer a = Make(Config())->check_cached();
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.source, Source::kLease);
}

TEST_F(SdkLeaseFile, ALeaseFileCopiedToAnotherComputerIsRefused) {
  ASSERT_TRUE(Make(Config())->install_lease_file(signer_.File(kLaptop, kStart, 3)).ok());
  // The same directory seen from another computer (the file copied there as it is).
  const auto other = Make(Config(kOtherComputer));
  const Answer a = other->check_at_startup();
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.source, Source::kLease);
  const Answer install = other->install_lease_file(signer_.File(kLaptop, kStart, 3));
  EXPECT_EQ(install.outcome, Outcome::kNotUsable);
  EXPECT_EQ(install.message, "the lease file is for another computer");
  EXPECT_EQ(Make(Config())->check_cached().source, Source::kLease) << "still good on the laptop";
}

TEST_F(SdkLeaseFile, AnExpiredLeaseFileIsRefused) {
  clock_->set((kStart + 3 * kDay) * 1000);
  const auto client = Make(Config());
  const Answer a = client->install_lease_file(signer_.File(kLaptop, kStart, 3));
  EXPECT_EQ(a.outcome, Outcome::kNotUsable);
  EXPECT_EQ(a.server_message, "expired");
  EXPECT_EQ(FilesInstalled(), 0u);
  // Put there by hand, it answers nothing either.
  std::filesystem::create_directories(dir_ / "machine-wide");
  ASSERT_TRUE(replace_private_file(client->lease_file_path(), signer_.File(kLaptop, kStart, 3)));
  EXPECT_NE(Make(Config())->check_cached().source, Source::kLease);
}

TEST_F(SdkLeaseFile, OnlyTheLeaseFilesOwnPrefixAndLabelMakeALeaseFile) {
  const auto client = Make(Config());
  // The payload signed as an activation file is signed over another message.
  const Answer other_prefix =
      client->install_lease_file(signer_.File(kLaptop, kStart, 3, kActivationFileSigningPrefix));
  EXPECT_EQ(other_prefix.outcome, Outcome::kNotUsable);
  EXPECT_EQ(other_prefix.server_message, "bad_signature");
  // A lease file is not an activation file, nor the other way round.
  const std::string lease = signer_.File(kLaptop, kStart, 3);
  EXPECT_EQ(client->install_activation_file(lease).server_message, "malformed");
  EXPECT_EQ(FilesInstalled(), 0u);
}

TEST_F(SdkLeaseFile, TheClockRulesAreTheActivationFilesOnes) {
  // From a day before issuedAt (a slow clock), not before.
  clock_->set((kStart - kDay - 1) * 1000);
  EXPECT_EQ(Make(Config())->install_lease_file(signer_.File(kLaptop, kStart, 3)).server_message,
            "not_yet_valid");
  clock_->set((kStart - kDay + 1) * 1000);
  ASSERT_TRUE(Make(Config())->install_lease_file(signer_.File(kLaptop, kStart, 3)).ok());
  // The SDK saw day 2; a clock then set back more than a day makes the file invalid.
  clock_->set((kStart + 2 * kDay) * 1000);
  ASSERT_EQ(Make(Config())->check_cached().source, Source::kLease);
  clock_->set((kStart + kDay - 1) * 1000);
  EXPECT_NE(Make(Config())->check_cached().source, Source::kLease);
  clock_->set((kStart + 2 * kDay) * 1000);
  EXPECT_EQ(Make(Config())->check_cached().source, Source::kLease);
}

TEST_F(SdkLeaseFile, CheckingTheBorrowedSessionInDeletesTheLeaseFileFirst) {
  const auto client = Make(Config());
  ASSERT_TRUE(client->install_lease_file(signer_.File(kLaptop, kStart, 3)).ok());
  // Another session's checkin leaves the borrowed seat alone.
  EXPECT_FALSE(client->checkin("another-session").ok());
  EXPECT_EQ(FilesInstalled(), 1u);
  // The borrowed session (the machine id): the file goes, even with the server unreachable.
  const Answer a = client->checkin("");
  EXPECT_EQ(a.outcome, Outcome::kUnavailable);
  EXPECT_EQ(FilesInstalled(), 0u);
  EXPECT_NE(client->check_cached().source, Source::kLease);
}

TEST_F(SdkLeaseFile, AJoinedSeatHoldsTheBorrowedSeatWithNoNetwork) {
  ASSERT_TRUE(Make(Config())->install_lease_file(signer_.File(kLaptop, kStart, 3)).ok());
  std::atomic<int> lost{0};
  auto seat = SeatSession::join(Make(Config()), [&](const Answer&) { ++lost; });
  ASSERT_TRUE(seat->session().wait_until_decided(std::chrono::seconds(5)));
  EXPECT_EQ(seat->session().state(), SeatState::kHeld);
  const auto last = seat->session().last_answer();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->source, Source::kLease);
  EXPECT_EQ(last->attempts, 0) << "no checkout was sent";
  EXPECT_EQ(lost.load(), 0);
}

TEST_F(SdkLeaseFile, TheCAbiInstallsALeaseFileAndAnswersWithSourceLease) {
  const std::string dir = (dir_ / "machine-wide").string();
  const std::string public_key = signer_.public_key_base64();
  lc_options o = lc_options_init();
  o.url = "http://127.0.0.1:9";
  o.key_id = "plugin-2026";
  o.secret = "test-secret";
  o.license_key = kLicense.c_str();
  o.machine_id = kLaptop.c_str();
  o.public_key = public_key.c_str();
  o.product = "reverb";
  o.offline_dir = dir.c_str();
  const std::string cache = (dir_ / "c-cache").string();
  o.cache_dir = cache.c_str();
  license_client::Client client(o);

  const auto refused = client.install_lease_text(EditedFile(signer_.File(kLaptop, kStart, 3)));
  EXPECT_EQ(refused.status(), LC_NOT_USABLE);
  // The real clock here: a file issued now, borrowed for three days.
  const int64_t now = system_now_ms() / 1000;
  const auto installed = client.install_lease_text(signer_.File(kLaptop, now, 3));
  ASSERT_TRUE(installed.ok()) << installed.message();
  const auto a = client.check_at_startup();
  EXPECT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a.source(), LC_SOURCE_LEASE);
  EXPECT_STREQ(lc_source_string(LC_SOURCE_LEASE), "lease");
  EXPECT_EQ(a.valid_until(), now + 3 * kDay);
  EXPECT_EQ(client.check_cached().source(), LC_SOURCE_LEASE);
}

}  // namespace
}  // namespace licensed::client
