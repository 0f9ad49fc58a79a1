// http_transport.h over WinHTTP (winhttp.dll, part of every Windows): the SDK's HTTP on
// Windows, with nothing to ship beside it. One session per process takes the machine's
// proxy settings; each exchange is a synchronous request on the thread bounded_exchange
// starts for it, with TLS certificates verified (WinHTTP's default, never turned off)
// and no redirect followed.
//
// Stopping: WinHTTP ends a blocked synchronous call when its request handle is closed
// from another thread. A stop request (the caller cancelling, or bounded_exchange giving
// up at its deadline) closes the handle then if the exchange is inside such a call, and
// otherwise only marks it stopped: the exchange checks before each call and never
// touches a handle closed under it. The process exiting only marks it stopped.
#include <windows.h>
// windows.h first: winhttp.h needs its types.
#include <winhttp.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include "core/mutex.h"
#include "detached_thread.h"
#include "http_transport.h"

namespace licensed::client {

namespace {

std::wstring wide(const std::string& utf8) {
  if (utf8.empty()) return {};
  const int n =
      MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring out(static_cast<size_t>(std::max(n, 0)), L'\0');
  if (n > 0) {
    MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
  }
  return out;
}

std::string narrow(const std::wstring& text) {
  if (text.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr,
                                    0, nullptr, nullptr);
  std::string out(static_cast<size_t>(std::max(n, 0)), '\0');
  if (n > 0) {
    WideCharToMultiByte(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), n,
                        nullptr, nullptr);
  }
  return out;
}

// What a failed WinHTTP call's error means, for Answer::message.
std::string error_text(DWORD code) {
  switch (code) {
    case ERROR_WINHTTP_TIMEOUT:
      return "timed out";
    case ERROR_WINHTTP_NAME_NOT_RESOLVED:
      return "the server's name could not be resolved";
    case ERROR_WINHTTP_CANNOT_CONNECT:
      return "could not connect to the server";
    case ERROR_WINHTTP_CONNECTION_ERROR:
      return "the connection was reset";
    case ERROR_WINHTTP_SECURE_FAILURE:
      return "the TLS connection failed (the server's certificate could not be verified)";
    case ERROR_WINHTTP_INVALID_SERVER_RESPONSE:
      return "the server's answer is not HTTP";
    case ERROR_WINHTTP_OPERATION_CANCELLED:
      return "cancelled";
    default:
      return "WinHTTP error " + std::to_string(code);
  }
}

// The machine's proxy settings: WinHTTP's automatic proxy (Windows 8.1 and later: the
// system's settings, WPAD and PAC included), or where that is refused (older systems)
// the default proxy (`netsh winhttp set proxy`). Never closed: detached exchanges may
// use it until the process ends.
HINTERNET process_session() {
  static const HINTERNET session = [] {
    HINTERNET s = WinHttpOpen(L"license_client", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY,
                              WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0);
    if (s == nullptr) {
      s = WinHttpOpen(L"license_client", WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
                      WINHTTP_NO_PROXY_BYPASS, 0);
    }
    if (s != nullptr) {
      // TLS 1.2 and 1.3 where the system knows 1.3, else 1.2 alone; the system's default
      // (never below what it allows) when neither is accepted.
      DWORD protocols = WINHTTP_FLAG_SECURE_PROTOCOL_TLS1_2 | WINHTTP_FLAG_SECURE_PROTOCOL_TLS1_3;
      if (!WinHttpSetOption(s, WINHTTP_OPTION_SECURE_PROTOCOLS, &protocols, sizeof protocols)) {
        protocols = WINHTTP_FLAG_SECURE_PROTOCOL_TLS1_2;
        WinHttpSetOption(s, WINHTTP_OPTION_SECURE_PROTOCOLS, &protocols, sizeof protocols);
      }
    }
    return s;
  }();
  return session;
}

struct InternetClose {
  void operator()(void* h) const { WinHttpCloseHandle(h); }
};
using InternetHandle = std::unique_ptr<void, InternetClose>;

// The request handle, shared by the exchange and whoever stops it (see the top).
class RequestHandle {
 public:
  explicit RequestHandle(HINTERNET handle)
      : handle_(handle), error_(handle == nullptr ? GetLastError() : 0) {}
  ~RequestHandle() {
    MutexLock lock(mu_);
    close_locked();
  }
  RequestHandle(const RequestHandle&) = delete;
  RequestHandle& operator=(const RequestHandle&) = delete;

