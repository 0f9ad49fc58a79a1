// One HTTP exchange over libcurl: what the SDK needs of an answer (status, body, the
// headers that carry meaning) or why there was none. No retries here.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
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

// curl_global_init, once per process (also done by the first exchange). Making a client
// calls it, on the host's thread, before the SDK's threads exist.
void init_http_once();

// What one exchange sends, and how it may be stopped.
struct HttpRequestSpec {
  std::string url;
  HeaderList headers;
  std::optional<std::string> body;  // POST this; nullopt: GET
  // A stop request aborts the transfer at libcurl's next progress call.
  std::stop_token stop;
  // For tests: called where libcurl starts a name lookup, on the thread doing the
  // exchange. Lets a test make the lookup take as long as it likes.
  std::function<void()> resolver_start;
};

// POST `body` (or GET when `body` is nullopt) to `url` on the calling thread. libcurl's
// timeout bounds the transfer, no signals are used (safe inside a plugin host), and
// CURLOPT_QUICK_EXIT keeps curl_easy_cleanup from joining a name-lookup thread that
// has not returned (libcurl 7.88 would otherwise wait for getaddrinfo: 10 s and more
// with a DNS server that never answers). Whatever the resolver does, though, only
// bounded_exchange bounds the caller's wait.
HttpReply http_exchange(const HttpRequestSpec& request, std::chrono::milliseconds timeout);
inline HttpReply http_exchange(const std::string& url, const HeaderList& headers,
                               const std::optional<std::string>& body,
                               std::chrono::milliseconds timeout) {
  return http_exchange(HttpRequestSpec{url, headers, body, {}, {}}, timeout);
}

// http_exchange on a thread the SDK starts for it, the caller waiting at most `timeout`
// (or until `request.stop` is requested). A thread that is still in libcurl then (a
// resolver that never returns, a libcurl that ignores its timeout) is left to finish on
// its own: it owns everything it touches, so nothing it does later reaches the caller.
// Why a thread and not curl_multi: a blocked getaddrinfo (or a synchronous resolver
// build of libcurl) is out of libcurl's reach; only not waiting for it bounds the wait.
HttpReply bounded_exchange(HttpRequestSpec request, std::chrono::milliseconds timeout);

// True when `url` is plain http:// to a host that is not loopback (127.0.0.0/8, ::1,
// localhost); false for https:// and for loopback. A URL curl cannot parse counts as
// remote plain http (refused rather than guessed at).
bool is_plain_http_to_remote_host(const std::string& url);

}  // namespace licensed::client
