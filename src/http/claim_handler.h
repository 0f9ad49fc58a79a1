// The claim page, GET /claim/{storeId}/{id} on the public listener (docs/protocol.md §23): the
// keys of a Stripe Checkout session or a Lemon Squeezy order, as a server-rendered page.
// Thin: the decisions and the HTML are dashboard/claim.h's. Every request counts in the
// License API's per-IP bucket (429 with Retry-After beyond it); every answer carries
// Cache-Control: no-store, Referrer-Policy: no-referrer and the dashboard's other
// security headers (a CSP without inline script or style, nosniff, frame DENY). Whatever
// finds no keys answers 404 with one page (dashboard/claim.h: no oracle).
#pragma once

#include <string_view>

#include "http/http_service.h"
#include "observability/error_reporter.h"
#include "observability/server_metrics.h"
#include "ratelimit/rate_limiter.h"
#include "store/store.h"

namespace licensed {

struct ClaimConfig {
  Store* store = nullptr;
  const Clock* clock = nullptr;
  RateLimiter* ip_limiter = nullptr;        // the License API's per-IP bucket; null: off
  ServerMetrics* metrics = nullptr;         // may be null
  ErrorReporter* error_reporter = nullptr;  // 500s besides the log; may be null
};

inline constexpr std::string_view kClaimPrefix = "/claim/";
bool is_claim_path(std::string_view path);

class ClaimHandler final : public HttpService {
 public:
  explicit ClaimHandler(ClaimConfig config) : config_(config) {}

  // Every path under /claim/ is the page's, whatever its segments (a wrong one finds
  // nothing, answered as any other); 405 (Allow: GET) for another method.
  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;

 private:
  ClaimConfig config_;
};

}  // namespace licensed