  // Runs a call that may block (sending, waiting for the answer, reading it) unless the
  // exchange was stopped; false when it failed or the exchange was stopped meanwhile.
  template <class Call>
  bool blocking(Call call) {
    HINTERNET handle = nullptr;
    {
      MutexLock lock(mu_);
      if (stopped_ || handle_ == nullptr) return false;
      in_call_ = true;
      handle = handle_;
    }
    const bool ok = call(handle);
    const DWORD error = ok ? 0 : GetLastError();
    MutexLock lock(mu_);
    in_call_ = false;
    if (!ok) error_ = error;
    return ok && !stopped_;
  }
  // Runs a call that returns at once (an option, a header), never beside a stop.
  template <class Call>
  bool quick(Call call) {
    MutexLock lock(mu_);
    if (stopped_ || handle_ == nullptr) return false;
    const bool ok = call(handle_);
    if (!ok) error_ = GetLastError();
    return ok;
  }
  // From any thread: the exchange stops; a blocked call returns.
  void stop() {
    MutexLock lock(mu_);
    stopped_ = true;
    if (in_call_) close_locked();
  }
  // The exchange makes no further call, but a blocked one is left alone: for the
  // process's exit, whose handlers run under the loader lock in a DLL, where calling into
  // WinHTTP is not safe (the process ends the thread anyway).
  void stop_without_closing() {
    MutexLock lock(mu_);
    stopped_ = true;
  }
  bool stopped() const {
    MutexLock lock(mu_);
    return stopped_;
  }
  // Why the last call failed (GetLastError right after it), or why there is no handle.
  DWORD error() const {
    MutexLock lock(mu_);
    return error_;
  }

 private:
  void close_locked() REQUIRES(mu_) {
    if (handle_ != nullptr) WinHttpCloseHandle(handle_);
    handle_ = nullptr;
  }

