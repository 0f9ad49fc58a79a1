// What both HTTP backends share: the bounded wait on a thread of the SDK's own, and the
// rule about plain http. The exchange itself is http_transport_curl.cpp's or
// http_transport_winhttp.cpp's.
#include "http_transport.h"

#include <condition_variable>
#include <memory>

#include "core/mutex.h"
#include "detached_thread.h"

namespace licensed::client {

namespace {

// What bounded_exchange's worker and its caller share: kept alive by whichever of the two
// is the last to let go, so a worker that outlives its caller writes into its own copy.
struct ExchangeSlot {
  Mutex mu;
  std::condition_variable_any done_cv;
  std::optional<HttpReply> reply GUARDED_BY(mu);
};

// A dotted-decimal IPv4 address's first number, when `host` is exactly four numbers of
// 0-255 without leading zeros (what inet_pton accepts).
std::optional<int> first_ipv4_octet(const std::string& host) {
  int parts = 0;
  int first = -1;
  size_t i = 0;
  while (i <= host.size()) {
    const size_t end = std::min(host.find('.', i), host.size());
    const std::string_view part = std::string_view(host).substr(i, end - i);
    if (part.empty() || part.size() > 3 || (part.size() > 1 && part[0] == '0')) return std::nullopt;
    int value = 0;
    for (const char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    if (value > 255) return std::nullopt;
    if (parts++ == 0) first = value;
    i = end + 1;
  }
  return parts == 4 ? std::optional<int>(first) : std::nullopt;
}

}  // namespace

HttpReply bounded_exchange(HttpRequestSpec request, std::chrono::milliseconds timeout) {
  auto slot = std::make_shared<ExchangeSlot>();
  const std::stop_token stop = request.stop;
  // The worker's own stop: requested here when this side stops waiting, so the exchange
  // ends too (its stop callbacks run on this thread).
  std::stop_source give_up;
  request.stop = give_up.get_token();
  const bool started = start_detached([slot, request = std::move(request), timeout] {
    HttpReply reply = http_exchange(request, timeout);
    MutexLock lock(slot->mu);
    slot->reply = std::move(reply);
    slot->done_cv.notify_all();
  });
  HttpReply none;
  if (!started) {
    none.error = "no thread could be started for the request";
    return none;
  }
  // A little past the library's own timeout, so its (more precise) error wins when it
  // keeps it.
  const auto deadline = std::chrono::steady_clock::now() + timeout + std::chrono::milliseconds(20);
  {
    MutexLock lock(slot->mu);
    while (!slot->reply && !stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
      lock.wait_until(slot->done_cv, stop, deadline);
    }
    if (slot->reply) return std::move(*slot->reply);
  }
  give_up.request_stop();
  none.error = stop.stop_requested() ? "cancelled"
                                     : "no answer within " + std::to_string(timeout.count()) +
                                           " ms (the name lookup or the connection did not finish)";
  return none;
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "[::1]" || host == "::1") return true;
  return first_ipv4_octet(host) == 127;
}

bool is_plain_http_to_remote_host(const std::string& url) {
  const auto target = url_target(url);
  if (!target) return true;
  if (target->scheme != "http") return false;  // https; anything else is never sent to
  return !is_loopback_host(target->host);
}

}  // namespace licensed::client
