// Offline activation in the SDK (docs/protocol.md §21; issue 21 items 3, 5, 7): request
// and deactivation files, installing an activation file in the machine-wide directory,
// the start-up check answering from it with no network (source offline), the 14-day
// warning, the clock set back, the deactivation deleting the file first; through the C++
// core, through the C ABI's C++ wrapper, and a file checked by an independent Ed25519
// implementation (Python's `cryptography`). No server runs: the URL is a closed port, so
// any network use would show as a failure, and the files are signed here with OpenSSL
// over `v1-activation-file\n` + payload, as the server signs them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <random>

#include "auth/armour.h"
#include "auth/base64.h"
#include "auth/offline_file.h"
#include "auth/request_signature.h"
#include "core/timestamp.h"
#include "license_client.h"
#include "license_client/license_client.hpp"
#include "loopback_stand_ins.h"
#include "platform/private_file.h"
#include "support/process.h"
#include "test_ed25519_key.h"

namespace licensed::client {
namespace {

namespace json = boost::json;

constexpr int64_t kDay = 24 * 60 * 60;
constexpr int64_t kStart = 1'790'000'000;
const std::string kLicense = "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const std::string kMachine(64, 'c');

// An Ed25519 key of the test's own, standing in for the server's response key.
class FileSigner {
 public:
  std::string public_key_base64() const { return key_.public_key_base64(); }
  // An activation file (docs/protocol.md §21.3) for `machine`, issued at `issued` for `days`.
  std::string File(const std::string& machine, int64_t issued, int64_t days,
                   const std::string& product = "reverb") const {
    const json::object payload{
        {"id", "00112233445566778899aabbccddeeff"},
        {"licenseKey", kLicense},
        {"product", json::object{{"slug", product}, {"name", "Reverb Pro"}}},
        {"machine", json::object{{"id", machine}, {"name", nullptr}}},
        {"status", "ACTIVE"},
        {"entitlements",
         json::array{json::object{{"code", "pro"}, {"expiresAt", nullptr}, {"active", true}}}},
        {"max", 2},
        {"licenseExpiresAt", nullptr},
        {"issuedAt", format_timestamp(issued * 1000)},
        {"expiresAt", format_timestamp((issued + days * kDay) * 1000)},
        {"requestTimestamp", format_timestamp((issued - 30) * 1000)},
        {"requestNonce", "0123456789abcdef0123"}};
    return Signed(json::serialize(payload));
  }
  std::string Signed(const std::string& payload) const {
    const Ed25519Signature sig = key_.Sign(std::string(kActivationFileSigningPrefix) + payload);
    const json::object envelope{
        {"v", 1},
        {"kid", key_.key_id()},
        {"signature", base64_encode(sig.data(), sig.size())},
        {"payload",
         base64_encode(reinterpret_cast<const uint8_t*>(payload.data()), payload.size())}};
    return armour(kActivationFileLabel, json::serialize(envelope));
  }