  mutable Mutex mu_;
  HINTERNET handle_ GUARDED_BY(mu_);
  DWORD error_ GUARDED_BY(mu_);
  bool in_call_ GUARDED_BY(mu_) = false;
  bool stopped_ GUARDED_BY(mu_) = false;
};

// The parts of a URL WinHTTP connects with.
struct CrackedUrl {
  bool secure = false;
  std::wstring host;
  INTERNET_PORT port = 0;
  std::wstring path;  // path and query
};

// An IPv6 literal's host ("::1", for WinHttpConnect), port and path, read from the URL
// itself: Wine's WinHttpCrackUrl takes "http://[::1]:8080/" for the host "[" and port 0.
bool read_ipv6_literal(const std::wstring& url, CrackedUrl& out) {
  const size_t open = url.find(L"://[");
  const size_t close = open == std::wstring::npos ? open : url.find(L']', open);
  if (close == std::wstring::npos) return false;
  out.host = url.substr(open + 4, close - open - 4);
  out.port = out.secure ? INTERNET_DEFAULT_HTTPS_PORT : INTERNET_DEFAULT_HTTP_PORT;
  size_t at = close + 1;
  if (at < url.size() && url[at] == L':') {
    unsigned long port = 0;
    size_t digits = 0;
    for (++at; at < url.size() && url[at] >= L'0' && url[at] <= L'9'; ++at, ++digits) {
      port = port * 10 + static_cast<unsigned long>(url[at] - L'0');
      if (port > 65535) return false;
    }
    if (digits == 0) return false;
    out.port = static_cast<INTERNET_PORT>(port);
  }
  if (at < url.size() && url[at] != L'/' && url[at] != L'?') return false;
  out.path = at < url.size() ? url.substr(at) : L"/";
  if (out.path.front() == L'?') out.path.insert(0, L"/");
  return !out.host.empty();
}

std::optional<CrackedUrl> crack(const std::string& url) {
  const std::wstring text = wide(url);
  URL_COMPONENTS parts{};
  parts.dwStructSize = sizeof parts;
  parts.dwHostNameLength = static_cast<DWORD>(-1);
  parts.dwUrlPathLength = static_cast<DWORD>(-1);
  parts.dwExtraInfoLength = static_cast<DWORD>(-1);
  if (text.empty() || !WinHttpCrackUrl(text.c_str(), 0, 0, &parts) ||
      (parts.nScheme != INTERNET_SCHEME_HTTP && parts.nScheme != INTERNET_SCHEME_HTTPS)) {
    return std::nullopt;
  }
  CrackedUrl out;
  out.secure = parts.nScheme == INTERNET_SCHEME_HTTPS;
  out.host.assign(parts.lpszHostName, parts.dwHostNameLength);
  out.port = parts.nPort;
  out.path.assign(parts.lpszUrlPath, parts.dwUrlPathLength);
  out.path.append(parts.lpszExtraInfo, parts.dwExtraInfoLength);
  if (out.path.empty()) out.path = L"/";
  if (!out.host.empty() && out.host.front() == L'[' && !read_ipv6_literal(text, out)) {
    return std::nullopt;
  }
  return out;
}

// A header of the answer, when it has one.
std::optional<std::string> header_of(HINTERNET request, const wchar_t* name) {
  DWORD size = 0;
  WinHttpQueryHeaders(request, WINHTTP_QUERY_CUSTOM, name, WINHTTP_NO_OUTPUT_BUFFER, &size,
                      WINHTTP_NO_HEADER_INDEX);
  if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || size == 0) return std::nullopt;
  std::wstring value(size / sizeof(wchar_t), L'\0');
  if (!WinHttpQueryHeaders(request, WINHTTP_QUERY_CUSTOM, name, value.data(), &size,
                           WINHTTP_NO_HEADER_INDEX)) {
    return std::nullopt;
  }
  value.resize(size / sizeof(wchar_t));
  return narrow(value);
}

// The options every request of the SDK has: timeouts, no redirect, no cookie, and no
// proxy on the way to this machine (plain http is allowed only there).
bool set_request_options(RequestHandle& request, const std::string& host,
                         std::chrono::milliseconds timeout) {
  const int ms = static_cast<int>(std::clamp<int64_t>(timeout.count(), 1, INT32_MAX));
  DWORD features = WINHTTP_DISABLE_COOKIES | WINHTTP_DISABLE_REDIRECTS;
  DWORD never = WINHTTP_OPTION_REDIRECT_POLICY_NEVER;
  return request.quick([&](HINTERNET h) {
    if (!WinHttpSetTimeouts(h, ms, ms, ms, ms) ||
        !WinHttpSetOption(h, WINHTTP_OPTION_DISABLE_FEATURE, &features, sizeof features) ||
        !WinHttpSetOption(h, WINHTTP_OPTION_REDIRECT_POLICY, &never, sizeof never)) {
      return false;
    }
    if (!is_loopback_host(host)) return true;
    WINHTTP_PROXY_INFO direct{};
    direct.dwAccessType = WINHTTP_ACCESS_TYPE_NO_PROXY;
    return WinHttpSetOption(h, WINHTTP_OPTION_PROXY, &direct, sizeof direct) == TRUE;
  });
}

std::wstring header_block(const HeaderList& headers) {
  std::string block;
  for (const auto& [name, value] : headers) block.append(name).append(": ").append(value) += "\r\n";
  return wide(block);
}

