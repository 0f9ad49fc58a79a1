#include "outgoing/outgoing_client.h"

#include <curl/curl.h>
#include <netdb.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#include "outgoing/address_policy.h"

namespace licensed {
namespace {

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct CurlUrlFree {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using CurlUrl = std::unique_ptr<CURLU, CurlUrlFree>;
using HeaderList = std::unique_ptr<curl_slist, SlistFree>;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Error url_error(std::string message) {
  return Error::invalid_argument("url", std::move(message));
}

// A URL part curl owns, copied; nullopt when the URL has none.
std::optional<std::string> url_part(CURLU* u, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(u, part, &text, 0) != CURLUE_OK || text == nullptr) return std::nullopt;
  std::string out(text);
  curl_free(text);
  return out;
}

// The URL parsed once, by libcurl's own parser, so that what is checked is what libcurl
// will fetch (the handle is given to the transfer with CURLOPT_CURLU).
Result<CurlUrl> parse_url(std::string_view url) {
  CurlUrl u(curl_url());
  if (!u) return Error::internal("curl_url failed");
  if (curl_url_set(u.get(), CURLUPART_URL, std::string(url).c_str(), 0) != CURLUE_OK) {
    return url_error("not an absolute http(s) URL");
  }
  return u;
}

std::string origin_of(CURLU* u) {
  std::string out =
      url_part(u, CURLUPART_SCHEME).value_or("") + "://" + url_part(u, CURLUPART_HOST).value_or("");
  if (auto port = url_part(u, CURLUPART_PORT)) out += ":" + *port;
  return out;
}

Status check_parsed_url(CURLU* u, const OutgoingPolicy& policy) {
  const std::string scheme = url_part(u, CURLUPART_SCHEME).value_or("");
  const std::string where = origin_of(u);
  if (scheme != "https" && scheme != "http") {
    return url_error(where + ": only https URLs are allowed (http with --webhook-allow-http)");
  }
  if (scheme == "http" && !policy.allow_http) {
    return url_error(where + ": plain http is refused; --webhook-allow-http allows it");
  }
  if (url_part(u, CURLUPART_USER) || url_part(u, CURLUPART_PASSWORD)) {
    return url_error(where + ": a URL with a user name or password is refused");
  }
  if (url_part(u, CURLUPART_HOST).value_or("").empty()) return url_error("the URL has no host");
  return Ok{};
}

bool has_line_break(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

// A header name or value that could end its line would smuggle another header in.
Result<HeaderList> header_list(const OutgoingRequest& request) {
  curl_slist* list = nullptr;
  for (const auto& [name, value] : request.headers) {
    if (name.empty() || has_line_break(name) || has_line_break(value)) {
      curl_slist_free_all(list);
      return Error::invalid_argument("headers", "a header name or value holds a line break");
    }
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  // curl adds "Expect: 100-continue" to large POSTs; it only costs a round trip.
  list = curl_slist_append(list, "Expect:");
  return HeaderList(list);
}

// What the socket callback saw: the addresses it let libcurl connect to, and why it
// refused one.
struct ConnectCheck {
  bool allow_private = false;
  std::vector<std::string> allowed;
  std::optional<std::string> refusal;
};

// CURLOPT_OPENSOCKETFUNCTION: libcurl calls it instead of socket(2) with the address it
// is about to connect to. The check is made here, on that address, so no resolution
// happens between the check and the connection.
curl_socket_t open_checked_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* check = static_cast<ConnectCheck*>(user);
  const auto ip = IpAddress::from_sockaddr(&address->addr, address->addrlen);
  if (purpose != CURLSOCKTYPE_IPCXN || !ip) {
    check->refusal = "a connection that is not to an IP address";
    return CURL_SOCKET_BAD;
  }
  if (const auto range = refused_range(*ip); range && !check->allow_private) {
    check->refusal = range->describe(*ip) + "; --webhook-allow-private allows it";
    return CURL_SOCKET_BAD;
  }
  check->allowed.push_back(ip->text());
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

struct Reading {
  std::string body;
  size_t max = 0;
  bool too_large = false;
  bool cut = false;  // cut_long_answers: keep what fits, then stop
};

size_t append_bounded(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Reading*>(user);
  const size_t n = size * count;
  if (r->body.size() + n > r->max) {
    r->too_large = true;
    if (r->cut) r->body.append(data, r->max - r->body.size());
    return 0;  // anything but n stops the transfer
  }
  r->body.append(data, n);
  return n;
}

long millis(std::chrono::milliseconds d) {
  return std::max<long>(1, static_cast<long>(d.count()));
}

void set_safety_options(CURL* c, const OutgoingPolicy& policy) {
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
#if CURL_AT_LEAST_VERSION(7, 87, 0)
  curl_easy_setopt(c, CURLOPT_QUICK_EXIT, 1L);  // cleanup never joins a stuck lookup thread
#endif
  // An empty proxy disables every proxy variable of the environment; "*" in NO_PROXY
  // too (an empty one would mean the opposite).
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED));
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  const char* protocols = policy.allow_http ? "http,https" : "https";
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, protocols);
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, protocols);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!policy.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, policy.ca_file.c_str());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "licensed");
}

void set_limits(CURL* c, const OutgoingLimits& limits) {
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, millis(limits.connect_timeout));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, millis(limits.total_timeout));
  // A declared length over the limit is refused before the body is read, unless the answer
  // is to stand cut (the status line and headers are read by then either way).
  if (!limits.cut_long_answers) {
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(limits.max_answer_bytes));
  }
}

void set_method(CURL* c, const OutgoingRequest& request) {
  if (request.method != "POST") return;
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
}

