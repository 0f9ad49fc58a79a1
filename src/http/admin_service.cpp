#include "http/admin_service.h"

#include <boost/beast/http/field.hpp>
#include <memory>

namespace licensed {

namespace http = boost::beast::http;

namespace {

ApiError unready(std::string message) {
  return errors::unavailable(1, std::move(message));
}

}  // namespace

ApiResult<Route> AdminService::route(std::string_view method, std::string_view path) const {
  Route r;
  if (path == "/healthz") {
    r = {OperatorRoute::kHealth, "healthz"};
  } else if (path == "/readyz") {
    r = {OperatorRoute::kReady, "readyz"};
  } else if (path == "/metrics") {
    r = {OperatorRoute::kMetrics, "metrics"};
  } else {
    return errors::route_not_found();
  }
  if (method != "GET" && method != "HEAD") {
    return errors::method_not_allowed("GET, HEAD");
  }
  return r;
}

void AdminService::serve(const Route& route, const HttpRequest&, const RequestContext& ctx,
                         HttpReply reply) const {
  switch (route.as<OperatorRoute>()) {
    case OperatorRoute::kHealth:
      return reply(json_response(200, {{"ok", true}}, ctx.request_id));
    case OperatorRoute::kReady:
      return serve_readiness(ctx, std::move(reply));
    case OperatorRoute::kMetrics: {
      HttpResponse res{http::status::ok, 11};
      res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      res.set(http::field::date, http_date_now());
      res.set("X-Request-Id", ctx.request_id);
      res.set(http::field::cache_control, "no-store");
      res.body() = config_.metrics ? config_.metrics->render_prometheus() : std::string();
      return reply(std::move(res));
    }
  }
}

void AdminService::serve_readiness(const RequestContext& ctx, HttpReply reply) const {
  if (config_.accepting && !config_.accepting()) {
    return reply(error_response(unready("the server is shutting down"), ctx.request_id));
  }
  // Reads would still answer from the file as it was opened; what matters is that writes
  // are no longer kept (store.h).
  if (const auto why = config_.store->unusable()) {
    return reply(error_response(unready(*why), ctx.request_id));
  }
  // A read through the store proves its connections work, not only that it was opened.
  submit_call<Ok>(
      *config_.store, TxKind::kRead,
      [](StoreTx& tx) -> Status {
        RETURN_IF_ERROR(tx.list_products());
        return Ok{};
      },
      [request_id = std::string(ctx.request_id), reply = std::move(reply)](const Status& read) {
        if (!read.ok()) {
          return reply(error_response(unready("the license store does not answer"), request_id));
        }
        reply(json_response(200, {{"ok", true}}, request_id));
      });
}

}  // namespace licensed
