// One HTTP/1.1 POST over plain TCP with a deadline on the whole exchange, for the
// error reporter's background thread (never a network or store thread: it blocks).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace licensed {

struct HttpPostRequest {
  std::string host;  // a name or an IP literal (IPv6 without brackets)
  uint16_t port = 80;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Host, Content-Length
  std::string body;
};

struct HttpPostOutcome {
  unsigned status = 0;  // 0: no answer; `error` says why
  std::string error;
  std::optional<int64_t> retry_after_seconds;  // a numeric Retry-After header
};

// Connects, sends, reads the answer (body capped at 64 KiB and discarded), closes.
// Name resolution uses the system resolver and is not covered by the deadline.
HttpPostOutcome http_post(const HttpPostRequest& request,
                          std::chrono::steady_clock::time_point deadline);

}  // namespace licensed
