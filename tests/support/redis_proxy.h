// A TCP proxy between the server under test and a test Redis that can hold Redis'
// answers: while held, what Redis sends is kept instead of passed on, so a request
// waiting on Redis stays parked for as long as the test likes; Release() passes on what
// was kept, in order, and everything after it. What the server sends Redis always
// passes. For tests that a slow Redis stalls only the requests that need it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace bb {

class RedisProxy {
 public:
  // Listens on a free loopback port, passing each connection on to 127.0.0.1:redis_port.
  explicit RedisProxy(std::uint16_t redis_port);
  ~RedisProxy();
  RedisProxy(const RedisProxy&) = delete;
  RedisProxy& operator=(const RedisProxy&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const;  // redis://127.0.0.1:<port>

  // From now on Redis' answers are kept, not passed on.
  void Hold();
  // Passes on what was kept, then everything again as it comes.
  void Release();
  // True once an answer is being held (a request is waiting for it), false when none
  // came within `guard`: a guard against a hang, not a measurement.
  bool WaitUntilHolding(std::chrono::milliseconds guard);
  // Bytes of Redis' answers held right now.
  std::size_t held_bytes() const;

 private:
  struct Link {
    int upstream = -1;  // to Redis
    std::string held;   // Redis' bytes not yet passed on to the client
  };

  void Run();
  void Accept();
  void Wake();
  // Pass on what arrived from one side; false when the link has ended.
  bool FromClient(int client, Link& link);
  bool FromRedis(int client, Link& link);

  std::uint16_t redis_port_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: Release() and the destructor wake the loop
  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool holding_ = false;
  bool stopping_ = false;
  std::map<int, Link> links_;  // by the client's descriptor; only the loop changes it
  std::thread loop_;
};

}  // namespace bb
