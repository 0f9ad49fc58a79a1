// The admin HTTP API (docs/protocol.md §18) on the public listener, under /api/v1/admin/:
// routes a request, takes its bearer token, and runs the call (src/admin/admin_api.h)
// in one store transaction together with the token check. Thin: the decisions live in
// the admin operations.
#pragma once

#include "admin/admin_api.h"
#include "admin/admin_offline.h"
#include "http/http_service.h"
#include "observability/error_reporter.h"
#include "outgoing/outgoing_client.h"
#include "ratelimit/memory_rate_limiter.h"
#include "redis/redis_workers.h"
#include "store/store.h"

namespace licensed {

struct AdminApiConfig {
  Store* store = nullptr;
  const Clock* clock = nullptr;
  // Counts failed token checks per client IP. Once its bucket is empty every call from
  // that IP, a right token's too, answers 429 1706 until it refills: a guess that
  // happened to be right must not be told apart from the wrong ones. In memory, per
  // instance, whatever the deployment keeps elsewhere. Null: no limit.
  MemoryRateLimiter* failed_auth_limiter = nullptr;
  // Where 500s (1709) are reported besides the log; null: only logged.
  ErrorReporter* error_reporter = nullptr;
  // --public-url: the start of a new store's inboundUrl; empty: it is a path.
  std::string public_url;
  // --webhook-allow-http and --webhook-allow-private: how a webhook endpoint's URL is
  // checked when it is given (docs/protocol.md §25.1; the host is resolved then, on a
  // worker before the call's transaction, and again by the dispatcher when it connects).
  OutgoingPolicy outgoing_policy;
  // Where that resolution runs, never a network or store thread; null: on the thread
  // that authenticated the call (tests without workers).
  RedisWorkers* workers = nullptr;
  // The signing keys, offline limits and response keys of the License API's offline
  // endpoints, for support's submissions of offline files (docs/protocol.md §21.7, §21.5).
  OfflineSubmission offline;
  // The trials' machine HMAC, for the overview's converted trials (docs/protocol.md §26.3);
  // null: none counts as converted.
  const TrialIdentity* trial_identity = nullptr;
};

// The first path of the admin API; every route is below it.
inline constexpr std::string_view kAdminApiPrefix = "/api/v1/admin/";
// True when `path` (a proxy prefix allowed) is the admin API's.
bool is_admin_api_path(std::string_view path);

class AdminApiHandler final : public HttpService {
 public:
  explicit AdminApiHandler(AdminApiConfig config) : config_(std::move(config)) {}

  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;

 private:
  // The call in its transaction, from the token's check to the answer.
  void run_call(AdminRoute route, ApiResult<AdminCall> parsed, std::string token,
                const RequestContext& ctx, const HttpReply& reply) const;
  // For a webhook URL: once a read checked that the token may write, the URL is resolved
  // and checked on a worker, and then the call runs with that verdict.
  void check_url_then_run(AdminRoute route, AdminCall call, std::string url,
                          const std::string& token, const RequestContext& ctx,
                          HttpReply reply) const;
  void refuse_token(const RequestContext& ctx, const HttpReply& reply) const;
  // The 429 while the client's failed-token bucket is empty; nullopt otherwise.
  std::optional<HttpResponse> locked_out(const RequestContext& ctx) const;

  AdminApiConfig config_;
};

}  // namespace licensed
