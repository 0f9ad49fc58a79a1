// The SDK built for Windows (scripts/build-windows.sh OUT_DIR --tests) run under Wine
// against the real `licensed` on loopback: licensectl.exe as a CI job runs it, and
// startup_check_host.exe, which loads license_client.dll and makes the plugin's start-up
// check through the C ABI. What travels is the real thing: WinHTTP, CNG's ES256
// verification of the server's answers, the cache under a Windows path.
//
// The build is given by LICENSE_CLIENT_WINDOWS_DIR (ctest's
// sdk.WindowsSdkPassesItsBlackBoxTestsUnderWine sets it); without it every test here
// skips, saying so. One Wine prefix per run of the suite, made in a temporary directory
// (nothing is downloaded) and its wineserver stopped at the end. Timings are printed,
// never asserted.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "loopback_stand_ins.h"
#include "sdk_fixture.h"

namespace licensed::client::test {
namespace {

using bb::CommandResult;
using bb::EnvVars;
using std::chrono::seconds;

// The build under test, or "" when none was given.
std::filesystem::path WindowsBuildDir() {
  const char* dir = std::getenv("LICENSE_CLIENT_WINDOWS_DIR");
  return dir != nullptr && *dir != '\0' ? std::filesystem::path(dir) : std::filesystem::path();
}

// `name` as found on PATH, or "".
std::string OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto candidate = std::filesystem::path(dir) / name;
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

// A Unix path as a Windows program under Wine names it (Wine's Z: drive is /).
std::string WinePath(const std::filesystem::path& path) {
  std::string out = "Z:" + path.string();
  for (char& c : out) {
    if (c == '/') c = '\\';
  }
  return out;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One HTTP message read whole from `fd` (head, then Content-Length bytes of body), within
// `timeout`; "" when the peer closed first or the time ran out.
std::string ReadHttpMessage(int fd, std::chrono::milliseconds timeout) {
  std::string data;
  const auto until = std::chrono::steady_clock::now() + timeout;
  size_t wanted = std::string::npos;
  while (data.size() < wanted) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
    char buf[8192];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return "";
    data.append(buf, static_cast<size_t>(n));
    const size_t head_end = data.find("\r\n\r\n");
    if (wanted == std::string::npos && head_end != std::string::npos) {
      std::string head = data.substr(0, head_end);
      for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const size_t at = head.find("\r\ncontent-length:");
      const size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 17));
      wanted = head_end + 4 + length;
    }
  }
  return data;
}

// A loopback proxy in front of the real server that changes every answer on its way to
// the client: one byte of the body flipped, or the signature header taken out. The
// answers keep their status and length; only what the pinned key signed is wrong.
class TamperingProxy {
 public:
  enum class Change { kFlipABodyByte, kDropTheSignature };

  TamperingProxy(uint16_t upstream_port, Change change)
      : fd_(BoundSocket(SOCK_STREAM)), upstream_port_(upstream_port), change_(change) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~TamperingProxy() {
    stopping_ = true;
    thread_.join();
    for (auto& t : connections_) t.join();
    close(fd_);
  }
  TamperingProxy(const TamperingProxy&) = delete;
  TamperingProxy& operator=(const TamperingProxy&) = delete;

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(PortOf(fd_)); }
  int changed() const { return changed_; }

 private:
  void Loop() {
    while (!stopping_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int c = accept(fd_, nullptr, nullptr);
      if (c >= 0) connections_.emplace_back([this, c] { Serve(c); });
    }
  }

  void Serve(int client) {
    const std::string request = ReadHttpMessage(client, std::chrono::seconds(10));
    const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(upstream_port_);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (!request.empty() && server >= 0 &&
        connect(server, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        write(server, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      std::string answer = Changed(ReadHttpMessage(server, std::chrono::seconds(10)));
      (void)write(client, answer.data(), answer.size());
    }
    if (server >= 0) close(server);
    close(client);
  }

  // The answer as the client gets it: changed, and with the connection closed after it.
  std::string Changed(const std::string& answer) {
    const size_t head_end = answer.find("\r\n\r\n");
    if (head_end == std::string::npos) return answer;
    std::string body = answer.substr(head_end + 4);
    std::stringstream lines(answer.substr(0, head_end));
    std::string head;
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::string lower = line;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.rfind("connection:", 0) == 0) continue;
      if (change_ == Change::kDropTheSignature &&
          lower.rfind("x-license-response-signature:", 0) == 0) {
        continue;
      }
      head += line + "\r\n";
    }
    if (change_ == Change::kFlipABodyByte && !body.empty()) body[body.size() / 2] ^= 0x01;
    ++changed_;
    return head + "Connection: close\r\n\r\n" + body;
  }

  int fd_;
  uint16_t upstream_port_;
  Change change_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> changed_{0};
  std::vector<std::thread> connections_;  // touched by the accepting thread only
  std::thread thread_;
};

