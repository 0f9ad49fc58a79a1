#include "http/api_service.h"

#include <boost/beast/http/field.hpp>

#include "http/openapi_document.h"
#include "http/routes.h"

namespace licensed {

ApiResult<Route> ApiService::route(std::string_view method, std::string_view path) const {
  if (is_dashboard_path(path)) return dashboard_.route(method, path);
  if (is_admin_api_path(path)) return admin_.route(method, path);
  if (is_store_inbound_path(path)) return inbound_.route(method, path);
  if (is_claim_path(path)) return claim_.route(method, path);
  if (api_path_of(path) == kOpenApiPath) {
    if (method != "GET") return errors::method_not_allowed("GET");
    return Route{PublicRoute::kOpenApi, "other"};
  }
  return license_.route(method, path);
}

void ApiService::serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
                       HttpReply reply) const {
  if (route.is<DashboardRoute>()) return dashboard_.serve(route, request, ctx, std::move(reply));
  if (route.is<AdminRoute>()) return admin_.serve(route, request, ctx, std::move(reply));
  if (route.is<StoreRoute>()) return inbound_.serve(route, request, ctx, std::move(reply));
  if (route.is<ClaimRoute>()) return claim_.serve(route, request, ctx, std::move(reply));
  if (route.is<PublicRoute>() && route.as<PublicRoute>() == PublicRoute::kOpenApi) {
    HttpResponse res = json_response(200, {}, ctx.request_id);
    res.body() = std::string(openapi_json());
    res.set(boost::beast::http::field::cache_control, "public, max-age=300");
    res.prepare_payload();
    return reply(std::move(res));
  }
  license_.serve(route, request, ctx, std::move(reply));
}

void ApiService::finish_response(HttpResponse& res, const HttpRequestHeader* request,
                                 const Route& route, std::string_view path) const {
  // A declared length over 1 MiB is refused before the route is kept: the path tells.
  const bool too_large_delivery =
      !route.routed() && res.result_int() == 413 && parse_store_inbound_path(path);
  if (route.is<StoreRoute>() || too_large_delivery) {
    return inbound_.finish_response(res, request, route, path);
  }
  if (route.is<DashboardRoute>() || is_dashboard_path(path)) {
    return dashboard_.finish_response(res, request, route, path);
  }
  license_.finish_response(res, request, route, path);
}

}  // namespace licensed
