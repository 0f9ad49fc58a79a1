// The License API endpoints: runs the pipeline, then the operation on a store thread,
// and hands the answer back. Thin: all decisions live in the pipeline and operations.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "http/http_service.h"
#include "http/request_pipeline.h"
#include "http/response.h"
#include "observability/error_reporter.h"
#include "observability/server_metrics.h"
#include "store/store.h"

namespace licensed {

struct LicenseHandlerConfig {
  PipelineContext pipeline;
  Store* store = nullptr;
  std::optional<std::string> dashboard_url;
  ServerMetrics* metrics = nullptr;  // may be null
  // Where 500s (1709) are reported besides the log; null: only logged.
  ErrorReporter* error_reporter = nullptr;
};

class LicenseHandler final : public HttpService {
 public:
  explicit LicenseHandler(LicenseHandlerConfig config) : config_(std::move(config)) {}

  Result<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;

  // `reply` is called exactly once, possibly on a store thread.
  void handle(Endpoint endpoint, const IncomingRequest& in, std::string request_id,
              HttpReply reply) const;

 private:
  LicenseHandlerConfig config_;
};

}  // namespace licensed
