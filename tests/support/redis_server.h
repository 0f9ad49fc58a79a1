// A throwaway Redis for tests: `redis-server` (Debian's package, which
// scripts/install-deps.sh installs) on a free loopback port, no persistence, its files in
// a temporary directory, stopped when the object goes (and killed with the test runner
// if that crashes). Stop() and Start() let a test take Redis away and bring it back on
// the same port.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "support/process.h"
#include "support/temp_dir.h"

namespace bb {

class RedisServer {
 public:
  // Starts it and waits until it answers PING; throws with its log when it cannot.
  RedisServer();
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  std::uint16_t port() const { return port_; }
  // redis://127.0.0.1:<port>
  std::string url() const;

  // SIGTERM and wait: connections to it fail from now on.
  void Stop();
  // Starts it again on the same port (empty: nothing was saved) and waits for PING.
  void Start();

 private:
  bool Launch();  // false when it exited before answering (the port was taken)

  TempDir dir_;
  std::uint16_t port_ = 0;
  std::unique_ptr<ServerProcess> process_;
};

// One Redis for a whole test program, started on first use; tests keep apart by key
// prefix. Tests that stop Redis use their own RedisServer instead.
RedisServer& SharedRedis();

}  // namespace bb
