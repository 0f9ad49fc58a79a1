// The public listener's service: the License API (LicenseHandler), the admin API
// (AdminApiHandler, under /api/v1/admin/), store deliveries (StoreInboundHandler, under
// /api/v1/stores/), the OpenAPI document (GET /api/v1/openapi.json), the dashboard
// (DashboardHandler, under /dashboard) and the claim page (ClaimHandler, under /claim/),
// told apart by path.
#pragma once

#include "http/admin_api_handler.h"
#include "http/claim_handler.h"
#include "http/dashboard_handler.h"
#include "http/license_handler.h"
#include "http/store_inbound_handler.h"

namespace licensed {

class ApiService final : public HttpService {
 public:
  ApiService(const LicenseHandler& license, const AdminApiHandler& admin,
             const DashboardHandler& dashboard, const StoreInboundHandler& inbound,
             const ClaimHandler& claim)
      : license_(license), admin_(admin), dashboard_(dashboard), inbound_(inbound), claim_(claim) {}

  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;
  // The License API signs its answers; the others are not signed. Store deliveries'
  // answers, a 413 before routing included, are the inbound handler's.
  void finish_response(HttpResponse& res, const HttpRequestHeader* request, const Route& route,
                       std::string_view path) const override;

 private:
  const LicenseHandler& license_;
  const AdminApiHandler& admin_;
  const DashboardHandler& dashboard_;
  const StoreInboundHandler& inbound_;
  const ClaimHandler& claim_;
};

}  // namespace licensed
