// What an HTTP listener serves. The server owns sockets, limits and timeouts; a service
// only routes a parsed header and answers a complete request. The License API and the
// admin endpoints (health, metrics) are two services on two listeners. A service is
// called from every network thread at once, so it keeps no per-request state of its own.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <functional>
#include <string_view>

#include "core/result.h"
#include "http/response.h"
#include "http/resume.h"
#include "http/route.h"

namespace licensed {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpRequestHeader = boost::beast::http::request_header<>;
// Called exactly once with the answer, from any thread.
using HttpReply = std::function<void(HttpResponse)>;

// Everything about a request besides its bytes.
struct RequestContext {
  std::string_view path;  // without query string
  std::string_view client_ip;
  std::string_view request_id;
  // Where the request resumes after it parked (http/resume.h).
  ConnectionExecutor executor;
};

class HttpService {
 public:
  virtual ~HttpService() = default;
  // Check 1 of docs/protocol.md §3.5: an unknown path or method is answered before the body is
  // read.
  virtual ApiResult<Route> route(std::string_view method, std::string_view path) const = 0;
  // Answers through `reply`. It may park the request (on Redis) and answer after it
  // returns: `request` and the strings `ctx` points to stay valid until `reply` is
  // called (the connection reads nothing more meanwhile); `ctx` itself is the caller's,
  // so a parked request keeps a copy.
  virtual void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
                     HttpReply reply) const = 0;
  // The last look at every answer on this listener, just before it is written: the ones
  // serve() made and the ones the server made itself before or instead of serving (431,
  // 400, 404, 405, 413), so nothing bypasses it. `route` is what route() chose, or no
  // route (monostate) when the server answered before or instead of routing; `request`
  // is the request's header, or nullptr when it could not be parsed (`path`, without
  // query string, is then empty). Status, headers and body are final here
  // (prepare_payload has run) and nothing changes them afterwards.
  virtual void finish_response(HttpResponse& res, const HttpRequestHeader* request,
                               const Route& route, std::string_view path) const {}
};

}  // namespace licensed