class WindowsSdk : public SdkTest {
 protected:
  static void SetUpTestSuite() {
    if (WindowsBuildDir().empty()) return;
    wine_ = new std::string(OnPath("wine"));
    prefix_ = new bb::TempDir();
    // The prefix is made by the first program Wine runs (a few seconds), once per suite.
    const CommandResult made = RunWine({Licensectl(), "--help"});
    if (made.exit_code != 0) std::cerr << "wine licensectl.exe --help: " << made.Describe();
  }
  static void TearDownTestSuite() {
    if (prefix_ == nullptr) return;
    const std::string wineserver = OnPath("wineserver");
    if (!wineserver.empty()) bb::RunCommand({wineserver, "-k"}, WineEnv({}), seconds(30));
    delete prefix_;
    prefix_ = nullptr;
    delete wine_;
    wine_ = nullptr;
  }

  void SetUp() override {
    if (WindowsBuildDir().empty()) {
      GTEST_SKIP() << "LICENSE_CLIENT_WINDOWS_DIR is not set: no Windows build to test (ctest "
                      "sdk.WindowsSdkPassesItsBlackBoxTestsUnderWine gives one)";
    }
    if (wine_->empty()) GTEST_SKIP() << "wine is not on PATH";
    SdkTest::SetUp();
  }

  static std::string Licensectl() {
    return (WindowsBuildDir() / "bin" / "licensectl.exe").string();
  }
  // The start-up check host with the DLL, or with the static library linked in.
  static std::string Host(bool dll = true) {
    return (WindowsBuildDir() / "build" /
            (dll ? "startup_check_host.exe" : "startup_check_host_static.exe"))
        .string();
  }

  static EnvVars WineEnv(EnvVars env) {
    env.emplace_back("WINEPREFIX", (prefix_->path() / "wine").string());
    env.emplace_back("WINEDEBUG", "-all");
    env.emplace_back("WINEDLLOVERRIDES", "mscoree,mshtml=");
    return env;
  }
  // `wine args...`, its output without the carriage returns of a Windows console.
  static CommandResult RunWine(std::vector<std::string> args, const EnvVars& env = {},
                               seconds timeout = seconds(120)) {
    args.insert(args.begin(), *wine_);
    CommandResult r = bb::RunCommand(args, WineEnv(env), timeout);
    for (std::string* text : {&r.out, &r.err}) {
      text->erase(std::remove(text->begin(), text->end(), '\r'), text->end());
    }
    return r;
  }

  // licensectl.exe with this server's URL (or `url`), key id and secret, plus `args`.
  CommandResult RunLicensectl(const std::vector<std::string>& args, const std::string& url = "") {
    std::vector<std::string> argv = {
        Licensectl(),      "--url",    url.empty() ? Url() : url, "--key-id",
        bb::kPluginKey.id, "--secret", bb::kPluginKey.secret};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunWine(argv);
  }
  static std::vector<std::string> For(const std::string& license, const std::string& machine,
                                      std::vector<std::string> rest) {
    std::vector<std::string> out = {"--license-key", license, "--machine-id", machine};
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }

  // The server's ES256 public key as /api/v1/license/public-keys publishes it: the key a
  // Windows plugin pins (CNG has no Ed25519).
  std::string Es256PublicKey() const {
    const bb::HttpResponse r = GetPublicKeys();
    const bb::json::value v = bb::ParseJson(r.body);
    for (const auto& key : bb::Arr(v, "keys")) {
      if (bb::Str(key, "alg") == "ES256") return bb::Str(key, "publicKey");
    }
    ADD_FAILURE() << "the server publishes no ES256 key: " << r.Describe();
    return "";
  }

