// How a request is taken in, shared by the socket session (http_server.cpp) and the
// in-process exchange that fuzzers and tests drive: header limit (431), malformed
// requests (400: also no Host on HTTP/1.1, a trailer), transfer codings besides chunked
// (501), check 1 (route) before check 2 (declared size), then the body limit.
#pragma once

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/api_error.h"
#include "http/http_service.h"

namespace licensed {

struct HttpLimits {
  size_t max_body_bytes = 16 * 1024;
  size_t max_header_bytes = 8 * 1024;
  // A store's deliveries (docs/protocol.md §22.2: 1 MiB), the only route with a limit of its own.
  size_t max_store_body_bytes = 1024 * 1024;
};

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// The header limit, and the largest body any route takes: the route, known once the
// header is read, then narrows it (body_limit_for).
void apply_limits(RequestParser& parser, const HttpLimits& limits);
// The body limit of `route` (a store delivery's, else the listener's).
size_t body_limit_for(const Route& route, const HttpLimits& limits);

// What to do once the header was read (with `ec`, the read's error): read the body for
// `route` (the parser's body limit narrowed to the route's), or answer `refusal` at once. `path` is
// the target without its query string, empty when the header could not be parsed.
struct HeaderDecision {
  std::optional<Route> route;
  std::optional<ApiError> refusal;
  std::string path;
  size_t header_fields = 0;  // the header's fields, for refuse_trailer_fields
};
HeaderDecision decide_after_header(const HttpService& service, RequestParser& parser,
                                   boost::beast::error_code ec, const HttpLimits& limits);

// The header to hand HttpService::finish_response: nullptr unless it was parsed.
inline const HttpRequestHeader* parsed_header(const RequestParser& parser, std::string_view path) {
  return path.empty() ? nullptr : &parser.get();
}

// Readies any answer to be written: HTTP version, keep-alive, Content-Length, then the
// service's finish_response. The session and exchange_bytes both write every answer
// through here, so no answer escapes the service's last look.
void finalize_response(const HttpService& service, HttpResponse& res, unsigned version,
                       bool keep_alive, const HttpRequestHeader* request, const Route& route,
                       std::string_view path);

// What to do once the body read finished with `ec`: serve (nullopt), or answer the
// error. A broken connection (anything but the body limit) answers nothing.
// kBadFraming: chunk framing that is malformed (a chunk size that is no hex number) or
// never ends (the connection's buffer filled: an endless size line, extension or
// trailer). kBroken: the connection failed or closed mid-body; nobody to answer.
enum class BodyOutcome { kComplete, kTooLarge, kBadFraming, kBroken };
BodyOutcome classify_body_read(boost::beast::error_code ec);

// The most bytes a connection buffers: a whole header and body at their limits, and
// room for chunk framing. Beast (1.81) bounds the header and the body but not a chunk's
// size line, its extensions or the trailer, which would otherwise grow the buffer for
// as long as a client sends them.
// The largest of any route (what a connection is made with); connection_buffer_limit_for
// narrows it to one route's once its header is read.
size_t connection_buffer_limit(const HttpLimits& limits);
size_t connection_buffer_limit_for(const Route& route, const HttpLimits& limits);

// Once a body is read: 400 when a chunked body ended with trailer fields. Beast adds them
// to the request's own fields, where a signing header, Authorization or
// X-Forwarded-For sent after the body would pass for one sent before it.
std::optional<ApiError> refuse_trailer_fields(const RequestParser& parser, size_t header_fields);

// Answers every request in `bytes` (pipelined requests included) through `service`, as
// a connection from `client_ip` would see them, and returns the serialized answers.
// Blocks until each answer is ready; for fuzzers and tests, never the request path.
std::string exchange_bytes(const HttpService& service, const HttpLimits& limits,
                           std::string_view bytes, std::string_view client_ip);

}  // namespace licensed
