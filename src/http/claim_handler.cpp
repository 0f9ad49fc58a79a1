#include "http/claim_handler.h"

#include <spdlog/spdlog.h>

#include <boost/beast/http/field.hpp>
#include <memory>
#include <optional>
#include <string>

#include "dashboard/claim.h"
#include "http/bucket_check.h"
#include "http/client_address.h"
#include "observability/internal_error.h"

namespace licensed {
namespace {

namespace http = boost::beast::http;

// The dashboard's policy (http/dashboard_handler.cpp): nothing inline runs, nothing
// but the page's own stylesheet loads, and no form posts anywhere.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";
constexpr int64_t kRetryAfterSeconds = 30;

// The request's part the answer needs, kept past a park on Redis.
struct ClaimVisit {
  std::string store_id;
  std::string id;
  int attempt = 1;
  std::string request_id;
  HttpReply reply;
};

HttpResponse page_response(unsigned status, std::string html, std::string_view request_id) {
  HttpResponse res = json_response(status, {}, request_id);
  res.set(http::field::content_type, "text/html; charset=utf-8");
  // The id in the URL is the only credential: kept out of caches and Referer headers.
  res.set(http::field::cache_control, "no-store");
  res.set("Referrer-Policy", "no-referrer");
  res.set("Content-Security-Policy", kContentSecurityPolicy);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("X-Frame-Options", "DENY");
  res.body() = std::move(html);
  res.prepare_payload();
  return res;
}

// {storeId}/{id} after the prefix; anything else names no order (empty parts).
std::pair<std::string, std::string> parts_of(std::string_view path) {
  std::string_view rest = path.substr(kClaimPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {};
  const std::string_view id = rest.substr(slash + 1);
  if (id.find('/') != std::string_view::npos) return {};
  return {std::string(rest.substr(0, slash)), std::string(id)};
}

std::string_view query_of(const HttpRequest& request) {
  const std::string_view target(request.target().data(), request.target().size());
  const size_t q = target.find('?');
  return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

void look_up(const ClaimConfig& config, const std::shared_ptr<ClaimVisit>& v) {
  const Clock* clock = config.clock;
  ErrorReporter* reporter = config.error_reporter;
  submit_call<std::optional<ClaimedOrder>>(
      *config.store, TxKind::kRead,
      [v, now = clock->now_ms()](StoreTx& tx) {
        return find_claimed_order(tx, v->store_id, v->id, now);
      },
      [v, clock, reporter](Result<std::optional<ClaimedOrder>> found) {
        if (!found.ok()) {
          const bool unavailable = found.error().code == StatusCode::kUnavailable;
          spdlog::warn("claim page (request {}) failed: {}", v->request_id, found.error().message);
          if (!unavailable) {
            report_internal_error(reporter, "claim", "/claim", v->request_id, "", clock->now_ms());
          }
          HttpResponse res =
              page_response(unavailable ? 503 : 500, claim_failure_html(), v->request_id);
          if (unavailable) res.set(http::field::retry_after, std::to_string(kRetryAfterSeconds));
          return v->reply(std::move(res));
        }
        if (!found.value()) {
          return v->reply(page_response(404, claim_waiting_html(v->attempt), v->request_id));
        }
        v->reply(page_response(200, claim_page_html(*found.value()), v->request_id));
      });
}

}  // namespace

bool is_claim_path(std::string_view path) {
  return path.starts_with(kClaimPrefix);
}

ApiResult<Route> ClaimHandler::route(std::string_view method, std::string_view path) const {
  if (!is_claim_path(path)) return errors::route_not_found();
  if (method != "GET") return errors::method_not_allowed("GET");
  return Route{ClaimRoute::kPage, "claim"};
}

void ClaimHandler::serve(const Route&, const HttpRequest& request, const RequestContext& ctx,
                         HttpReply reply) const {
  auto v = std::make_shared<ClaimVisit>();
  std::tie(v->store_id, v->id) = parts_of(ctx.path);
  v->attempt = claim_attempt_of(query_of(request));
  v->request_id = std::string(ctx.request_id);
  v->reply = std::move(reply);
  // Counted before the store is asked: a client guessing ids costs no look-up once its
  // address is over the limit. The next step is a store job, so it may go on from
  // whichever thread the bucket answered on.
  check_bucket(config_.ip_limiter, ip_bucket_key(ctx.client_ip), "ip", config_.clock->now_ms(),
               [this, v](std::optional<ApiError> refused) {
                 if (!refused) return look_up(config_, v);
                 if (config_.metrics != nullptr) config_.metrics->record_rate_limited("ip");
                 const int64_t wait = refused->retry_after_seconds.value_or(kRetryAfterSeconds);
                 HttpResponse res = page_response(429, claim_busy_html(wait), v->request_id);
                 res.set(http::field::retry_after, std::to_string(wait));
                 v->reply(std::move(res));
               });
}

}  // namespace licensed