  // startup_check_host.exe: the start-up check of a plugin loading license_client.dll.
  CommandResult RunHost(const std::string& url, const std::string& license,
                        const std::string& machine, const std::string& public_key,
                        const std::string& host = Host(), int budget_ms = 5000) const {
    return RunWine({host}, {{"LICENSE_SERVER_URL", url},
                            {"LICENSE_KEY_ID", bb::kPluginKey.id},
                            {"LICENSE_SECRET", bb::kPluginKey.secret},
                            {"LICENSE_KEY", license},
                            {"LICENSE_MACHINE_ID", machine},
                            {"LICENSE_PUBLIC_KEY", public_key},
                            {"LICENSE_CACHE_DIR", WinePath(CacheDir())},
                            {"LICENSE_STARTUP_BUDGET_MS", std::to_string(budget_ms)}});
  }

  static std::string* wine_;
  static bb::TempDir* prefix_;
};

std::string* WindowsSdk::wine_ = nullptr;
bb::TempDir* WindowsSdk::prefix_ = nullptr;

TEST_F(WindowsSdk, LicensectlActivatesBeatsChecksAndDeactivatesWithThePinnedEs256Key) {
  Start();
  const std::string license = NewLicense(2);
  const std::string key = Es256PublicKey();
  const CommandResult activated =
      RunLicensectl(For(license, "windows-runner-01", {"--public-key", key, "activate"}));
  EXPECT_EQ(activated.exit_code, 0) << activated.Describe();
  EXPECT_NE(activated.out.find("activate: ok, license ACTIVE, 1 of 2 machines activated"),
            std::string::npos)
      << activated.Describe();
  for (const char* command : {"heartbeat", "status", "deactivate"}) {
    const CommandResult r =
        RunLicensectl(For(license, "windows-runner-01", {"--public-key", key, command}));
    EXPECT_EQ(r.exit_code, 0) << command << r.Describe();
    EXPECT_NE(r.out.find(std::string(command) + ": ok"), std::string::npos) << r.Describe();
  }
  EXPECT_TRUE(bb::Arr(admin().Show(license), "activations").empty());
}

TEST_F(WindowsSdk, LicensectlExits4WhenTheLicenseIsFull) {
  bb::ServerOptions options;
  options.args = {"--dashboard-url", "https://example.com/account/activations"};
  Start(options);
  const std::string license = NewLicense(1);
  const std::string key = Es256PublicKey();
  ASSERT_EQ(
      RunLicensectl(For(license, "windows-cap-0001", {"--public-key", key, "activate"})).exit_code,
      0);
  const CommandResult r =
      RunLicensectl(For(license, "windows-cap-0002", {"--public-key", key, "activate"}));
  EXPECT_EQ(r.exit_code, 4) << r.Describe();
  EXPECT_NE(r.err.find("1 of 1 machines"), std::string::npos) << r.Describe();
  EXPECT_NE(r.err.find("https://example.com/account/activations"), std::string::npos);
}

TEST_F(WindowsSdk, ATamperedOrUnsignedAnswerIsNoAnswer) {
  Start();
  const std::string license = NewLicense(2);
  const std::string key = Es256PublicKey();
  ASSERT_EQ(
      RunLicensectl(For(license, "windows-mitm-001", {"--public-key", key, "activate"})).exit_code,
      0);
  for (const auto change :
       {TamperingProxy::Change::kFlipABodyByte, TamperingProxy::Change::kDropTheSignature}) {
    TamperingProxy proxy(port(), change);
    const CommandResult r = RunLicensectl(
        For(license, "windows-mitm-001", {"--public-key", key, "--timeout", "3s", "status"}),
        proxy.Url());
    EXPECT_EQ(r.exit_code, 5) << r.Describe();
    EXPECT_NE(r.err.find("not signed by the pinned key"), std::string::npos) << r.Describe();
    EXPECT_GE(proxy.changed(), 1) << "the answers went through the proxy";
  }
  // Without a proxy the same command succeeds: the key and the answers are right.
  const CommandResult direct =
      RunLicensectl(For(license, "windows-mitm-001", {"--public-key", key, "status"}));
  EXPECT_EQ(direct.exit_code, 0) << direct.Describe();
}

