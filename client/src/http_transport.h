// One HTTP exchange: what the SDK needs of an answer (status, body, the headers that
// carry meaning) or why there was none. No retries here. Two implementations behind this
// one interface, chosen when building (client/CMakeLists.txt, LICENSE_CLIENT_BACKEND):
// libcurl (http_transport_curl.cpp: Linux and macOS) and WinHTTP
// (http_transport_winhttp.cpp: Windows, nothing to ship beside the SDK). What they share,
// bounded_exchange and the plain-http rule, is http_transport.cpp.
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
  std::string error;  // the transport failure (the HTTP library's words)
  std::string body;
  std::optional<std::string> response_signature;  // X-License-Response-Signature
  std::optional<std::string> retry_after;         // Retry-After
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// What the HTTP library needs once per process (libcurl: curl_global_init; WinHTTP: the
// session with the machine's proxy settings), also done by the first exchange. Making a
// client calls it, on the host's thread, before the SDK's threads exist.
void init_http_once();

// What one exchange sends, and how it may be stopped.
struct HttpRequestSpec {
  std::string url;
  HeaderList headers;
  std::optional<std::string> body;  // POST this; nullopt: GET
  // A stop request aborts the transfer: at libcurl's next progress call, or at once with
  // WinHTTP (the request handle is closed from the thread that asked to stop).
  std::stop_token stop;
  // For tests: called where the name lookup starts (libcurl's resolver-start callback;
  // with WinHTTP, just before the request is sent), on the thread doing the exchange.
  // Lets a test make the lookup take as long as it likes.
  std::function<void()> resolver_start;
};

// POST `body` (or GET when `body` is nullopt) to `url` on the calling thread, following
// no redirect. The library's own timeouts bound each step. libcurl: no signals are used
// (safe inside a plugin host), and CURLOPT_QUICK_EXIT keeps curl_easy_cleanup from
// joining a name-lookup thread that has not returned (libcurl 7.88 would otherwise wait
// for getaddrinfo: 10 s and more with a DNS server that never answers). WinHTTP: the
// machine's proxy settings (none for loopback), TLS certificates verified, and a stop
// request closes the request handle, which ends a blocked call. Whatever the resolver
// does, though, only bounded_exchange bounds the caller's wait.
HttpReply http_exchange(const HttpRequestSpec& request, std::chrono::milliseconds timeout);
inline HttpReply http_exchange(const std::string& url, const HeaderList& headers,
                               const std::optional<std::string>& body,
                               std::chrono::milliseconds timeout) {
  return http_exchange(HttpRequestSpec{url, headers, body, {}, {}}, timeout);
}

// http_exchange on a thread the SDK starts for it, the caller waiting at most `timeout`
// (or until `request.stop` is requested). When the caller stops waiting, the exchange is
// asked to stop too (from the caller's thread: WinHTTP's blocked call returns then). A
// thread that is still in the library after that (a resolver that never returns, a
// libcurl that ignores its timeout) is left to finish on its own: it owns everything it
// touches, so nothing it does later reaches the caller. Why a thread and not
// curl_multi or WinHTTP's asynchronous mode: a blocked getaddrinfo (or a synchronous
// resolver build of libcurl) is out of the library's reach; only not waiting for it
// bounds the wait.
HttpReply bounded_exchange(HttpRequestSpec request, std::chrono::milliseconds timeout);

// A URL's scheme (lowercase) and host as the HTTP library reads them (curl_url or
// WinHttpCrackUrl); nullopt when it cannot read the URL.
struct UrlTarget {
  std::string scheme;
  std::string host;
};
std::optional<UrlTarget> url_target(const std::string& url);

// True for the names of this machine: localhost, ::1 (bracketed or not) and 127.0.0.0/8
// in dotted decimal.
bool is_loopback_host(const std::string& host);

// True when `url` is plain http:// to a host that is not loopback; false for https://
// and for loopback. A URL the library cannot read counts as remote plain http (refused
// rather than guessed at).
bool is_plain_http_to_remote_host(const std::string& url);

}  // namespace licensed::client
