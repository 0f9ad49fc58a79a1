// Where the shared Redis is: `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`, the form
// redis-cli and most clients accept. TLS (`rediss://`) and Unix sockets are not
// supported by this build (hiredis 0.14 has no TLS). The user and password are taken
// literally, without percent-decoding; the last @ ends them, so a password may hold @.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace licensed {

struct RedisEndpoint {
  std::string host;
  uint16_t port = 6379;
  std::optional<std::string> user;      // ACL user (Redis 6+); none: AUTH with password only
  std::optional<std::string> password;  // never logged
  int db = 0;
};

// Errors are kInvalidArgument ("config") and never repeat the password.
Result<RedisEndpoint> parse_redis_url(std::string_view url);

}  // namespace licensed
