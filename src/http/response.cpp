#include "http/response.h"

#include <openssl/rand.h>

#include <array>
#include <boost/beast/http/field.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <cstring>
#include <ctime>

#include "auth/request_signature.h"

namespace licensed {

namespace http = boost::beast::http;

const std::string& http_date_now() {
  thread_local std::time_t cached_second = 0;
  thread_local std::string cached;
  // The clock the timestamp checks read (time() reads a coarser one that may lag a tick),
  // so the Date a client corrects its clock by is the second its request was judged in.
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (now != cached_second) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached = buf;
    cached_second = now;
  }
  return cached;
}

std::string new_request_id() {
  // CSPRNG bytes are drawn a page at a time per thread: RAND_bytes() on every request
  // cost a getpid() system call (OpenSSL's fork check) and a DRBG round each time.
  constexpr size_t kIdBytes = 12;
  thread_local std::array<uint8_t, 4092> random{};  // a whole number of ids
  thread_local size_t used = random.size();
  uint8_t bytes[kIdBytes];
  bool drawn = true;
  if (used == random.size()) {
    drawn = RAND_bytes(random.data(), static_cast<int>(random.size())) == 1;
    if (drawn) used = 0;
  }
  if (drawn) {
    std::memcpy(bytes, random.data() + used, kIdBytes);
    used += kIdBytes;
  } else {
    // Unique is what matters here, not secret: fall back to time and a counter.
    thread_local uint64_t counter = 0;
    const uint64_t t =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(t >> (8 * i));
    ++counter;
    for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<uint8_t>(counter >> (8 * i));
  }
  return "req_" + to_hex(bytes, sizeof bytes);
}

HttpResponse json_response(unsigned status, const boost::json::object& body,
                           std::string_view request_id) {
  HttpResponse res{static_cast<http::status>(status), 11};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::date, http_date_now());
  res.set("X-Request-Id", request_id);
  res.set(http::field::cache_control, "no-store");
  res.body() = boost::json::serialize(body);
  res.prepare_payload();
  return res;
}

HttpResponse error_response(const ApiError& error, std::string_view request_id) {
  boost::json::object body;
  body["ok"] = false;
  body["error"] = error.error;
  if (error.code) body["code"] = static_cast<int>(*error.code);
  body["message"] = error.message;
  for (const auto& member : error.extra) body[member.key()] = member.value();
  body["requestId"] = request_id;
  HttpResponse res = json_response(static_cast<unsigned>(error.http_status), body, request_id);
  if (error.retry_after_seconds) {
    res.set(http::field::retry_after, std::to_string(*error.retry_after_seconds));
  }
  if (!error.allow.empty()) res.set(http::field::allow, error.allow);
  return res;
}

}  // namespace licensed
