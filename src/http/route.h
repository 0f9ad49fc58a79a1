// A route as a value: which service answers a request and which of its endpoints,
// chosen once by check 1 (HttpService::route) and read by serve() and by the signing of
// answers, so neither derives it from the path again.
#pragma once

#include <string_view>
#include <variant>

#include "admin/admin_api.h"
#include "core/request_body.h"

namespace licensed {

// The public listener's answers that belong to no service of their own.
enum class PublicRoute {
  kPublicKeys,  // GET /api/v1/license/public-keys (docs/protocol.md §14)
  kOpenApi,     // GET /api/v1/openapi.json
};

// The customer dashboard and the support view (http/dashboard_handler.h).
enum class DashboardRoute {
  kCustomerPage,
  kSupportPage,
  kAsset,
  kSignIn,
  kSignOut,
  kLicense,
  kAudit,
  kFreeSlot,
  kOfflineActivate,
  kOfflineDeactivate,
  kBrand,      // GET /dashboard/api/brand
  kBrandLogo,  // GET /dashboard/brand-logo
};

// A store's deliveries, POST /api/v1/stores/{provider}/{id}/{token} (docs/protocol.md §22.2;
// http/store_inbound_handler.h): only checks 1-3 apply, answers are not signed.
enum class StoreRoute { kInbound };

// The claim page, GET /claim/{storeId}/{id} (docs/protocol.md §23; http/claim_handler.h): a
// server-rendered page of an order's keys, not signed.
enum class ClaimRoute { kPage };

// The admin listener's probes and metrics.
enum class OperatorRoute { kHealth, kReady, kMetrics };

// std::monostate: no route, the server answered before or instead of routing (431,
// 400, 404, 405). An Endpoint is one of the License API's four operations; AdminRoute
// is the admin API's (admin/admin_api.h).
using RouteTarget = std::variant<std::monostate, Endpoint, PublicRoute, AdminRoute, DashboardRoute,
                                 OperatorRoute, StoreRoute, ClaimRoute>;

struct Route {
  RouteTarget target;
  std::string_view label;  // names the route in metrics and logs

  bool routed() const { return !std::holds_alternative<std::monostate>(target); }
  template <class T>
  bool is() const {
    return std::holds_alternative<T>(target);
  }
  // The target as `T`; only after is<T>() (a route reaches only the service that made it).
  template <class T>
  T as() const {
    return std::get<T>(target);
  }
};

}  // namespace licensed