TEST_F(WindowsSdk, AnEd25519PinnedKeyIsAConfigurationErrorThatSaysToPinTheEs256Key) {
  Start();
  const std::string license = NewLicense(1);
  const CommandResult r = RunLicensectl(
      For(license, "windows-ed-00001", {"--public-key", SigningPublicKey(), "status"}));
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_NE(r.err.find("ES256"), std::string::npos) << r.Describe();
}

// The start-up check of a plugin (the DLL through the C ABI): from the network while the
// server is up, then from the cache, verified again with CNG, once it is down; a cache
// file changed on disk is no answer.
TEST_F(WindowsSdk, TheStartupCheckIsServedFromTheCacheWhenTheServerIsDown) {
  Start();
  const std::string license = NewLicense(1);
  const std::string key = Es256PublicKey();
  const std::string url = Url();
  ASSERT_EQ(
      RunLicensectl(For(license, "windows-plugin-01", {"--public-key", key, "activate"})).exit_code,
      0);
  auto start = std::chrono::steady_clock::now();
  const CommandResult online = RunHost(url, license, "windows-plugin-01", key);
  const double online_process = SecondsSince(start);
  EXPECT_EQ(online.exit_code, 0) << online.Describe();
  EXPECT_NE(online.out.find("source=network"), std::string::npos) << online.Describe();
  Stop();
  start = std::chrono::steady_clock::now();
  const CommandResult offline = RunHost(url, license, "windows-plugin-01", key);
  const double offline_process = SecondsSince(start);
  EXPECT_EQ(offline.exit_code, 0) << offline.Describe();
  EXPECT_NE(offline.out.find("source=cache"), std::string::npos) << offline.Describe();
  std::cout << "start-up check under wine, server up: " << online.out
            << "  (the whole process: " << online_process << " s)\n"
            << "start-up check under wine, server down, from the cache: " << offline.out
            << "  (the whole process: " << offline_process << " s)\n";
  // Each cache file edited: the check no longer trusts it, and the server is down.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CacheDir())) {
    if (entry.path().filename().string().rfind("status-", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("ACTIVE");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, 6, "ACTIVA");
    std::ofstream(entry.path(), std::ios::trunc) << text;
    ++files;
  }
  EXPECT_EQ(files, 1);
  const CommandResult edited = RunHost(url, license, "windows-plugin-01", key);
  EXPECT_EQ(edited.exit_code, 5) << edited.Describe();
  EXPECT_EQ(edited.out.find("source=cache"), std::string::npos) << edited.Describe();
}

// The one-file option: the static library linked into the host, nothing beside it.
TEST_F(WindowsSdk, TheSdkLinkedStaticallyIntoAHostChecksLikeTheDll) {
  Start();
  const std::string license = NewLicense(1);
  const std::string key = Es256PublicKey();
  ASSERT_EQ(
      RunLicensectl(For(license, "windows-static-1", {"--public-key", key, "activate"})).exit_code,
      0);
  const CommandResult r = RunHost(Url(), license, "windows-static-1", key, Host(/*dll=*/false));
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find("source=network"), std::string::npos) << r.Describe();
}

