#include "fuzz_checks.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>
#include <cstdio>

namespace licensed::fuzz {
namespace {

namespace http = boost::beast::http;
namespace json = boost::json;

using ResponseParser = http::response_parser<http::string_body>;

std::string_view header(const ResponseParser::value_type& res, std::string_view name) {
  const auto it = res.find(name);
  if (it == res.end()) return {};
  return {it->value().data(), it->value().size()};
}

bool is_int(const json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && (v->is_int64() || v->is_uint64());
}

bool is_string(const json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && v->is_string();
}

std::string_view string_of(const json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  if (v == nullptr || !v->is_string()) return {};
  return {v->get_string().data(), v->get_string().size()};
}

// docs/protocol.md §5's table: the HTTP status of each code.
bool status_matches_code(unsigned status, int code) {
  switch (code) {
    case 1700:
    case 1701:
      return status == 401;
    case 1702:
      return status == 400 || status == 413;
    case 1703:
    case 1707:
      return status == 404;
    case 1704:
      return status == 403;
    case 1705:
      return status == 409;
    case 1706:
      return status == 429;
    default:
      return false;
  }
}

void check_error_members(const ResponseParser::value_type& res, const json::object& body,
                         Answer& answer) {
  require(is_string(body, "error") && !string_of(body, "error").empty(), "error without `error`");
  require(is_string(body, "message"), "error without `message`");
  require(string_of(body, "requestId") == header(res, "X-Request-Id"),
          "`requestId` differs from X-Request-Id");
  const auto* code = body.if_contains("code");
  if (code == nullptr) {
    // Routing and HTTP-level refusals carry the error shape without a numeric code (501:
    // a transfer coding other than chunked alone).
    const unsigned s = answer.status;
    require(s == 400 || s == 404 || s == 405 || s == 431 || s == 501,
            "code-less error with odd status");
    if (s == 405) require(header(res, "Allow") == "POST", "405 without Allow: POST");
    return;
  }
  require(code->is_int64(), "`code` is not an integer");
  answer.code = static_cast<int>(code->get_int64());
  require(*answer.code != 1708, "1708: the store refused work (should be impossible here)");
  require(*answer.code != 1709, "1709: internal error");
  require(status_matches_code(answer.status, *answer.code), "code and HTTP status disagree");
  switch (*answer.code) {
    case 1700: {
      answer.reason = std::string(string_of(body, "reason"));
      const std::string_view r = answer.reason;
      require(r == "missing_header" || r == "malformed_header" || r == "unknown_key" ||
                  r == "signature_mismatch" || r == "nonce_reused",
              "1700 with an unknown reason");
      break;
    }
    case 1701:
      require(is_int(body, "serverTime"), "1701 without serverTime");
      break;
    case 1704:
      require(is_string(body, "status"), "1704 without status");
      break;
    case 1705:
      require(is_int(body, "activations") && is_int(body, "max") && body.contains("dashboardUrl"),
              "1705 without activations, max, dashboardUrl");
      break;
    case 1706: {
      const auto bucket = string_of(body, "bucket");
      require(bucket == "ip" || bucket == "key", "1706 with an odd bucket");
      require(is_int(body, "retryAfter") && body.at("retryAfter").to_number<int64_t>() >= 1,
              "1706 without retryAfter >= 1");
      require(header(res, "Retry-After") == std::to_string(body.at("retryAfter").as_int64()),
              "Retry-After header differs from retryAfter");
      break;
    }
    default:
      break;
  }
}

}  // namespace

void fail(std::string_view what) {
  std::fprintf(stderr, "\n==== fuzz invariant violated: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::fflush(stderr);
  __builtin_trap();
}

std::vector<bool> head_requests(std::string_view requests) {
  std::vector<bool> heads;
  while (!requests.empty()) {
    http::request_parser<http::string_body> parser;
    parser.eager(true);
    parser.body_limit(1 << 20);
    parser.header_limit(1 << 20);
    boost::beast::error_code ec;
    while (!parser.is_done() && !ec && !requests.empty()) {
      const size_t used = parser.put(boost::asio::buffer(requests.data(), requests.size()), ec);
      requests.remove_prefix(used);
      if (ec == http::error::need_more) ec = {};
      if (used == 0 && !ec) break;
    }
    if (!parser.is_header_done()) break;
    heads.push_back(parser.get().method() == http::verb::head);
    if (ec || !parser.is_done()) break;
  }
  return heads;
}

namespace {

// Feeds `bytes` to `parser` until it is done, fails or wants more than there is; returns
// how many bytes it used.
size_t parse_answer(ResponseParser& parser, std::string_view bytes, boost::beast::error_code& ec) {
  parser.eager(true);
  parser.body_limit(1 << 20);
  size_t total = 0;
  while (!parser.is_done() && !ec && total < bytes.size()) {
    const size_t used =
        parser.put(boost::asio::buffer(bytes.data() + total, bytes.size() - total), ec);
    total += used;
    if (ec == http::error::need_more) ec = {};
    if (used == 0 && !ec) break;
  }
  return total;
}

}  // namespace

std::vector<Answer> check_answers(std::string_view bytes, std::string_view requests) {
  const std::vector<bool> heads = head_requests(requests);
  std::vector<Answer> answers;
  bool closed = false;
  while (!bytes.empty()) {
    require(!closed, "an answer after one that closed the connection");
    const bool to_head = answers.size() < heads.size() && heads[answers.size()];
    // RFC 9110 9.3.2: an answer to HEAD carries a GET's Content-Length and no body. A
    // request the server refused before reading its header whole is answered with a
    // body even when its first line says HEAD: then what follows the header is no answer.
    std::optional<ResponseParser> parser(std::in_place);
    parser->skip(to_head);
    boost::beast::error_code ec;
    size_t used = parse_answer(*parser, bytes, ec);
    const std::string_view rest = bytes.substr(used);
    if (to_head && (ec || (!rest.empty() && rest.substr(0, 5) != "HTTP/"))) {
      parser.emplace();
      ec = {};
      used = parse_answer(*parser, bytes, ec);
    }
    bytes.remove_prefix(used);
    require(!ec, "an answer is not a well-formed HTTP response");
    require(parser->is_done(), "an answer is truncated");
    const auto& res = parser->get();

    Answer answer;
    answer.status = res.result_int();
    closed = !res.keep_alive();
    require(!header(res, "Date").empty(), "an answer without Date");
    require(!header(res, "X-Request-Id").empty(), "an answer without X-Request-Id");
    require(header(res, "Content-Type") == "application/json", "an answer that is not JSON");
    if (to_head && res.body().empty()) {
      answer.ok = answer.status == 200;
      answers.push_back(std::move(answer));
      continue;
    }
    json::error_code jec;
    const json::value body = json::parse(res.body(), jec);
    require(!jec && body.is_object(), "an answer body that is not a JSON object");
    const json::object& o = body.get_object();
    const auto* ok = o.if_contains("ok");
    require(ok != nullptr && ok->is_bool(), "an answer body without a boolean `ok`");
    answer.ok = ok->get_bool();
    require(answer.ok == (answer.status == 200), "`ok` disagrees with the HTTP status");
    if (!answer.ok) check_error_members(res, o, answer);
    answers.push_back(std::move(answer));
  }
  return answers;
}

}  // namespace licensed::fuzz