// Sends the request and waits for the answer's status line and headers.
bool send_and_receive(RequestHandle& request, const HttpRequestSpec& spec) {
  const std::wstring headers = header_block(spec.headers);
  const std::string empty;
  const std::string& body = spec.body ? *spec.body : empty;
  if (body.size() > MAXDWORD) return false;
  const auto size = static_cast<DWORD>(body.size());
  if (spec.resolver_start) spec.resolver_start();
  return request.blocking([&](HINTERNET h) {
    return WinHttpSendRequest(
               h, headers.empty() ? WINHTTP_NO_ADDITIONAL_HEADERS : headers.c_str(),
               static_cast<DWORD>(-1),
               size == 0 ? nullptr : static_cast<LPVOID>(const_cast<char*>(body.data())), size,
               size, 0) == TRUE;
  }) && request.blocking([](HINTERNET h) { return WinHttpReceiveResponse(h, nullptr) == TRUE; });
}

bool read_body(RequestHandle& request, std::string& body) {
  char buffer[8192];
  for (;;) {
    DWORD got = 0;
    if (!request.blocking(
            [&](HINTERNET h) { return WinHttpReadData(h, buffer, sizeof buffer, &got) == TRUE; })) {
      return false;
    }
    if (got == 0) return true;
    body.append(buffer, got);
  }
}

// The answer's status and the headers that carry meaning, once it was received.
bool read_head(RequestHandle& request, HttpReply& reply) {
  return request.quick([&](HINTERNET h) {
    DWORD status = 0;
    DWORD size = sizeof status;
    if (!WinHttpQueryHeaders(h, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
                             WINHTTP_HEADER_NAME_BY_INDEX, &status, &size,
                             WINHTTP_NO_HEADER_INDEX)) {
      return false;
    }
    reply.status = static_cast<int>(status);
    reply.response_signature = header_of(h, L"X-License-Response-Signature");
    reply.retry_after = header_of(h, L"Retry-After");
    return true;
  });
}

HttpReply failed(const std::string& why) {
  HttpReply reply;
  reply.error = why;
  return reply;
}

HttpReply failed(const RequestHandle& request) {
  return failed(request.stopped() ? "cancelled" : error_text(request.error()));
}

}  // namespace

void init_http_once() {
  (void)process_session();
}

HttpReply http_exchange(const HttpRequestSpec& spec, std::chrono::milliseconds timeout) {
  const auto url = crack(spec.url);
  if (!url) return failed("the URL cannot be used (not http:// or https://)");
  const HINTERNET session = process_session();
  if (session == nullptr) return failed("WinHTTP could not start: " + error_text(GetLastError()));
  const InternetHandle connection(WinHttpConnect(session, url->host.c_str(), url->port, 0));
  if (!connection) return failed(error_text(GetLastError()));
  RequestHandle request(WinHttpOpenRequest(
      connection.get(), spec.body ? L"POST" : L"GET", url->path.c_str(), nullptr,
      WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES, url->secure ? WINHTTP_FLAG_SECURE : 0));
  // Destroyed before `request`: no stop reaches the handle once the exchange is over.
  const std::stop_callback on_stop(spec.stop, [&request] { request.stop(); });
  const std::stop_callback on_exit(process_exit_token(),
                                   [&request] { request.stop_without_closing(); });
  if (!set_request_options(request, narrow(url->host), timeout) ||
      !send_and_receive(request, spec)) {
    return failed(request);
  }
  HttpReply reply;
  if (!read_head(request, reply) || !read_body(request, reply.body)) return failed(request);
  return reply;
}

std::optional<UrlTarget> url_target(const std::string& url) {
  const auto cracked = crack(url);
  if (!cracked) return std::nullopt;
  return UrlTarget{cracked->secure ? "https" : "http", narrow(cracked->host)};
}

}  // namespace licensed::client
