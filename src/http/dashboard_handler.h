// The customer dashboard and the support view, under /dashboard on the public listener:
// the embedded pages and assets, and a small JSON API for the customer
// (/dashboard/api/...): sign in with the license key, see the license with the newest
// page of its history (GET /dashboard/api/license), page back through older history
// (GET /dashboard/api/audit?cursor=...&limit=...), free a slot, submit an offline request
// file (POST /dashboard/api/offline-activate, answered with the signed activation file) or
// a deactivation file (POST /dashboard/api/offline-deactivate), sign out. Reads are
// rate limited per session and per client IP (429 1706 with Retry-After), so a looping
// viewer cannot take the store from the License API. The support view's page signs in with an admin
// token and calls the admin API from the browser; it needs nothing more from the server. Thin: the
// decisions live in src/dashboard/customer_operations.*.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "auth/key_ring.h"
#include "auth/offline_files.h"
#include "auth/response_signer.h"
#include "dashboard/brand.h"
#include "dashboard/session_store.h"
#include "http/http_service.h"
#include "observability/error_reporter.h"
#include "ratelimit/rate_limiter.h"
#include "store/store.h"

namespace licensed {

struct DashboardConfig {
  Store* store = nullptr;
  const Clock* clock = nullptr;
  SessionStore* sessions = nullptr;
  // Counts every sign-in attempt per client IP; beyond it, 429 1706. Null: no limit.
  RateLimiter* sign_in_limiter = nullptr;
  ErrorReporter* error_reporter = nullptr;
  // Count every read (the license view, a history page), per session and per client IP;
  // beyond either, 429 1706 with bucket "session" or "ip". Null: no limit.
  RateLimiter* session_read_limiter = nullptr;
  RateLimiter* ip_read_limiter = nullptr;
  // The cookie is marked Secure when this is https (the public address is TLS), or
  // when the request says it came over https (X-Forwarded-Proto from a proxy).
  bool public_url_is_https = false;
  // Offline files (docs/protocol.md §21.2, §21.5) are checked with the License API's keys
  // and limits, and activation files signed (Ed25519) by its response signer: the same
  // code as POST /api/v1/license/offline-activate. Null keys or signer: the two routes
  // answer 1709.
  const KeyRing* keys = nullptr;
  OfflineFileLimits offline_limits;
  const ResponseSigner* response_signer = nullptr;
  // The hint of a 1705 (offline activation at the cap).
  std::optional<std::string> dashboard_url;
  // The vendor's name, logo and support link (--dashboard-brand).
  DashboardBrandAssets brand;
};

// A request of the dashboard's API on its way (dashboard_handler.cpp).
struct DashboardVisit;

inline constexpr std::string_view kDashboardPath = "/dashboard";
inline constexpr std::string_view kSessionCookie = "licensed_dashboard";
inline constexpr std::string_view kCsrfHeader = "X-CSRF-Token";
bool is_dashboard_path(std::string_view path);

class DashboardHandler final : public HttpService {
 public:
  explicit DashboardHandler(DashboardConfig config) : config_(std::move(config)) {}

  ApiResult<Route> route(std::string_view method, std::string_view path) const override;
  void serve(const Route& route, const HttpRequest& request, const RequestContext& ctx,
             HttpReply reply) const override;
  // Every answer under /dashboard, the server's own errors (404, 405, 413, ...) included,
  // leaves with the security headers and, unless it set its own, Cache-Control: no-store.
  void finish_response(HttpResponse& res, const HttpRequestHeader* request, const Route& route,
                       std::string_view path) const override;

 private:
  using Visit = std::shared_ptr<DashboardVisit>;
  using FoundSession = Result<std::optional<DashboardSession>>;

  // Each step runs on the request's connection; those after a session or bucket lookup
  // resume there once Redis answered (http/resume.h).
  void sign_in(const HttpRequest& request, const RequestContext& ctx, HttpReply reply) const;
  void look_up_license(const Visit& visit) const;
  // Sign-in by a 1705's one-time link ({"link": token}) instead of the key.
  void take_link(const Visit& visit, const boost::json::object& body) const;
  // Opens a session for `key` when it names a live license; `extra` joins the answer.
  void open_for_license(const Visit& visit, std::string key, boost::json::object extra) const;
  void find_session(const Visit& visit) const;
  void with_session(const Visit& visit, FoundSession found) const;
  // What a signed-in visit asks for: a view, a change, or signing out.
  void act(const Visit& visit) const;
  void sign_out(const Visit& visit) const;
  void show_license(const DashboardSession& session, const RequestContext& ctx,
                    const HttpReply& reply) const;
  void show_audit(const HttpRequest& request, const DashboardSession& session,
                  const RequestContext& ctx, const HttpReply& reply) const;
  void free_slot(const HttpRequest& request, const DashboardSession& session,
                 const RequestContext& ctx, const HttpReply& reply) const;
  // Both offline routes: the file read and checked here, its operation in a write
  // transaction (dashboard/customer_operations.h), an activation file signed after it.
  void submit_offline_file(const HttpRequest& request, const DashboardSession& session,
                           const RequestContext& ctx, const HttpReply& reply,
                           OfflineFileKind kind) const;

  DashboardConfig config_;
};

}  // namespace licensed
