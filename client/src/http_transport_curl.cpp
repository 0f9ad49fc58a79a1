// http_transport.h over libcurl: the SDK's HTTP on Linux and macOS.
#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "detached_thread.h"
#include "http_transport.h"

namespace licensed::client {

namespace {

size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::optional<std::string> header_of(CURL* curl, const char* name) {
  curl_header* h = nullptr;
  // -1: the last request of the transfer (there are no redirects, but be exact).
  if (curl_easy_header(curl, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK || h == nullptr) {
    return std::nullopt;
  }
  return std::string(h->value);
}

struct CurlUrlFree {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};

// A URL part curl owns, copied.
std::optional<std::string> url_part(CURLU* u, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(u, part, &text, 0) != CURLUE_OK || text == nullptr) return std::nullopt;
  std::string out(text);
  curl_free(text);
  return out;
}

// CURLOPT_XFERINFOFUNCTION: libcurl calls it about once a second and whenever data
// moves, name lookup included; non-zero aborts the transfer (a stop request, or the
// process exiting: detached_thread.h).
int abort_when_stopped(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::stop_token*>(stop)->stop_requested() || process_exiting() ? 1 : 0;
}

// CURLOPT_RESOLVER_START_FUNCTION: the test hook of HttpRequestSpec.
int call_resolver_start(void*, void*, void* hook) {
  (*static_cast<const std::function<void()>*>(hook))();
  return 0;
}

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

void init_http_once() {
  // curl_global_init is not thread-safe before 7.84 on every platform; once is enough.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpReply http_exchange(const HttpRequestSpec& request, std::chrono::milliseconds timeout) {
  const std::string& url = request.url;
  const HeaderList& headers = request.headers;
  const std::optional<std::string>& body = request.body;
  init_http_once();
  HttpReply reply;
  const std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  if (!curl) {
    reply.error = "curl_easy_init failed";
    return reply;
  }
  curl_slist* list = nullptr;
  for (const auto& [name, value] : headers) {
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  // curl adds "Expect: 100-continue" to large POSTs; it only costs a round trip here.
  list = curl_slist_append(list, "Expect:");
  const std::unique_ptr<curl_slist, SlistFree> header_list(list);
  const long ms = std::max<long>(1, static_cast<long>(timeout.count()));
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
#if CURL_AT_LEAST_VERSION(7, 87, 0)
  // Cleanup must not join a lookup thread stuck in getaddrinfo (see the header).
  curl_easy_setopt(c, CURLOPT_QUICK_EXIT, 1L);
#endif
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, abort_when_stopped);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, const_cast<std::stop_token*>(&request.stop));
  if (request.resolver_start) {
    curl_easy_setopt(c, CURLOPT_RESOLVER_START_FUNCTION, call_resolver_start);
    curl_easy_setopt(c, CURLOPT_RESOLVER_START_DATA,
                     const_cast<std::function<void()>*>(&request.resolver_start));
  }
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (body) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    reply.error = error[0] != '\0' ? error : curl_easy_strerror(rc);
    if (rc == CURLE_ABORTED_BY_CALLBACK) reply.error = "cancelled";
    reply.body.clear();
    return reply;
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  reply.status = static_cast<int>(status);
  reply.response_signature = header_of(c, "X-License-Response-Signature");
  reply.retry_after = header_of(c, "Retry-After");
  return reply;
}

std::optional<UrlTarget> url_target(const std::string& url) {
  const std::unique_ptr<CURLU, CurlUrlFree> u(curl_url());
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), CURLU_GUESS_SCHEME) != CURLUE_OK) {
    return std::nullopt;
  }
  auto scheme = url_part(u.get(), CURLUPART_SCHEME);
  auto host = url_part(u.get(), CURLUPART_HOST);
  if (!scheme || !host) return std::nullopt;
  return UrlTarget{std::move(*scheme), std::move(*host)};
}

}  // namespace licensed::client