 private:
  TestEd25519Key key_;
};

class SdkOffline : public ::testing::Test {
 protected:
  SdkOffline() {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() /
           ("sdk-offline-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  ~SdkOffline() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A client of a server that is not there (a closed port), pinned to the test's key.
  ClientConfig Config(const std::string& machine = kMachine) const {
    ClientConfig c;
    c.url = "http://127.0.0.1:9";
    c.key_id = "plugin-2026";
    c.secret = "test-secret";
    c.license_key = kLicense;
    c.machine_id = machine;
    c.product = "reverb";
    c.public_key = signer_.public_key_base64();
    c.cache_dir = dir_ / "cache";
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
  FileSigner signer_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kStart * 1000);
};

TEST_F(SdkOffline, ARequestFileIsSignedAsAnActivateRequestForThisMachine) {
  const auto client = Make(Config());
  const Answer a = client->write_offline_request();
  ASSERT_TRUE(a.ok()) << a.message;
  EXPECT_LT(a.file_text.size(), 1024u);
  const auto read = read_offline_request(a.file_text);
  ASSERT_TRUE(read.has_value()) << a.file_text;
  EXPECT_EQ(read->kind, OfflineFileKind::kRequest);
  EXPECT_EQ(read->machine_id, kMachine);
  EXPECT_EQ(read->license_key, kLicense);
  EXPECT_EQ(read->timestamp, kStart);
  EXPECT_EQ(read->body.find("machineName"), std::string::npos)
      << "docs/protocol.md §21.8: no machine name";
  EXPECT_EQ(read->signature, sign_request("test-secret", {"POST", "/api/v1/license/activate",
                                                          "plugin-2026", std::to_string(kStart),
                                                          read->nonce, sha256_hex(read->body)}));
  EXPECT_NE(read_offline_request(client->write_offline_request().file_text)->nonce, read->nonce)
      << "a fresh nonce per request";
}

TEST_F(SdkOffline, AnInstalledFileAnswersTheStartUpCheckWithNoNetworkForEveryPluginFormat) {
  const auto installer = Make(Config());
  const Answer installed = installer->install_activation_file(signer_.File(kMachine, kStart, 90));
  ASSERT_TRUE(installed.ok()) << installed.message;
  EXPECT_EQ(FilesInstalled(), 1u);

  // Another plugin format (a client of its own, as a new process has), same directory.
  ClientConfig other_format = Config();
  other_format.cache_dir = dir_ / "another-users-cache";
  const auto client = Make(other_format);
  const auto began = std::chrono::steady_clock::now();
  const Answer cached = client->check_cached();
  const Answer a = client->check_at_startup();
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(150))
      << "answered without waiting on the network";
  for (const Answer& x : {cached, a}) {
    EXPECT_TRUE(x.ok()) << x.message;
    EXPECT_EQ(x.source, Source::kOffline);
    EXPECT_TRUE(x.valid);
    EXPECT_EQ(x.valid_until, kStart + 90 * kDay);
    EXPECT_TRUE(x.has_entitlement("pro"));
    EXPECT_EQ(x.license_status, "ACTIVE");
    EXPECT_EQ(x.attempts, 0) << "no request was sent";
    EXPECT_EQ(x.warning, "");
  }
  EXPECT_STREQ(source_name(a.source), "offline");
}

TEST_F(SdkOffline, AFileForAnotherMachineOrProductOrOneByteEditedIsNotInstalled) {
  const auto client = Make(Config());
  const Answer other_machine =
      client->install_activation_file(signer_.File(std::string(64, 'd'), kStart, 90));
  EXPECT_EQ(other_machine.outcome, Outcome::kNotUsable);
  EXPECT_EQ(other_machine.message, "the activation file is for another computer");
  const Answer other_product =
      client->install_activation_file(signer_.File(kMachine, kStart, 90, "delay"));
  EXPECT_EQ(other_product.outcome, Outcome::kNotUsable);

  // One byte of the payload changed (the machine's name), the signature kept.
  std::string file = signer_.File(kMachine, kStart, 90);
  auto bytes = dearmour_as(file, kActivationFileLabel);
  json::object envelope = json::parse(std::string(bytes->begin(), bytes->end())).as_object();
  auto payload = base64_decode(envelope["payload"].as_string());
  std::string text(payload->begin(), payload->end());
  text[text.find("\"max\":2") + 6] = '9';
  envelope["payload"] = base64_encode(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  const Answer edited =
      client->install_activation_file(armour(kActivationFileLabel, json::serialize(envelope)));
  EXPECT_EQ(edited.outcome, Outcome::kNotUsable);
  EXPECT_EQ(edited.server_message, "bad_signature");
  EXPECT_EQ(FilesInstalled(), 0u) << "nothing refused is installed";
}

TEST_F(SdkOffline, AnInstalledFileEditedLaterIsIgnored) {
  const auto client = Make(Config());
  ASSERT_TRUE(client->install_activation_file(signer_.File(kMachine, kStart, 90)).ok());
  const std::filesystem::path path = client->activation_file_path();
  std::string text = read_whole_file(path).value();
  ASSERT_TRUE(client->check_cached().ok());
  // A character of the base64 body changed (the line after BEGIN).
  const size_t at = text.find('\n') + 10;
  text[at] = text[at] == 'A' ? 'B' : 'A';
  ASSERT_TRUE(replace_private_file(path, text));
  const Answer a = Make(Config())->check_cached();
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.source, Source::kOffline);
}

TEST_F(SdkOffline, AWarningFrom14DaysBeforeTheFilesEnd) {
  const auto client = Make(Config());
  ASSERT_TRUE(client->install_activation_file(signer_.File(kMachine, kStart, 30)).ok());
  clock_->set((kStart + 16 * kDay - 1) * 1000);
  EXPECT_EQ(Make(Config())->check_cached().warning, "");
  clock_->set((kStart + 16 * kDay) * 1000);
  const Answer a = Make(Config())->check_cached();
  EXPECT_TRUE(a.ok());
  EXPECT_NE(a.warning.find("ends on 2026-10-21"), std::string::npos) << a.warning;
  clock_->set((kStart + 30 * kDay) * 1000);
  EXPECT_FALSE(Make(Config())->check_cached().ok()) << "expired";
}

TEST_F(SdkOffline, AClockSetBackMoreThanADayBehindTheLatestTimeSeenInvalidatesFilesUntilRight) {
  ASSERT_TRUE(Make(Config())->install_activation_file(signer_.File(kMachine, kStart, 90)).ok());
  clock_->set((kStart + 10 * kDay) * 1000);
  ASSERT_TRUE(Make(Config())->check_cached().ok());  // the SDK has seen day 10
  clock_->set((kStart + 9 * kDay - 1) * 1000);
  const Answer set_back = Make(Config())->check_cached();
  EXPECT_FALSE(set_back.ok());
  EXPECT_NE(set_back.source, Source::kOffline);
  clock_->set((kStart + 9 * kDay + 60) * 1000);  // within the day tolerated
  EXPECT_EQ(Make(Config())->check_cached().source, Source::kOffline);
  clock_->set((kStart + 10 * kDay) * 1000);
  EXPECT_EQ(Make(Config())->check_cached().source, Source::kOffline);
}

TEST_F(SdkOffline, AFileIsGoodFromADayBeforeItsIssueTimeOnASlowClock) {
  clock_->set((kStart - kDay + 1) * 1000);
  ASSERT_TRUE(Make(Config())->install_activation_file(signer_.File(kMachine, kStart, 90)).ok());
  clock_->set((kStart - kDay - 1) * 1000);
  EXPECT_FALSE(Make(Config())->install_activation_file(signer_.File(kMachine, kStart, 90)).ok());
}

TEST_F(SdkOffline, DeactivationDeletesTheActivationFileFirstAndNamesIt) {
  const auto client = Make(Config());
  ASSERT_TRUE(client->install_activation_file(signer_.File(kMachine, kStart, 90)).ok());
  ASSERT_EQ(client->check_cached().source, Source::kOffline);
  const Answer a = client->write_offline_deactivation();
  ASSERT_TRUE(a.ok()) << a.message;
  EXPECT_EQ(FilesInstalled(), 0u);
  const auto read = read_offline_request(a.file_text);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->kind, OfflineFileKind::kDeactivation);
  EXPECT_EQ(read->activation_id, "00112233445566778899aabbccddeeff");
  EXPECT_EQ(read->signature, sign_request("test-secret", {"POST", "/api/v1/license/deactivate",
                                                          "plugin-2026", std::to_string(kStart),
                                                          read->nonce, sha256_hex(read->body)}));
  EXPECT_NE(client->check_cached().source, Source::kOffline) << "the file is gone";
  EXPECT_EQ(client->write_offline_deactivation().error, "NO_ACTIVATION_FILE");
}

TEST_F(SdkOffline, WithoutAPinnedKeyNoFileIsInstalled) {
  ClientConfig c = Config();
  c.public_key.clear();
  c.url = "http://127.0.0.1:9";
  const Answer a = Make(c)->install_activation_file(signer_.File(kMachine, kStart, 90));
  EXPECT_EQ(a.outcome, Outcome::kUsage);
}

TEST_F(SdkOffline, TheCAbiInstallsFromAPathAndFromPastedTextAndDeactivates) {
  const std::string dir = (dir_ / "machine-wide").string();
  const std::string public_key = signer_.public_key_base64();
  lc_options o = lc_options_init();
  o.url = "http://127.0.0.1:9";
  o.key_id = "plugin-2026";
  o.secret = "test-secret";
  o.license_key = kLicense.c_str();
  o.machine_id = kMachine.c_str();
  o.public_key = public_key.c_str();
  o.product = "reverb";
  o.offline_dir = dir.c_str();
  const std::string cache = (dir_ / "c-cache").string();
  o.cache_dir = cache.c_str();
  license_client::Client client(o);

  const auto request = client.offline_request();
  ASSERT_TRUE(request.ok()) << request.message();
  EXPECT_EQ(request.file_text()->rfind("-----BEGIN LICENSE ACTIVATION REQUEST-----", 0), 0u);

  // The real clock here: a file issued now.
  const int64_t now = system_now_ms() / 1000;
  const std::filesystem::path saved = dir_ / "activation.lic";
  { std::ofstream(saved) << signer_.File(kMachine, now, 90); }
  const auto from_path = client.install_activation_file(saved.string());
  ASSERT_TRUE(from_path.ok()) << from_path.message();
  const auto pasted = client.install_activation_text("\r\n  " + signer_.File(kMachine, now, 90));
  ASSERT_TRUE(pasted.ok()) << pasted.message();
  const auto check = client.check_cached();
  EXPECT_EQ(check.source(), LC_SOURCE_OFFLINE);
  EXPECT_EQ(check.source_name(), "offline");
  EXPECT_TRUE(check.has_entitlement("pro"));
  EXPECT_FALSE(check.warning().has_value());

  const auto deactivation = client.offline_deactivate();
  ASSERT_TRUE(deactivation.ok()) << deactivation.message();
  EXPECT_EQ(deactivation.file_text()->rfind("-----BEGIN LICENSE DEACTIVATION-----", 0), 0u);
  EXPECT_NE(client.check_cached().source(), LC_SOURCE_OFFLINE);
  EXPECT_EQ(lc_offline_install_text(nullptr, "x", nullptr), LC_USAGE);
}

// Issue 21 item 3: a file checked by an Ed25519 implementation that is not ours (Python's
// `cryptography`, over the same `v1-activation-file\n` + payload), and a file signed by
// it accepted by ours.
TEST_F(SdkOffline, AnIndependentEd25519ImplementationAgreesOnActivationFiles) {
  const std::filesystem::path file = dir_ / "ours.lic";
  { std::ofstream(file) << signer_.File(kMachine, kStart, 90); }
  const std::filesystem::path script = dir_ / "verify.py";
  {
    std::ofstream(script) << R"PY(
import base64, json, re, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey, Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization
from cryptography.exceptions import InvalidSignature
text = open(sys.argv[1]).read()
m = re.fullmatch(r"\s*-----BEGIN LICENSE ACTIVATION-----\s*(.*?)\s*-----END LICENSE ACTIVATION-----\s*", text, re.S)
envelope = json.loads(base64.b64decode("".join(m.group(1).split())))
payload = base64.b64decode(envelope["payload"])
key = Ed25519PublicKey.from_public_bytes(base64.b64decode(sys.argv[2]))
key.verify(base64.b64decode(envelope["signature"]), b"v1-activation-file\n" + payload)
edited = bytearray(payload); edited[5] ^= 1
try:
    key.verify(base64.b64decode(envelope["signature"]), b"v1-activation-file\n" + bytes(edited))
    sys.exit("an edited payload verified")
except InvalidSignature:
    pass
# And a file of Python's own, with the payload our test signed, for the SDK to verify.
own = Ed25519PrivateKey.generate()
raw = own.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
import hashlib
kid = "ed25519-" + hashlib.sha256(raw).hexdigest()[:16]
signed = {"v": 1, "kid": kid, "signature": base64.b64encode(own.sign(b"v1-activation-file\n" + payload)).decode(),
          "payload": envelope["payload"]}
body = base64.b64encode(json.dumps(signed).encode()).decode()
lines = [body[i:i + 64] for i in range(0, len(body), 64)]
open(sys.argv[3], "w").write("\n".join(["-----BEGIN LICENSE ACTIVATION-----", *lines, "-----END LICENSE ACTIVATION-----", ""]))
print(base64.b64encode(raw).decode())
)PY";
  }
  const std::filesystem::path theirs = dir_ / "theirs.lic";
  const std::filesystem::path key_out = dir_ / "theirs.key";
  const std::string command = "python3 '" + script.string() + "' '" + file.string() + "' '" +
                              signer_.public_key_base64() + "' '" + theirs.string() + "' > '" +
                              key_out.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::string their_key = read_whole_file(key_out).value();
  while (!their_key.empty() && their_key.back() == '\n') their_key.pop_back();
  ClientConfig c = Config();
  c.public_key = their_key;
  const Answer a = Make(c)->install_activation_file_from(theirs);
  EXPECT_TRUE(a.ok()) << a.message;
  c.public_key = signer_.public_key_base64();
  EXPECT_EQ(Make(c)->install_activation_file_from(theirs).server_message, "unknown_key");
}

// licensectl's offline commands (docs/protocol.md §16, §21.8): request, verify (exit 0 valid, 3
// not), deactivate (the activation file deleted first), submit (against a stand-in that answers as
// the contract says: the server side is built in parallel).
class LicensectlOffline : public SdkOffline {
 protected:
  bb::CommandResult Run(std::vector<std::string> args) const {
    std::vector<std::string> argv = {LICENSECTL_BINARY, "--key-id", "plugin-2026", "--machine-id",
                                     kMachine};
    argv.insert(argv.end(), args.begin(), args.end());
    return bb::RunCommand(argv, {{"LICENSE_SECRET", "test-secret"}}, std::chrono::seconds(30));
  }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(LicensectlOffline, RequestWritesASignedRequestFileWithNoServer) {
  const std::string out = (dir_ / "request.txt").string();
  const auto r = Run({"--license-key", kLicense, "offline", "request", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  const auto read = read_offline_request(read_whole_file(out).value());
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->machine_id, kMachine);
  EXPECT_EQ(read->signature,
            sign_request("test-secret",
                         {"POST", "/api/v1/license/activate", "plugin-2026",
                          std::to_string(read->timestamp), read->nonce, sha256_hex(read->body)}));
}

TEST_F(LicensectlOffline, VerifyExits0ForAValidFileAnd3OtherwiseAnd2WithoutAKey) {
  const int64_t now = system_now_ms() / 1000;
  const std::string good = Write("good.lic", signer_.File(kMachine, now, 90));
  const std::string key = signer_.public_key_base64();
  const auto ok = Run({"--public-key", key, "offline", "verify", good, "--product", "reverb"});
  EXPECT_EQ(ok.exit_code, 0) << ok.Describe();
  EXPECT_NE(ok.out.find("offline verify: ok"), std::string::npos) << ok.out;
  const auto other = Run({"--public-key", key, "offline", "verify",
                          Write("other.lic", signer_.File(std::string(64, 'e'), now, 90))});
  EXPECT_EQ(other.exit_code, 3) << other.Describe();
  EXPECT_NE(other.err.find("other_machine"), std::string::npos) << other.err;
  const auto expired = Run({"--public-key", key, "--json", "offline", "verify",
                            Write("old.lic", signer_.File(kMachine, now - 100 * kDay, 90))});
  EXPECT_EQ(expired.exit_code, 3) << expired.Describe();
  EXPECT_NE(expired.out.find(R"("error":"expired")"), std::string::npos) << expired.out;
  const auto product = Run({"--public-key", key, "offline", "verify", good, "--product", "delay"});
  EXPECT_EQ(product.exit_code, 3) << product.Describe();
  EXPECT_EQ(Run({"offline", "verify", good}).exit_code, 2) << "no pinned key";
  EXPECT_EQ(Run({"--public-key", "bm90IGEga2V5", "offline", "verify", good}).exit_code, 2)
      << "a pinned key that cannot be read is a configuration error (docs/protocol.md §16)";
}

TEST_F(LicensectlOffline, DeactivateDeletesTheActivationFileFirstThenWritesTheDeactivation) {
  const std::string file = Write("activation.lic", signer_.File(kMachine, kStart, 90));
  const std::string out = (dir_ / "deactivation.txt").string();
  const std::string key = signer_.public_key_base64();
  const auto r =
      Run({"--public-key", key, "offline", "deactivate", "--activation-file", file, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_FALSE(std::filesystem::exists(file));
  const auto read = read_offline_request(read_whole_file(out).value());
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->kind, OfflineFileKind::kDeactivation);
  EXPECT_EQ(read->activation_id, "00112233445566778899aabbccddeeff");
  EXPECT_EQ(read->license_key, kLicense) << "taken from the activation file";
  // Another machine's file is neither deleted nor answered with a deactivation.
  const std::string other = Write("other.lic", signer_.File(std::string(64, 'e'), kStart, 90));
  const auto refused = Run({"--public-key", key, "offline", "deactivate", "--activation-file",
                            other, "--out", (dir_ / "no.txt").string()});
  EXPECT_EQ(refused.exit_code, 3) << refused.Describe();
  EXPECT_TRUE(std::filesystem::exists(other));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "no.txt"));
}

TEST_F(LicensectlOffline, SubmitWritesTheActivationFileTheServerAnswersAndMapsRefusals) {
  const std::string request = (dir_ / "request.txt").string();
  ASSERT_EQ(Run({"--license-key", kLicense, "offline", "request", "--out", request}).exit_code, 0);
  const std::string activation = signer_.File(kMachine, kStart, 90);
  const json::object answer{{"ok", true},         {"activationFile", activation},
                            {"status", "ACTIVE"}, {"activations", 1},
                            {"max", 2},           {"licenseKey", kLicense}};
  {
    test::LoopbackServer server(test::HttpAnswer(200, "OK", json::serialize(answer)));
    const std::string out = (dir_ / "activation.lic").string();
    const auto r = Run({"--url", server.Url(), "offline", "submit", request, "--out", out});
    EXPECT_EQ(r.exit_code, 0) << r.Describe();
    EXPECT_EQ(read_whole_file(out).value_or(""), activation);
  }
  {
    const std::string limit =
        R"({"ok":false,"error":"LICENSE_API_LIMIT_REACHED","code":1705,"message":"cap",)"
        R"("activations":2,"max":2,"dashboardUrl":null})";
    test::LoopbackServer server(test::HttpAnswer(409, "Conflict", limit));
    const auto r = Run({"--url", server.Url(), "offline", "submit", request, "--out",
                        (dir_ / "none.lic").string()});
    EXPECT_EQ(r.exit_code, 4) << r.Describe();
    EXPECT_FALSE(std::filesystem::exists(dir_ / "none.lic"));
  }
  const auto not_a_file = Run({"--url", "http://127.0.0.1:9", "offline", "submit",
                               Write("junk.txt", "hello"), "--out", "x"});
  EXPECT_EQ(not_a_file.exit_code, 2) << not_a_file.Describe();
}

}  // namespace
}  // namespace licensed::client
