// The operator's endpoints, served on the admin listener (loopback by default, apart
// from the public API): /healthz (the process answers), /readyz (it can serve: the
// store answers a read and the API is not draining) and /metrics (Prometheus text).
#pragma once

#include <functional>

#include "http/http_service.h"
#include "observability/server_metrics.h"
#include "store/store.h"

namespace licensed {

struct AdminServiceConfig {
  const ServerMetrics* metrics = nullptr;
  Store* store = nullptr;
  std::function<bool()> accepting;  // false while the API listener drains
};

class AdminService final : public HttpService {
 public:
  explicit AdminService(AdminServiceConfig config) : config_(std::move(config)) {}

  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;

 private:
  void serve_readiness(const RequestContext& ctx, HttpReply reply) const;

  AdminServiceConfig config_;
};

}  // namespace licensed
