#include "observability/http_post.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>

namespace licensed {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

HttpPostOutcome http_post(const HttpPostRequest& request,
                          std::chrono::steady_clock::time_point deadline) {
  HttpPostOutcome out;
  net::io_context ioc(1);
  beast::error_code ec;
  tcp::resolver resolver(ioc);
  const auto endpoints = resolver.resolve(request.host, std::to_string(request.port), ec);
  if (ec) {
    out.error = "cannot resolve " + request.host + ": " + ec.message();
    return out;
  }

  http::request<http::string_body> req{http::verb::post, request.target, 11};
  const bool ipv6 = request.host.find(':') != std::string::npos;
  req.set(http::field::host,
          (ipv6 ? "[" + request.host + "]" : request.host) + ":" + std::to_string(request.port));
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.keep_alive(false);
  req.body() = request.body;
  req.prepare_payload();

  // Async operations on a private io_context, so the stream's deadline covers connect,
  // write and read alike; run() returns when the chain ends, by success or by error.
  beast::tcp_stream stream(ioc);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024);
  stream.expires_at(deadline);
  const auto fail = [&](const char* step, beast::error_code e) {
    out.error = std::string(step) + ": " + e.message();
  };
  stream.async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) {
    if (e) return fail("connect", e);
    http::async_write(stream, req, [&](beast::error_code e, size_t) {
      if (e) return fail("send", e);
      http::async_read(stream, buffer, parser, [&](beast::error_code e, size_t) {
        if (e) return fail("read answer", e);
        const auto& res = parser.get();
        out.status = res.result_int();
        const auto it = res.find(http::field::retry_after);
        if (it != res.end()) {
          int64_t seconds = 0;
          const auto v = it->value();
          const auto [ptr, err] = std::from_chars(v.data(), v.data() + v.size(), seconds);
          if (err == std::errc() && ptr == v.data() + v.size() && seconds >= 0) {
            out.retry_after_seconds = seconds;
          }
        }
      });
    });
  });
  ioc.run();
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream.close();
  return out;
}

}  // namespace licensed
