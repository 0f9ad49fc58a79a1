// docs/protocol.md §18: the ready line and SIGTERM.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "support/fixture.h"

namespace bb {
namespace {

class Lifecycle : public BlackboxTest {
 protected:
  // `licensed serve` on the test's store with `extra` flags, for starts that must fail;
  // one that does not is killed after 10 s.
  CommandResult ServeWith(const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {
        LicensedBinary(), "serve", "--listen",      "127.0.0.1:0",
        "--store",        store(), "--signing-key", kPluginKey.id + "=" + kPluginKey.secret};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, {}, std::chrono::seconds(10));
  }
};

TEST_F(Lifecycle, ReadyLineNamesThePort) {
  Start();
  const std::string line = server().ready_line();
  EXPECT_NE(line.find("listening on 127.0.0.1:"), std::string::npos) << line;
  const auto port_in_line = ParseReadyPort(line);
  ASSERT_TRUE(port_in_line.has_value()) << line;
  EXPECT_NE(*port_in_line, 0);
  EXPECT_EQ(*port_in_line, port());
  const std::string license = NewLicense(1);
  EXPECT_OK(Status(license));
}

TEST_F(Lifecycle, SigtermExitsZero) {
  Start();
  const std::string license = NewLicense(1);
  EXPECT_OK(Activate(license, "machine-0001"));
  const int status = Stop();
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status << " (signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(Lifecycle, SigtermRightAfterStartExitsZero) {
  Start();
  const int status = Stop();
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST_F(Lifecycle, InvalidRateLimitRefusesToStart) {
  const CommandResult r = ServeWith({"--rate-limit-ip", "lots"});
  EXPECT_NE(r.exit_code, 0) << r.Describe();
  EXPECT_EQ(r.err.find("listening on"), std::string::npos) << r.Describe();
  EXPECT_NE(r.exit_code, 128 + SIGKILL) << "still running after 10 s\n" << r.Describe();
}

// A window of 4.6e15 s once overflowed a nonce's expiry (now + two windows, in ms), so
// the same request was accepted again and again: durations are bounded at start.
TEST_F(Lifecycle, AnAbsurdTimestampWindowRefusesToStart) {
  const CommandResult r = ServeWith({"--timestamp-window", "4600000000000000"});
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_NE(r.err.find("--timestamp-window: at most 86400"), std::string::npos) << r.Describe();
  EXPECT_EQ(r.err.find("listening on"), std::string::npos) << r.Describe();
}

TEST_F(Lifecycle, SecretsNeverAppearInTheLog) {
  ServerOptions o;
  o.args = {"--signing-key", kCiKey.id + "=" + kCiKey.secret};
  Start(o);
  const std::string license = NewLicense(1);
  EXPECT_OK(Activate(license, "machine-0001"));
  EXPECT_EQ(Activate(license, "machine-0002").status, 409);
  EXPECT_EQ(Call("status", Body(license), kCiKey).status, 200);
  SignOptions wrong;
  wrong.secret = "wrong";
  EXPECT_EQ(Call("status", Body(license), kPluginKey, wrong).status, 401);
  EXPECT_EQ(Call("status", "{").status, 400);
  server().Terminate();
  const std::string log = server().log();
  EXPECT_NE(log.find("listening on"), std::string::npos);
  for (const std::string& secret : {kPluginKey.secret, kCiKey.secret}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << "secret in the log:\n" << log;
  }
}

// A connected socket to 127.0.0.1:port, or -1.
int ConnectTo(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

// Draining means finishing requests, not waiting for clients that send nothing.
TEST_F(Lifecycle, SigtermWithIdleConnectionsOpenExitsZeroPromptly) {
  Start();
  const std::string license = NewLicense(1);
  // One connection that never sends a byte, one kept alive after a complete exchange.
  const int silent = ConnectTo(port());
  ASSERT_GE(silent, 0);
  const int kept = ConnectTo(port());
  ASSERT_GE(kept, 0);
  const HttpRequest req = Signed("status", Body(license));
  std::string raw = "POST " + req.target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& h : req.headers) raw += h.name + ": " + h.value + "\r\n";
  raw += "Content-Length: " + std::to_string(req.body.size()) + "\r\n\r\n" + req.body;
  ASSERT_EQ(::send(kept, raw.data(), raw.size(), MSG_NOSIGNAL), static_cast<ssize_t>(raw.size()));
  char buf[4096];
  ASSERT_GT(::recv(kept, buf, sizeof buf, 0), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const int status = Stop(std::chrono::seconds(8));
  const auto took = std::chrono::steady_clock::now() - t0;
  ::close(silent);
  ::close(kept);
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status << " (killed after 8 s?)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_LT(took, std::chrono::seconds(6));
}

}  // namespace
}  // namespace bb
