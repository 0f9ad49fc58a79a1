#include "support/redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "support/free_port.h"

namespace bb {
namespace {

std::string RedisServerBinary() {
  if (const char* env = std::getenv("LICENSED_TEST_REDIS_SERVER"); env && *env) return env;
  for (const char* path : {"/usr/bin/redis-server", "/usr/local/bin/redis-server"}) {
    if (std::filesystem::exists(path)) return path;
  }
  throw std::runtime_error(
      "redis-server not found: run scripts/install-deps.sh (Debian package redis-server)");
}

// True when 127.0.0.1:port answers PING with +PONG within a second.
bool AnswersPing(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr = LoopbackAddress(port);
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    constexpr std::string_view kPing = "PING\r\n";
    char buf[16] = {};
    ok = ::send(fd, kPing.data(), kPing.size(), MSG_NOSIGNAL) ==
             static_cast<ssize_t>(kPing.size()) &&
         ::recv(fd, buf, 7, MSG_WAITALL) == 7 && std::string_view(buf, 7) == "+PONG\r\n";
  }
  ::close(fd);
  return ok;
}

}  // namespace

RedisServer::RedisServer() {
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = FreeLoopbackPort();
    if (Launch()) return;
  }
  throw std::runtime_error("redis-server did not start:\n" + (process_ ? process_->log() : ""));
}

RedisServer::~RedisServer() = default;

std::string RedisServer::url() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

bool RedisServer::Launch() {
  process_ = std::make_unique<ServerProcess>(
      std::vector<std::string>{RedisServerBinary(), "--port", std::to_string(port_), "--bind",
                               "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                               dir_.path().string(), "--daemonize", "no", "--logfile", ""},
      EnvVars{});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (AnswersPing(port_)) return true;
    if (process_->ExitedOnItsOwn()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("redis-server did not answer PING within 20 s:\n" + process_->log());
}

void RedisServer::Stop() {
  if (process_) process_->Terminate();
}

void RedisServer::Start() {
  Stop();
  if (!Launch()) {
    throw std::runtime_error("redis-server did not restart on port " + std::to_string(port_) +
                             ":\n" + process_->log());
  }
}

RedisServer& SharedRedis() {
  static RedisServer server;
  return server;
}

}  // namespace bb
