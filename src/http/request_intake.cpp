#include "http/request_intake.h"

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <future>
#include <iterator>
#include <sstream>
#include <vector>

#include "core/text.h"
#include "http/routes.h"

namespace licensed {

namespace beast = boost::beast;
namespace http = beast::http;

void apply_limits(RequestParser& parser, const HttpLimits& limits) {
  parser.header_limit(static_cast<uint32_t>(limits.max_header_bytes));
  parser.body_limit(std::max(limits.max_body_bytes, limits.max_store_body_bytes));
}

size_t body_limit_for(const Route& route, const HttpLimits& limits) {
  return route.is<StoreRoute>() ? limits.max_store_body_bytes : limits.max_body_bytes;
}

namespace {

// RFC 9110 5.6.2: a token's characters.
bool is_token(std::string_view s) {
  constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  if (s.empty()) return false;
  for (const char c : s) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && kSymbols.find(c) == std::string_view::npos) return false;
  }
  return true;
}

bool is_chunked(std::string_view coding) {
  constexpr std::string_view kChunked = "chunked";
  if (coding.size() != kChunked.size()) return false;
  for (size_t i = 0; i < coding.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(coding[i])) != kChunked[i]) return false;
  }
  return true;
}

// The coding names of Transfer-Encoding's lists (RFC 9112 6.1), parameters dropped and
// empty list elements skipped; nullopt when one is not a token or there is none.
std::optional<std::vector<std::string_view>> transfer_codings(const HttpRequestHeader& req) {
  std::vector<std::string_view> codings;
  const auto [first, last] = req.equal_range(http::field::transfer_encoding);
  for (auto it = first; it != last; ++it) {
    std::string_view list(it->value().data(), it->value().size());
    for (;;) {
      const size_t comma = list.find(',');
      const std::string_view element = trim_blanks(list.substr(0, comma));
      const std::string_view name = trim_blanks(element.substr(0, element.find(';')));
      if (!element.empty() && !is_token(name)) return std::nullopt;
      if (!element.empty()) codings.push_back(name);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  if (codings.empty()) return std::nullopt;
  return codings;
}

// Transfer-Encoding: chunked alone, or none. Beast reads a list not ending in chunked as
// a request without a body, and the bytes after the header (its body) as the next
// request: a smuggled one (RFC 9112 6.3). A list that is not one of codings is malformed
// (400); a coding besides chunked is one we do not implement (501, as nginx answers).
// Beast's own verdict (`chunked()`) must agree, since it is what frames the body.
std::optional<ApiError> check_transfer_coding(const RequestParser& parser) {
  const auto& req = parser.get();
  if (req.find(http::field::transfer_encoding) == req.end()) return std::nullopt;
  // RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
  if (req.version() < 11) return errors::bad_http_request("Transfer-Encoding in HTTP/1.0");
  const auto codings = transfer_codings(req);
  if (!codings) return errors::bad_http_request("malformed Transfer-Encoding");
  if (codings->size() != 1 || !is_chunked(codings->front()) || !parser.chunked()) {
    return errors::transfer_coding_not_implemented();
  }
  return std::nullopt;
}

// HTTP-level faults of a parsed header that Beast lets through: the framing above, and
// RFC 9112 3.2's Host, exactly one on HTTP/1.1.
std::optional<ApiError> check_framing(const RequestParser& parser) {
  if (auto e = check_transfer_coding(parser)) return e;
  const auto& req = parser.get();
  if (req.version() >= 11 && req.count(http::field::host) != 1) {
    return errors::bad_http_request("an HTTP/1.1 request needs exactly one Host header");
  }
  return std::nullopt;
}

size_t field_count(const HttpRequestHeader& req) {
  return static_cast<size_t>(std::distance(req.begin(), req.end()));
}

}  // namespace

HeaderDecision decide_after_header(const HttpService& service, RequestParser& parser,
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
  d.header_fields = field_count(req);
  if (auto e = check_framing(parser)) {
    d.refusal = std::move(*e);
    return d;
  }
  auto route = service.route(req.method_string(), d.path);
  if (!route.ok()) {
    // The body was not read: the connection cannot carry another request after it.
    d.refusal = std::move(route.error());
    // (content_length() and chunked() may only be asked once the header is done.)
    d.refusal->close_connection =
        declared_too_large || parser.content_length().value_or(0) > 0 || parser.chunked();
    return d;
  }
  // Check 2: a declared length over the route's limit is refused before reading the body.
  const size_t limit = body_limit_for(route.value(), limits);
  if (declared_too_large || parser.content_length().value_or(0) > limit) {
    d.refusal = errors::body_too_large(static_cast<int64_t>(limit));
    return d;
  }
  // Beast checks a chunked body against it as the chunks come (no body byte is read yet).
  parser.body_limit(limit);
  d.route = route.value();
  return d;
}

BodyOutcome classify_body_read(beast::error_code ec) {
  if (!ec) return BodyOutcome::kComplete;
  if (ec == http::error::body_limit) return BodyOutcome::kTooLarge;
  if (ec == http::error::buffer_overflow || ec == http::error::bad_chunk ||
      ec == http::error::bad_chunk_extension) {
    return BodyOutcome::kBadFraming;
  }
  return BodyOutcome::kBroken;
}

namespace {
constexpr size_t kFramingRoom = 8 * 1024;
}  // namespace

size_t connection_buffer_limit(const HttpLimits& limits) {
  return limits.max_header_bytes + std::max(limits.max_body_bytes, limits.max_store_body_bytes) +
         kFramingRoom;
}

size_t connection_buffer_limit_for(const Route& route, const HttpLimits& limits) {
  return limits.max_header_bytes + body_limit_for(route, limits) + kFramingRoom;
}

std::optional<ApiError> refuse_trailer_fields(const RequestParser& parser, size_t header_fields) {
  if (field_count(parser.get()) == header_fields) return std::nullopt;
  return errors::bad_http_request("trailer fields are not accepted");
}

void finalize_response(const HttpService& service, HttpResponse& res, unsigned version,
                       bool keep_alive, const HttpRequestHeader* request, const Route& route,
                       std::string_view path) {
  res.version(version);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  service.finish_response(res, request, route, path);
  // RFC 9110 9.3.2: the answer to HEAD is the header a GET would get, without the body
  // (its Content-Length stays). Sent, the body would be read as the next answer.
  if (request != nullptr && request->method() == http::verb::head) res.body().clear();
}

namespace {

std::string serialize(const HttpService& service, HttpResponse& res, unsigned version,
                      bool keep_alive, const RequestParser& parser,
                      const HeaderDecision& decision) {
  finalize_response(service, res, version, keep_alive, parsed_header(parser, decision.path),
                    decision.route.value_or(Route{}), decision.path);
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
      out += serialize(service, res, version, keep, parser, decision);
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
            errors::body_too_large(static_cast<int64_t>(body_limit_for(*decision.route, limits))),
            request_id);
        out += serialize(service, res, version, false, parser, decision);
        return out;
      }
      case BodyOutcome::kBadFraming: {
        HttpResponse res = error_response(errors::bad_chunk_framing(), request_id);
        out += serialize(service, res, version, false, parser, decision);
        return out;
      }
      case BodyOutcome::kBroken:
        return out;
      case BodyOutcome::kComplete:
        break;
    }
    if (auto refused = refuse_trailer_fields(parser, decision.header_fields)) {
      HttpResponse res = error_response(*refused, request_id);
      out += serialize(service, res, version, false, parser, decision);
      return out;
    }
    // No connection's thread: a request that parks goes on where it is answered.
    const RequestContext ctx{decision.path, client_ip, request_id, {}};
    HttpResponse res = wait_for_answer(service, *decision.route, parser.get(), ctx);
    out += serialize(service, res, version, wants_keep_alive, parser, decision);
    if (!wants_keep_alive) break;
  }
  return out;
}

}  // namespace licensed
