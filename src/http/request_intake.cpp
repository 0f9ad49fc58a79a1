#include "http/request_intake.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <future>
#include <sstream>

#include "http/routes.h"

namespace licensed {

namespace beast = boost::beast;
namespace http = beast::http;

void apply_limits(RequestParser& parser, const HttpLimits& limits) {
  parser.header_limit(static_cast<uint32_t>(limits.max_header_bytes));
  parser.body_limit(limits.max_body_bytes);
}

HeaderDecision decide_after_header(const HttpService& service, const RequestParser& parser,
                                   beast::error_code ec, const HttpLimits& limits) {
  HeaderDecision d;
  if (ec == http::error::header_limit) {
    d.refusal = errors::header_too_large(static_cast<int64_t>(limits.max_header_bytes));
    return d;
  }
  // Beast refuses a declared Content-Length over the body limit while it reads the
  // header; the header is complete by then, and the route (check 1) still comes first.
  const bool declared_too_large = ec == http::error::body_limit;
  if (ec ? !declared_too_large : !parser.is_header_done()) {
    d.refusal = errors::bad_http_request();
    return d;
  }
  const auto& req = parser.get();
  d.path = std::string(path_of(req.target()));
  auto route = service.route(req.method_string(), d.path);
  if (!route.ok()) {
    // The body was not read: the connection cannot carry another request after it.
    d.refusal = std::move(route.error());
    // (content_length() and chunked() may only be asked once the header is done.)
    d.refusal->close_connection =
        declared_too_large || parser.content_length().value_or(0) > 0 || parser.chunked();
    return d;
  }
  // Check 2: a declared length over the limit is refused before reading the body.
  if (declared_too_large || parser.content_length().value_or(0) > limits.max_body_bytes) {
    d.refusal = errors::body_too_large(static_cast<int64_t>(limits.max_body_bytes));
    return d;
  }
  d.route = route.value();
  return d;
}

BodyOutcome classify_body_read(beast::error_code ec) {
  if (!ec) return BodyOutcome::kComplete;
  if (ec == http::error::body_limit) return BodyOutcome::kTooLarge;
  return BodyOutcome::kBroken;
}

void finalize_response(const HttpService& service, HttpResponse& res, unsigned version,
                       bool keep_alive, const HttpRequestHeader* request, std::string_view path) {
  res.version(version);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  service.finish_response(res, request, path);
}

namespace {

std::string serialize(const HttpService& service, HttpResponse& res, unsigned version,
                      bool keep_alive, const RequestParser& parser, std::string_view path) {
  finalize_response(service, res, version, keep_alive, parsed_header(parser, path), path);
  std::ostringstream out;
  out << res;
  return out.str();
}

HttpResponse wait_for_answer(const HttpService& service, const Route& route,
                             const HttpRequest& request, const RequestContext& ctx) {
  std::promise<HttpResponse> answered;
  auto future = answered.get_future();
  service.serve(route, request, ctx,
                [&answered](HttpResponse res) { answered.set_value(std::move(res)); });
  return future.get();
}

}  // namespace

std::string exchange_bytes(const HttpService& service, const HttpLimits& limits,
                           std::string_view bytes, std::string_view client_ip) {
  std::string out;
  while (!bytes.empty()) {
    RequestParser parser;
    apply_limits(parser, limits);
    parser.eager(false);
    beast::error_code ec;
    // Header first, as the session reads it.
    while (!parser.is_header_done() && !ec && !bytes.empty()) {
      const size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
      bytes.remove_prefix(used);
      if (ec == http::error::need_more) {
        ec = {};
        if (used == 0) break;  // the rest is an incomplete header: the peer would wait
      }
    }
    if (!parser.is_header_done() && !ec) break;
    const std::string request_id = new_request_id();
    HeaderDecision decision = decide_after_header(service, parser, ec, limits);
    // An unparsed header reads as a default HTTP/1.1 message; refusals of it close.
    const unsigned version = parser.get().version() == 10 ? 10 : 11;
    const bool wants_keep_alive = parser.get().keep_alive();
    if (decision.refusal) {
      HttpResponse res = error_response(*decision.refusal, request_id);
      const bool keep = wants_keep_alive && !decision.refusal->close_connection;
      out += serialize(service, res, version, keep, parser, decision.path);
      if (!keep) break;
      continue;
    }
    parser.eager(true);
    while (!parser.is_done() && !ec && !bytes.empty()) {
      const size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
      bytes.remove_prefix(used);
      if (ec == http::error::need_more) {
        ec = {};
        if (used == 0) break;
      }
    }
    if (!parser.is_done() && !ec) break;  // the body never completes: no answer
    switch (classify_body_read(ec)) {
      case BodyOutcome::kTooLarge: {
        HttpResponse res = error_response(
            errors::body_too_large(static_cast<int64_t>(limits.max_body_bytes)), request_id);
        out += serialize(service, res, version, false, parser, decision.path);
        return out;
      }
      case BodyOutcome::kBroken:
        return out;
      case BodyOutcome::kComplete:
        break;
    }
    const RequestContext ctx{decision.path, client_ip, request_id};
    HttpResponse res = wait_for_answer(service, *decision.route, parser.get(), ctx);
    out += serialize(service, res, version, wants_keep_alive, parser, decision.path);
    if (!wants_keep_alive) break;
  }
  return out;
}

}  // namespace licensed
