// One HTTP exchange over libcurl: what the SDK needs of an answer (status, body, the
// headers that carry meaning) or why there was none. No retries here.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace licensed::client {

struct HttpReply {
  int status = 0;     // 0: no answer; `error` says why
  std::string error;  // the transport failure (curl's text)
  std::string body;
  std::optional<std::string> response_signature;  // X-License-Response-Signature
  std::optional<std::string> retry_after;         // Retry-After
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// POST `body` (or GET when `body` is nullopt) to `url`. The whole exchange, connecting
// included, is bounded by `timeout`; no signals are used (safe inside a plugin host).
HttpReply http_exchange(const std::string& url, const HeaderList& headers,
                        const std::optional<std::string>& body, std::chrono::milliseconds timeout);

// True when `url` is plain http:// to a host that is not loopback (127.0.0.0/8, ::1,
// localhost); false for https:// and for loopback. A URL curl cannot parse counts as
// remote plain http (refused rather than guessed at).
bool is_plain_http_to_remote_host(const std::string& url);

}  // namespace licensed::client
