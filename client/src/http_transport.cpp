#include "http_transport.h"

#include <curl/curl.h>

#if defined(_WIN32)
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#endif

#include <algorithm>
#include <memory>
#include <mutex>

namespace licensed::client {

namespace {

void init_curl_once() {
  // curl_global_init is not thread-safe before 7.84 on every platform; once is enough.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

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

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "[::1]") return true;
  unsigned char v4[4];
  return inet_pton(AF_INET, host.c_str(), v4) == 1 && v4[0] == 127;
}

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

HttpReply http_exchange(const std::string& url, const HeaderList& headers,
                        const std::optional<std::string>& body, std::chrono::milliseconds timeout) {
  init_curl_once();
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

bool is_plain_http_to_remote_host(const std::string& url) {
  const std::unique_ptr<CURLU, CurlUrlFree> u(curl_url());
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), CURLU_GUESS_SCHEME) != CURLUE_OK)
    return true;
  const auto scheme = url_part(u.get(), CURLUPART_SCHEME);
  if (scheme != "http") return false;  // https; anything else curl refuses to send to
  const auto host = url_part(u.get(), CURLUPART_HOST);
  return !host || !is_loopback_host(*host);
}

}  // namespace licensed::client