// docs/sdk-windows.md's osslsigncode recipe, with a self-signed certificate and no
// timestamp (no network here): the signed DLL verifies and still loads and checks.
TEST_F(WindowsSdk, ACodeSignedDllLoadsAndChecksLikeTheUnsignedOne) {
  const std::string osslsigncode = OnPath("osslsigncode");
  const std::string openssl = OnPath("openssl");
  if (osslsigncode.empty() || openssl.empty()) {
    GTEST_SKIP() << "osslsigncode or openssl is not installed";
  }
  Start();
  const std::string license = NewLicense(1);
  const std::string key = Es256PublicKey();
  ASSERT_EQ(
      RunLicensectl(For(license, "windows-signed-1", {"--public-key", key, "activate"})).exit_code,
      0);
  const auto signed_dir = dir().path() / "signed";
  std::filesystem::create_directories(signed_dir);
  const auto cert = (signed_dir / "cert.pem").string();
  const auto private_key = (signed_dir / "key.pem").string();
  const CommandResult made =
      bb::RunCommand({openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                      private_key, "-out", cert, "-days", "2", "-subj",
                      "/CN=licensed test code signing", "-addext", "extendedKeyUsage=codeSigning"});
  ASSERT_EQ(made.exit_code, 0) << made.Describe();
  const auto dll = signed_dir / "license_client.dll";
  const CommandResult signed_dll = bb::RunCommand(
      {osslsigncode, "sign", "-certs", cert, "-key", private_key, "-h", "sha256", "-n",
       "license_client", "-in", (WindowsBuildDir() / "bin" / "license_client.dll").string(), "-out",
       dll.string()});
  ASSERT_EQ(signed_dll.exit_code, 0) << signed_dll.Describe();
  const CommandResult verified =
      bb::RunCommand({osslsigncode, "verify", "-CAfile", cert, "-in", dll.string()});
  EXPECT_EQ(verified.exit_code, 0) << verified.Describe();
  std::filesystem::copy_file(Host(), signed_dir / "startup_check_host.exe");
  const CommandResult r = RunHost(Url(), license, "windows-signed-1", key,
                                  (signed_dir / "startup_check_host.exe").string());
  EXPECT_EQ(r.exit_code, 0) << r.Describe();
  EXPECT_NE(r.out.find("source=network"), std::string::npos) << r.Describe();
}

TEST_F(WindowsSdk, ASilentServerMakesLicensectlGiveUpWithinItsTimeout) {
  const LoopbackServer silent;
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = RunLicensectl(
      For(bb::RandomUuidV4(), "windows-silent-1", {"--timeout", "2s", "status"}), silent.Url());
  const double took = SecondsSince(start);
  EXPECT_EQ(r.exit_code, 5) << r.Describe();
  EXPECT_GE(silent.accepted(), 1);
  std::cout << "licensectl.exe --timeout 2s against a silent server: exit " << r.exit_code
            << " after " << took << " s (Wine's start included)\n";
}

// The plugin's start-up check against a server that accepts and never answers: the DLL
// gives up when its budget is spent (WinHTTP's blocked call is ended from the waiting
// side), and freeing the client and exiting do not wait for the network.
TEST_F(WindowsSdk, TheStartupCheckReturnsWhenItsBudgetIsSpentOnASilentServer) {
  const LoopbackServer silent;
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = RunHost(silent.Url(), bb::RandomUuidV4(), "windows-silent-2",
                                  /*public_key=*/"", Host(), /*budget_ms=*/800);
  const double took = SecondsSince(start);
  EXPECT_EQ(r.exit_code, 5) << r.Describe();
  EXPECT_NE(r.out.find("source=none"), std::string::npos) << r.Describe();
  EXPECT_GE(silent.accepted(), 1);
  std::cout << "start-up check under wine, budget 800 ms, silent server: " << r.out
            << "  (the whole process, free and exit included: " << took << " s)\n";
}

TEST_F(WindowsSdk, HeartbeatEveryEndsWithExit0OnCtrlC) {
  Start();
  const std::string license = NewLicense(1);
  const std::string key = Es256PublicKey();
  std::vector<std::string> argv = {*wine_,     Licensectl(),         "--url",
                                   Url(),      "--key-id",           bb::kPluginKey.id,
                                   "--secret", bb::kPluginKey.secret};
  for (const auto& a :
       For(license, "windows-job-0001", {"--public-key", key, "heartbeat", "--every", "1s"})) {
    argv.push_back(a);
  }
  ASSERT_EQ(
      RunLicensectl(For(license, "windows-job-0001", {"--public-key", key, "activate"})).exit_code,
      0);
  bb::ServerProcess job(argv, WineEnv({}));
  bool beat = false;
  for (int i = 0; i < 1500 && !beat; ++i) {
    beat = job.log().find("heartbeat: ok") != std::string::npos;
    if (!beat) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(beat) << job.log();
  // Wine turns SIGINT into the console's Ctrl+C event, which SetConsoleCtrlHandler sees.
  ::kill(job.pid(), SIGINT);
  std::optional<int> status;
  for (int i = 0; i < 1000 && !status; ++i) {
    status = job.ExitedOnItsOwn();
    if (!status) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(status.has_value()) << "still running 20 s after Ctrl+C: " << job.log();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status << job.log();
}

}  // namespace
}  // namespace licensed::client::test
