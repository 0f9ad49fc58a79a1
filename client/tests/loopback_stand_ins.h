// Servers that misbehave, on loopback, for the tests of hanging networks: a listener that
// accepts and never answers (and counts what it accepted), one that answers every
// request with the same canned HTTP answer, and a DNS server that swallows every query.
// Header-only and POSIX sockets only, so the C ABI's tests (which link nothing of the
// SDK's core) use them too.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace licensed::client::test {

// A socket bound on loopback: TCP listening, or UDP (port 53 of `address`, for DNS).
inline int BoundSocket(int type, const char* address = "127.0.0.1", uint16_t port = 0) {
  const int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, address, &a.sin_addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (type == SOCK_STREAM && listen(fd, 64) != 0)) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("cannot bind a loopback socket on " + std::string(address));
  }
  return fd;
}

inline uint16_t PortOf(int fd) {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  return ntohs(a.sin_port);
}

// Accepts connections on a thread of its own until destroyed; each connection is given
// to `answer` (or, without one, kept open and never answered).
class LoopbackServer {
 public:
  explicit LoopbackServer(std::string canned_answer = "")
      : fd_(BoundSocket(SOCK_STREAM)), answer_(std::move(canned_answer)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~LoopbackServer() {
    stopping_ = true;
    thread_.join();
    for (const int c : held_) close(c);
    close(fd_);
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(PortOf(fd_)); }
  int accepted() const { return accepted_; }
  // True once `n` connections were accepted, within `timeout`.
  bool WaitForConnections(int n, std::chrono::milliseconds timeout) const {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (accepted_ < n && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return accepted_ >= n;
  }

 private:
  void Loop() {
    while (!stopping_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++accepted_;
      if (answer_.empty()) {
        held_.push_back(c);  // silent: open, unanswered, until the server goes
        continue;
      }
      char buf[8192];
      (void)read(c, buf, sizeof buf);
      (void)write(c, answer_.data(), answer_.size());
      close(c);
    }
  }

  int fd_;
  std::string answer_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::vector<int> held_;
  std::thread thread_;
};

// A plain HTTP answer with that status and body, connection closed after it.
inline std::string HttpAnswer(int status, const std::string& reason, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/html\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace licensed::client::test