// libcurl's own words, unless they repeat something secret the request carried (the
// path and query, a header value): then only the code's generic text.
std::string safe_curl_text(const char* buffer, CURLcode code, const OutgoingRequest& request,
                           CURLU* u) {
  const std::string text = buffer[0] != '\0' ? buffer : curl_easy_strerror(code);
  auto leaks = [&text](const std::string& secret) {
    return secret.size() >= 4 && text.find(secret) != std::string::npos;
  };
  bool leak = leaks(url_part(u, CURLUPART_PATH).value_or("")) ||
              leaks(url_part(u, CURLUPART_QUERY).value_or(""));
  for (const auto& h : request.headers) leak = leak || leaks(h.second);
  return leak ? curl_easy_strerror(code) : text;
}

Error transfer_error(CURLcode code, const std::string& curl_text, const ConnectCheck& check,
                     const Reading& reading, const OutgoingRequest& request,
                     const std::string& where) {
  if (check.refusal && check.allowed.empty()) return url_error(where + ": " + *check.refusal);
  if (reading.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    return Error::unavailable(where + ": the answer is larger than " +
                              std::to_string(request.limits.max_answer_bytes) + " bytes");
  }
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return Error::unavailable(where + ": no answer within " +
                              std::to_string(request.limits.total_timeout.count()) + " ms (" +
                              curl_text + ")");
  }
  if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE) {
    return Error::unavailable(where + ": the certificate was not verified (" + curl_text + ")");
  }
  return Error::unavailable(where + ": " + curl_text);
}

std::vector<std::pair<std::string, std::string>> answer_headers(CURL* c) {
  std::vector<std::pair<std::string, std::string>> out;
  curl_header* prev = nullptr;
  // -1: the last request of the transfer, the only one as no redirect is followed.
  while (curl_header* h = curl_easy_nextheader(c, CURLH_HEADER, -1, prev)) {
    std::string name(h->name);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    out.emplace_back(std::move(name), h->value);
    prev = h;
  }
  return out;
}

// The answer, once libcurl says where it came from: an address the socket check passed,
// or nothing is believed.
Result<OutgoingAnswer> finish_answer(CURL* c, Reading& reading, const ConnectCheck& check,
                                     const std::string& where) {
  OutgoingAnswer answer;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  char* ip = nullptr;
  curl_easy_getinfo(c, CURLINFO_PRIMARY_IP, &ip);
  answer.connected_to = ip != nullptr ? ip : "";
  if (std::find(check.allowed.begin(), check.allowed.end(), answer.connected_to) ==
      check.allowed.end()) {
    return Error::internal(where + ": connected to " + answer.connected_to +
                           ", which the address check did not see");
  }
  answer.body = std::move(reading.body);
  answer.headers = answer_headers(c);
  return answer;
}

}  // namespace

std::optional<std::string> OutgoingAnswer::header(std::string_view lower_case_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_case_name) return value;
  }
  return std::nullopt;
}

std::string url_origin(std::string_view url) {
  auto u = parse_url(url);
  return u.ok() ? origin_of(u->get()) : std::string();
}

Status check_outgoing_url(std::string_view url, const OutgoingPolicy& policy) {
  ASSIGN_OR_RETURN(auto u, parse_url(url));
  return check_parsed_url(u.get(), policy);
}

Status check_outgoing_destination(std::string_view url, const OutgoingPolicy& policy) {
  ASSIGN_OR_RETURN(auto u, parse_url(url));
  RETURN_IF_ERROR(check_parsed_url(u.get(), policy));
  if (policy.allow_private) return Ok{};
  std::string host = url_part(u.get(), CURLUPART_HOST).value_or("");
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    return url_error("the host " + host + " does not resolve");
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const auto ip = IpAddress::from_sockaddr(a->ai_addr, a->ai_addrlen);
    if (!ip) continue;
    if (const auto range = refused_range(*ip)) {
      return url_error(host + " resolves to " + range->describe(*ip) +
                       "; --webhook-allow-private allows it");
    }
  }
  return Ok{};
}

Result<OutgoingAnswer> OutgoingClient::send(const OutgoingRequest& request) const {
  init_curl_once();
  if (request.method != "GET" && request.method != "POST") {
    return Error::invalid_argument("method", "only GET and POST are sent");
  }
  ASSIGN_OR_RETURN(auto u, parse_url(request.url));
  RETURN_IF_ERROR(check_parsed_url(u.get(), policy_));
  ASSIGN_OR_RETURN(const auto headers, header_list(request));
  const std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  if (!curl) return Error::internal("curl_easy_init failed");
  CURL* c = curl.get();
  set_safety_options(c, policy_);
  set_limits(c, request.limits);
  set_method(c, request);
  curl_easy_setopt(c, CURLOPT_CURLU, u.get());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  ConnectCheck check{.allow_private = policy_.allow_private, .allowed = {}, .refusal = {}};
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_checked_socket);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &check);
  Reading reading{.body = {},
                  .max = request.limits.max_answer_bytes,
                  .too_large = false,
                  .cut = request.limits.cut_long_answers};
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_bounded);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reading);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const std::string where = origin_of(u.get());
  const CURLcode rc = curl_easy_perform(c);
  // A cut answer stopped by the write callback is still the answer the server gave.
  const bool cut = rc == CURLE_WRITE_ERROR && reading.cut && reading.too_large;
  if (rc != CURLE_OK && !cut) {
    return transfer_error(rc, safe_curl_text(error, rc, request, u.get()), check, reading, request,
                          where);
  }
  return finish_answer(c, reading, check, where);
}

}  // namespace licensed
