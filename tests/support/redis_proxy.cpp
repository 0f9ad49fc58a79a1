#include "support/redis_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string_view>
#include <vector>

#include "support/free_port.h"

namespace bb {
namespace {

bool SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// What arrived on `fd` (empty: the peer closed or failed).
std::string Receive(int fd) {
  char chunk[16384];
  const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  return n > 0 ? std::string(chunk, static_cast<size_t>(n)) : std::string();
}

}  // namespace

RedisProxy::RedisProxy(std::uint16_t redis_port) : redis_port_(redis_port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = LoopbackAddress(0);
  socklen_t len = sizeof addr;
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener_, 64) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
      ::pipe2(wake_, O_CLOEXEC) != 0) {
    throw std::runtime_error("the Redis proxy cannot listen");
  }
  port_ = ntohs(addr.sin_port);
  loop_ = std::thread([this] { Run(); });
}

RedisProxy::~RedisProxy() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  Wake();
  loop_.join();
  for (auto& [client, link] : links_) {
    ::close(client);
    ::close(link.upstream);
  }
  ::close(listener_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

std::string RedisProxy::url() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

void RedisProxy::Hold() {
  std::lock_guard lock(mu_);
  holding_ = true;
}

void RedisProxy::Release() {
  {
    std::lock_guard lock(mu_);
    holding_ = false;
  }
  Wake();  // the loop passes on what it kept
}

bool RedisProxy::WaitUntilHolding(std::chrono::milliseconds guard) {
  std::unique_lock lock(mu_);
  return changed_.wait_for(lock, guard, [this] {
    for (const auto& [client, link] : links_) {
      if (!link.held.empty()) return true;
    }
    return false;
  });
}

std::size_t RedisProxy::held_bytes() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [client, link] : links_) n += link.held.size();
  return n;
}

void RedisProxy::Wake() {
  const char byte = 0;
  (void)!::write(wake_[1], &byte, 1);
}

void RedisProxy::Accept() {
  const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
  if (client < 0) return;
  const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in redis = LoopbackAddress(redis_port_);
  if (upstream < 0 || ::connect(upstream, reinterpret_cast<sockaddr*>(&redis), sizeof redis) != 0) {
    if (upstream >= 0) ::close(upstream);
    ::close(client);  // as a Redis that is not there
    return;
  }
  std::lock_guard lock(mu_);
  links_[client].upstream = upstream;
}

bool RedisProxy::FromClient(int client, Link& link) {
  const std::string bytes = Receive(client);
  return !bytes.empty() && SendAll(link.upstream, bytes);
}

bool RedisProxy::FromRedis(int client, Link& link) {
  const std::string bytes = Receive(link.upstream);
  if (bytes.empty()) return false;
  std::lock_guard lock(mu_);
  if (holding_ || !link.held.empty()) {
    link.held += bytes;  // behind what is held already, so the order stays
    changed_.notify_all();
    return true;
  }
  return SendAll(client, bytes);
}

void RedisProxy::Run() {
  for (;;) {
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      for (auto& [client, link] : links_) {
        // Released: what was kept goes first.
        if (!holding_ && !link.held.empty()) {
          (void)SendAll(client, link.held);
          link.held.clear();
        }
        fds.push_back({client, POLLIN, 0});
        fds.push_back({link.upstream, POLLIN, 0});
      }
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[0].revents != 0) {
      char drained[64];
      (void)!::read(wake_[0], drained, sizeof drained);
    }
    if (fds[1].revents & POLLIN) Accept();
    for (size_t i = 2; i + 1 < fds.size(); i += 2) {
      const int client = fds[i].fd;
      Link& link = links_.at(client);
      bool open = true;
      if (fds[i].revents != 0) open = FromClient(client, link);
      if (open && fds[i + 1].revents != 0) open = FromRedis(client, link);
      if (!open) {
        std::lock_guard lock(mu_);
        ::close(client);
        ::close(link.upstream);
        links_.erase(client);
      }
    }
  }
}

}  // namespace bb
