// Store deliveries (docs/protocol.md §22.2), POST /api/v1/stores/{provider}/{id}/{token} on the
// public listener. Only checks 1 (route), 2 (1 MiB: http/request_intake.h) and 3 (the
// per-IP bucket) of the License API apply, and answers are not signed. Thin: the store is
// found by id and token (admin/storefront_operations.h), the provider
// (admin/store_provider.h) checks authenticity and reads the event, a look-up through the
// provider's API completes it, and apply_store_event (admin/store_lifecycle.h) acts on it
// in one write transaction.
//
// Where each step runs: the checks and the read in a read transaction on a store thread
// (a few HMACs and a JSON parse); a look-up on a worker of its own (`workers`), never a
// network thread nor inside a transaction (it waits on the network); the write on a store
// thread. Any failed check, a wrong provider, id or token alike, answers 400 with an empty
// body, is audited store.rejected and counted in licensed_store_rejected_total; an accepted
// delivery, first or duplicate, answers 200 {"ok": true} (or, for a provider that answers
// keys as text, the order's keys one per line); a look-up that fails answers 503, so the
// provider delivers again later.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>

#include "admin/store_provider.h"
#include "core/log_throttle.h"
#include "http/http_service.h"
#include "observability/error_reporter.h"
#include "observability/server_metrics.h"
#include "ratelimit/rate_limiter.h"
#include "redis/redis_workers.h"
#include "store/store.h"

namespace licensed {

struct StoreInboundConfig {
  Store* store = nullptr;
  const Clock* clock = nullptr;
  RateLimiter* ip_limiter = nullptr;  // the License API's per-IP bucket (check 3); null: off
  ServerMetrics* metrics = nullptr;   // may be null
  // Makes the look-ups; null: every look-up fails (503).
  StoreApiCaller* api_caller = nullptr;
  // Where look-ups wait on the network (a plain job pool); null: on the thread that
  // finished the read (tests only).
  RedisWorkers* workers = nullptr;
  ErrorReporter* error_reporter = nullptr;  // 500s besides the log; may be null
};

// The first path of every inbound URL.
inline constexpr std::string_view kStoreInboundPrefix = "/api/v1/stores/";
bool is_store_inbound_path(std::string_view path);

// The parts of an inbound URL: three non-empty segments after the prefix.
struct StoreInboundTarget {
  std::string_view provider;
  std::string_view id;
  std::string_view token;
};
std::optional<StoreInboundTarget> parse_store_inbound_path(std::string_view path);

// `path` for logs and error reports: an inbound URL's token shows as *** (docs/protocol.md §22.1).
std::string masked_store_path(std::string_view path);

class StoreInboundHandler final : public HttpService {
 public:
  explicit StoreInboundHandler(StoreInboundConfig config) : config_(config) {}

  // 404 for a path under the prefix that is not provider/id/token; 405 (Allow: POST)
  // for another method on one that is.
  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;
  // Every answer but a 200 goes out without a body (no detail for a prober); a 413 made
  // before serving (over 1 MiB) is a failed check too: counted here, and audited at most
  // once a second (it comes before the IP bucket, and each record is a write).
  void finish_response(HttpResponse& res, const HttpRequestHeader* request, const Route& route,
                       std::string_view path) const override;

 private:
  StoreInboundConfig config_;
  // Thread-safe; mutable because answering is const.
  mutable LogThrottle too_large_records_{1000};
  // Deliveries waiting on a provider's API now: beyond kMaxWaitingLookUps a delivery
  // answers 503 at once, so a slow provider (or a flood through a leaked URL) cannot
  // queue memory and work without bound.
  mutable std::atomic<int> waiting_look_ups_{0};
};

}  // namespace licensed
