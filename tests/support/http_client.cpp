#include "support/http_client.h"

#include <strings.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <sstream>

namespace bb {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Connects, runs `write` (which must call its completion once), then reads one response,
// even when the write failed: a server may answer and close before reading a body.
using WriteStep = std::function<void(beast::tcp_stream&, std::function<void(error_code)>)>;

// `source`: the local address to connect from (any loopback address works on Linux), or
// empty for the kernel's choice.
HttpResponse Exchange(std::uint16_t port, std::chrono::milliseconds timeout, const WriteStep& write,
                      std::string_view source = {}) {
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  HttpResponse out;
  error_code write_ec;

  stream.expires_after(timeout);
  if (!source.empty()) {
    error_code ec;
    stream.socket().open(tcp::v4(), ec);
    if (!ec) stream.socket().bind(tcp::endpoint(asio::ip::make_address_v4(source, ec), 0), ec);
    if (ec) {
      out.error = "bind " + std::string(source) + ": " + ec.message();
      return out;
    }
  }
  const tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), port);
  stream.async_connect(endpoint, [&](error_code ec) {
    if (ec) {
      out.error = "connect: " + ec.message();
      return;
    }
    write(stream, [&](error_code wec) {
      write_ec = wec;
      http::async_read(stream, buffer, parser, [&](error_code rec, std::size_t) {
        if (rec) {
          out.error = "read: " + rec.message();
          if (write_ec) out.error += " (after write error: " + write_ec.message() + ")";
          return;
        }
        const auto& res = parser.get();
        out.status = static_cast<int>(res.result_int());
        for (const auto& field : res) {
          out.headers.push_back({std::string(field.name_string()), std::string(field.value())});
        }
        out.body = res.body();
      });
    });
  });
  ioc.run();
  error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream.socket().close(ignored);
  return out;
}

}  // namespace

void HttpRequest::Set(std::string_view name, std::string value) {
  Remove(name);
  headers.push_back({std::string(name), std::move(value)});
}

void HttpRequest::Remove(std::string_view name) {
  std::erase_if(headers, [&](const Header& h) { return SameName(h.name, name); });
}

std::optional<std::string> HttpRequest::Get(std::string_view name) const {
  for (const auto& h : headers) {
    if (SameName(h.name, name)) return h.value;
  }
  return std::nullopt;
}

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& h : headers) {
    if (SameName(h.name, name)) return h.value;
  }
  return std::nullopt;
}

std::string HttpResponse::Describe() const {
  std::string s = "HTTP " + std::to_string(status);
  if (!error.empty()) s += " [" + error + "]";
  s += "\n";
  for (const auto& h : headers) s += h.name + ": " + h.value + "\n";
  s += "\n" + (body.size() > 2000 ? body.substr(0, 2000) + "..." : body);
  return s;
}

namespace {
http::request<http::string_body> ToBeast(std::uint16_t port, const HttpRequest& request) {
  http::request<http::string_body> req;
  req.version(11);
  const http::verb verb = http::string_to_verb(request.method);
  if (verb == http::verb::unknown) {
    req.method_string(request.method);
  } else {
    req.method(verb);
  }
  req.target(request.target);
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  for (const auto& h : request.headers) req.insert(h.name, h.value);
  req.body() = request.body;
  req.prepare_payload();
  return req;
}
}  // namespace

std::string Serialize(std::uint16_t port, const HttpRequest& request) {
  std::ostringstream out;
  out << ToBeast(port, request);
  return out.str();
}

HttpResponse Send(std::uint16_t port, const HttpRequest& request,
                  std::chrono::milliseconds timeout) {
  return SendFrom({}, port, request, timeout);
}

HttpResponse SendFrom(std::string_view source, std::uint16_t port, const HttpRequest& request,
                      std::chrono::milliseconds timeout) {
  const auto req = ToBeast(port, request);
  return Exchange(
      port, timeout,
      [&](beast::tcp_stream& stream, auto done) {
        http::async_write(stream, req, [done](error_code ec, std::size_t) { done(ec); });
      },
      source);
}

HttpResponse SendRaw(std::uint16_t port, std::string_view bytes,
                     std::chrono::milliseconds timeout) {
  return Exchange(port, timeout, [&](beast::tcp_stream& stream, auto done) {
    asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()),
                      [done](error_code ec, std::size_t) { done(ec); });
  });
}

}  // namespace bb
