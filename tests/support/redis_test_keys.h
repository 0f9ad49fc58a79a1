// For unit tests of the Redis-backed parts: a client for a test Redis and a key prefix
// per test, so tests can share one Redis without seeing each other's keys.
#pragma once

#include <atomic>
#include <chrono>
#include <random>
#include <string>

#include "redis/redis_client.h"
#include "support/redis_server.h"

namespace bb {

inline std::string UniqueKeyPrefix() {
  static std::atomic<int> n{0};
  return "test:" + std::to_string(std::random_device{}()) + ":" + std::to_string(n++) + ":";
}

// Generous timeouts: a test machine under load must not look like a Redis outage.
inline licensed::RedisClientOptions ClientOptionsFor(const RedisServer& server) {
  return licensed::RedisClientOptions{
      licensed::RedisEndpoint{"127.0.0.1", server.port(), {}, {}, 0},
      std::chrono::milliseconds(2000)};
}

}  // namespace bb
