#include "http/admin_api_handler.h"

#include <boost/url/parse.hpp>
#include <memory>
#include <vector>

#include "admin/admin_api.h"
#include "admin/admin_tokens.h"
#include "admin/webhook_operations.h"
#include "core/request_body.h"
#include "http/admin_api_error.h"
#include "http/routes.h"
#include "observability/internal_error.h"

namespace licensed {
namespace {

// last_used_at is refreshed at most this often, so reads do not each cost a write.
constexpr UnixMillis kTouchEveryMs = 60'000;

std::vector<std::string_view> split_segments(std::string_view rest) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto slash = rest.find('/');
    out.push_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return out;
}

std::string_view path_template(AdminRoute r) {
  switch (r) {
    case AdminRoute::kListProducts:
    case AdminRoute::kCreateProduct:
      return "/api/v1/admin/products";
    case AdminRoute::kListLicenses:
    case AdminRoute::kCreateLicense:
      return "/api/v1/admin/licenses";
    case AdminRoute::kGetLicense:
    case AdminRoute::kPatchLicense:
    case AdminRoute::kDeleteLicense:
      return "/api/v1/admin/licenses/{key}";
    case AdminRoute::kRestoreLicense:
      return "/api/v1/admin/licenses/{key}/restore";
    case AdminRoute::kListActivations:
      return "/api/v1/admin/licenses/{key}/activations";
    case AdminRoute::kRemoveActivation:
      return "/api/v1/admin/licenses/{key}/activations/{machineId}";
    case AdminRoute::kListAudit:
      return "/api/v1/admin/licenses/{key}/audit";
    case AdminRoute::kGetProduct:
    case AdminRoute::kPatchProduct:
      return "/api/v1/admin/products/{slug}";
    case AdminRoute::kListPlans:
    case AdminRoute::kCreatePlan:
      return "/api/v1/admin/products/{slug}/plans";
    case AdminRoute::kGetPlan:
    case AdminRoute::kPatchPlan:
    case AdminRoute::kDeletePlan:
      return "/api/v1/admin/products/{slug}/plans/{code}";
    case AdminRoute::kListStores:
    case AdminRoute::kCreateStore:
      return "/api/v1/admin/stores";
    case AdminRoute::kGetStore:
    case AdminRoute::kPatchStore:
    case AdminRoute::kDeleteStore:
      return "/api/v1/admin/stores/{id}";
    case AdminRoute::kListStoreRejections:
      return "/api/v1/admin/stores/{id}/rejections";
    case AdminRoute::kListWebhooks:
    case AdminRoute::kCreateWebhook:
      return "/api/v1/admin/webhooks";
    case AdminRoute::kGetWebhook:
    case AdminRoute::kPatchWebhook:
    case AdminRoute::kDeleteWebhook:
      return "/api/v1/admin/webhooks/{id}";
    case AdminRoute::kRotateWebhookSecret:
      return "/api/v1/admin/webhooks/{id}/rotate-secret";
    case AdminRoute::kListWebhookDeliveries:
      return "/api/v1/admin/webhooks/{id}/deliveries";
    case AdminRoute::kRetryWebhookDelivery:
      return "/api/v1/admin/webhooks/{id}/deliveries/{eventId}/retry";
    case AdminRoute::kOfflineActivation:
      return "/api/v1/admin/licenses/{key}/offline-activations";
    case AdminRoute::kOfflineDeactivation:
      return "/api/v1/admin/licenses/{key}/offline-deactivations";
    case AdminRoute::kTokenInfo:
      return "/api/v1/admin/token";
    case AdminRoute::kListRefusals:
      return "/api/v1/admin/licenses/{key}/refusals";
    case AdminRoute::kStatsLicenses:
      return "/api/v1/admin/stats/licenses";
    case AdminRoute::kStatsActivations:
      return "/api/v1/admin/stats/activations";
    case AdminRoute::kStatsRefusals:
      return "/api/v1/admin/stats/refusals";
    case AdminRoute::kStatsTrials:
      return "/api/v1/admin/stats/trials";
    case AdminRoute::kStatsNearestCap:
      return "/api/v1/admin/stats/nearest-cap";
    case AdminRoute::kListLeases:
      return "/api/v1/admin/licenses/{key}/leases";
    case AdminRoute::kReleaseLease:
      return "/api/v1/admin/licenses/{key}/leases/{machineId}/{sessionId}";
  }
  return "/api/v1/admin/";
}

Route route_of(AdminRoute r) {
  return Route{r, "admin"};
}

// The routes of a path's shape by method, and its Allow header.
ApiResult<Route> pick(std::string_view method,
                      std::initializer_list<std::pair<std::string_view, AdminRoute>> methods) {
  std::string allow;
  for (const auto& [m, r] : methods) {
    if (m == method) return route_of(r);
    if (!allow.empty()) allow += ", ";
    allow += m;
  }
  return errors::method_not_allowed(allow);
}

// /api/v1/admin/webhooks[/{id}[/rotate-secret | /deliveries[/{eventId}/retry]]]
ApiResult<Route> route_webhook(std::string_view method, const std::vector<std::string_view>& s) {
  using R = AdminRoute;
  if (s.size() == 1) return pick(method, {{"GET", R::kListWebhooks}, {"POST", R::kCreateWebhook}});
  if (s.size() == 2) {
    return pick(
        method,
        {{"GET", R::kGetWebhook}, {"PATCH", R::kPatchWebhook}, {"DELETE", R::kDeleteWebhook}});
  }
  if (s.size() == 3 && s[2] == "rotate-secret") {
    return pick(method, {{"POST", R::kRotateWebhookSecret}});
  }
  if (s.size() == 3 && s[2] == "deliveries")
    return pick(method, {{"GET", R::kListWebhookDeliveries}});
  if (s.size() == 5 && s[2] == "deliveries" && s[4] == "retry") {
    return pick(method, {{"POST", R::kRetryWebhookDelivery}});
  }
  return errors::route_not_found();
}

std::optional<std::string_view> header(const HttpRequest& req, std::string_view name) {
  const auto it = req.find(name);
  if (it == req.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

// The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110).
std::optional<std::string> bearer_token(const HttpRequest& req) {
  const auto value = header(req, "Authorization");
  constexpr std::string_view kScheme = "bearer ";
  if (!value || value->size() <= kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = (*value)[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kScheme[i]) {
      return std::nullopt;
    }
  }
  std::string_view token = value->substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return std::string(token);
}

// Path parameters and query, percent-decoded, and the body of a call.
ApiResult<AdminCall> parse_call(AdminRoute route, const HttpRequest& req) {
  AdminCall call;
  call.route = route;
  const std::string_view target(req.target().data(), req.target().size());
  const auto url = boost::urls::parse_origin_form(api_path_of(target));
  if (!url) return errors::malformed("", "the request target is not a valid URL path");
  std::vector<std::string> segments;
  for (auto s : url->segments()) segments.emplace_back(s);
  // /api/v1/admin/licenses/{key}[/activations/{machineId}]
  // /api/v1/admin/products/{slug}[/plans/{code}]
  // /api/v1/admin/stores/{id}[/rejections]
  const bool product_path = segments.size() >= 4 && segments[3] == "products";
  const bool store_path = segments.size() >= 4 && segments[3] == "stores";
  // /api/v1/admin/webhooks/{id}[/deliveries/{eventId}/retry]
  const bool webhook_path = segments.size() >= 4 && segments[3] == "webhooks";
  const bool stats_path = segments.size() >= 4 && segments[3] == "stats";
  if (segments.size() >= 5 && webhook_path) call.webhook_id = segments[4];
  if (segments.size() >= 7 && webhook_path) call.event_id = segments[6];
  if (segments.size() >= 5 && store_path) call.store_id = segments[4];
  if (segments.size() >= 5 && !store_path && !webhook_path && !stats_path) {
    (product_path ? call.product_slug : call.license_key) = segments[4];
  }
  if (segments.size() >= 7 && !webhook_path) {
    (product_path ? call.plan_code : call.machine_id) = segments[6];
  }
  // .../leases/{machineId}/{sessionId}
  if (segments.size() >= 8 && !webhook_path) call.session_id = segments[7];
  for (auto p : url->params()) call.query.emplace_back(std::string(p.key), std::string(p.value));
  if (route == AdminRoute::kCreateProduct || route == AdminRoute::kCreateLicense ||
      route == AdminRoute::kPatchLicense || route == AdminRoute::kPatchProduct ||
      route == AdminRoute::kCreatePlan || route == AdminRoute::kPatchPlan ||
      route == AdminRoute::kCreateStore || route == AdminRoute::kPatchStore ||
      route == AdminRoute::kCreateWebhook || route == AdminRoute::kPatchWebhook ||
      route == AdminRoute::kOfflineActivation || route == AdminRoute::kOfflineDeactivation ||
      (route == AdminRoute::kRotateWebhookSecret && !req.body().empty())) {
    if (!is_json_content_type(header(req, "Content-Type").value_or(""))) {
      return errors::malformed("", "the body must be sent as Content-Type: application/json");
    }
    call.body = req.body();
  }
  return call;
}

HttpResponse answer_json(const AdminAnswer& a, std::string_view request_id) {
  return json_response(a.status, a.body, request_id);
}

HttpResponse answer_error(const ApiError& e, std::string_view request_id) {
  HttpResponse res = error_response(e, request_id);
  if (e.http_status == 401) res.set(boost::beast::http::field::www_authenticate, "Bearer");
  return res;
}

}  // namespace

bool is_admin_api_path(std::string_view path) {
  const std::string_view api = api_path_of(path);
  return api.substr(0, kAdminApiPrefix.size()) == kAdminApiPrefix ||
         api == kAdminApiPrefix.substr(0, kAdminApiPrefix.size() - 1);
}

ApiResult<Route> AdminApiHandler::route(std::string_view method, std::string_view path) const {
  const std::string_view api = api_path_of(path);
  if (api.size() <= kAdminApiPrefix.size()) return errors::route_not_found();
  const auto s = split_segments(api.substr(kAdminApiPrefix.size()));
  for (std::string_view segment : s) {
    if (segment.empty()) return errors::route_not_found();
  }
  using R = AdminRoute;
  if (s.size() == 1 && s[0] == "products") {
    return pick(method, {{"GET", R::kListProducts}, {"POST", R::kCreateProduct}});
  }
  if (s[0] == "products" && s.size() == 2) {
    return pick(method, {{"GET", R::kGetProduct}, {"PATCH", R::kPatchProduct}});
  }
  if (s[0] == "products" && s.size() == 3 && s[2] == "plans") {
    return pick(method, {{"GET", R::kListPlans}, {"POST", R::kCreatePlan}});
  }
  if (s[0] == "products" && s.size() == 4 && s[2] == "plans") {
    return pick(method,
                {{"GET", R::kGetPlan}, {"PATCH", R::kPatchPlan}, {"DELETE", R::kDeletePlan}});
  }
  if (s[0] == "stores" && s.size() == 1) {
    return pick(method, {{"GET", R::kListStores}, {"POST", R::kCreateStore}});
  }
  if (s[0] == "stores" && s.size() == 2) {
    return pick(method,
                {{"GET", R::kGetStore}, {"PATCH", R::kPatchStore}, {"DELETE", R::kDeleteStore}});
  }
  if (s[0] == "stores" && s.size() == 3 && s[2] == "rejections") {
    return pick(method, {{"GET", R::kListStoreRejections}});
  }
  if (s[0] == "webhooks") return route_webhook(method, s);
  if (s.size() == 1 && s[0] == "token") return pick(method, {{"GET", R::kTokenInfo}});
  if (s[0] == "stats" && s.size() == 2) {
    for (const auto& [name, r] :
         {std::pair{"licenses", R::kStatsLicenses}, std::pair{"activations", R::kStatsActivations},
          std::pair{"refusals", R::kStatsRefusals}, std::pair{"trials", R::kStatsTrials},
          std::pair{"nearest-cap", R::kStatsNearestCap}}) {
      if (s[1] == name) return pick(method, {{"GET", r}});
    }
    return errors::route_not_found();
  }
  if (s.empty() || s[0] != "licenses") return errors::route_not_found();
  if (s.size() == 1) return pick(method, {{"GET", R::kListLicenses}, {"POST", R::kCreateLicense}});
  if (s.size() == 2) {
    return pick(
        method,
        {{"GET", R::kGetLicense}, {"PATCH", R::kPatchLicense}, {"DELETE", R::kDeleteLicense}});
  }
  if (s.size() == 3 && s[2] == "restore") return pick(method, {{"POST", R::kRestoreLicense}});
  if (s.size() == 3 && s[2] == "activations") return pick(method, {{"GET", R::kListActivations}});
  if (s.size() == 3 && s[2] == "audit") return pick(method, {{"GET", R::kListAudit}});
  if (s.size() == 3 && s[2] == "refusals") return pick(method, {{"GET", R::kListRefusals}});
  if (s.size() == 3 && s[2] == "offline-activations") {
    return pick(method, {{"POST", R::kOfflineActivation}});
  }
  if (s.size() == 3 && s[2] == "offline-deactivations") {
    return pick(method, {{"POST", R::kOfflineDeactivation}});
  }
  if (s.size() == 4 && s[2] == "activations") {
    return pick(method, {{"DELETE", R::kRemoveActivation}});
  }
  if (s.size() == 3 && s[2] == "leases") return pick(method, {{"GET", R::kListLeases}});
  if (s.size() == 5 && s[2] == "leases") return pick(method, {{"DELETE", R::kReleaseLease}});
  return errors::route_not_found();
}

void AdminApiHandler::refuse_token(const RequestContext& ctx, const HttpReply& reply) const {
  if (config_.failed_auth_limiter != nullptr) {
    const RateDecision d =
        config_.failed_auth_limiter->admit(ctx.client_ip, config_.clock->now_ms());
    if (!d.allowed) {
      return reply(answer_error(errors::rate_limited("ip", d.retry_after_seconds), ctx.request_id));
    }
  }
  reply(answer_error(errors::unauthorized(), ctx.request_id));
}

std::optional<HttpResponse> AdminApiHandler::locked_out(const RequestContext& ctx) const {
  if (config_.failed_auth_limiter == nullptr) return std::nullopt;
  const RateDecision d = config_.failed_auth_limiter->peek(ctx.client_ip, config_.clock->now_ms());
  if (d.allowed) return std::nullopt;
  return answer_error(errors::rate_limited("ip", d.retry_after_seconds), ctx.request_id);
}

void AdminApiHandler::serve(const Route& route, const HttpRequest& req, const RequestContext& ctx,
                            HttpReply reply) const {
  // Asked before the token is looked up, so a right one is refused like the guesses.
  if (auto refused = locked_out(ctx)) return reply(std::move(*refused));
  const auto admin_route = route.as<AdminRoute>();
  std::optional<std::string> token = bearer_token(req);
  if (!token) return refuse_token(ctx, reply);

  ApiResult<AdminCall> parsed = parse_call(admin_route, req);
  if (parsed.ok()) {
    parsed.value().public_url = config_.public_url;
    // The URL's own checks only: a URL to resolve is resolved before the transaction.
    parsed.value().check_webhook_url = [policy = config_.outgoing_policy](std::string_view url) {
      return check_outgoing_url(url, policy);
    };
    parsed.value().offline = &config_.offline;
    parsed.value().trial_identity = config_.trial_identity;
    if (admin_route == AdminRoute::kCreateWebhook || admin_route == AdminRoute::kPatchWebhook) {
      if (auto url = webhook_body_url(parsed.value().body)) {
        return check_url_then_run(admin_route, std::move(parsed.value()), std::move(*url), *token,
                                  ctx, std::move(reply));
      }
    }
  }
  run_call(admin_route, std::move(parsed), std::move(*token), ctx, reply);
}

void AdminApiHandler::check_url_then_run(AdminRoute route, AdminCall call, std::string url,
                                         const std::string& token, const RequestContext& ctx,
                                         HttpReply reply) const {
  auto shared = std::make_shared<AdminCall>(std::move(call));
  const AdminApiHandler* self = this;
  submit_call<bool>(
      *config_.store, TxKind::kRead,
      [token](StoreTx& tx) -> Result<bool> {
        ASSIGN_OR_RETURN(const auto found, find_admin_token_by_value(tx, token));
        return found && !found->read_only;
      },
      [self, route, shared, url = std::move(url), token, reply = std::move(reply),
       client_ip = std::string(ctx.client_ip),
       request_id = std::string(ctx.request_id)](const Result<bool>& may_write) mutable {
        const RequestContext owned{{}, client_ip, request_id, {}};
        // Anyone else is answered by the call's own flow (refused token, 403, 503) with no
        // look-up made for them.
        if (!may_write.ok() || !may_write.value()) {
          return self->run_call(route, std::move(*shared), token, owned, reply);
        }
        auto resolve = [self, route, shared, url, token, reply = std::move(reply), client_ip,
                        request_id]() mutable {
          shared->check_webhook_url = checked_beforehand(
              url, check_outgoing_destination(url, self->config_.outgoing_policy));
          self->run_call(route, std::move(*shared), token,
                         RequestContext{{}, client_ip, request_id, {}}, reply);
        };
        if (self->config_.workers == nullptr) return resolve();
        self->config_.workers->submit(std::move(resolve));
      });
}

void AdminApiHandler::run_call(AdminRoute admin_route, ApiResult<AdminCall> parsed,
                               std::string token_value, const RequestContext& ctx,
                               const HttpReply& reply) const {
  // What the call came to inside its transaction, besides its answer: a token no one
  // holds (answered apart, counted as a guess), and a read's token whose last use is
  // old (touched afterwards, in a write of its own).
  struct Outcome {
    bool unknown_token = false;
    std::optional<int64_t> touch_token_id;
    AdminAnswer answer;
  };
  std::optional<std::string> token(std::move(token_value));
  auto call = std::make_shared<const ApiResult<AdminCall>>(std::move(parsed));
  const bool writes = changes_data(admin_route);
  const Clock* clock = config_.clock;
  Store* store = config_.store;
  const AdminApiHandler* self = this;
  ErrorReporter* const reporter = config_.error_reporter;

  submit_call<Outcome, RequestError>(
      *store, writes ? TxKind::kWrite : TxKind::kRead,
      [call, token = std::move(*token), client_ip = std::string(ctx.client_ip), clock, writes,
       request_id = std::string(ctx.request_id)](StoreTx& tx) -> RequestResult<Outcome> {
        ASSIGN_OR_RETURN(const auto found, find_admin_token_by_value(tx, token));
        Outcome out;
        if (!found) {
          out.unknown_token = true;
          return out;
        }
        const AdminToken& t = *found;
        if (writes && t.read_only) return errors::forbidden();
        // Authorised, so now the request's own faults may be told.
        if (!call->ok()) return call->error();
        const UnixMillis now = clock->now_ms();
        if (!t.last_used_at || now - *t.last_used_at >= kTouchEveryMs) {
          if (writes) {
            RETURN_IF_ERROR(tx.touch_admin_token(t.id, now));
          } else {
            out.touch_token_id = t.id;
          }
        }
        if (call->value().route == AdminRoute::kTokenInfo) {
          out.answer.body = {{"name", t.name}, {"readOnly", t.read_only}};
          return out;
        }
        AdminContext admin{now, t.name, Actor::kAdmin, client_ip};
        admin.request_id = request_id;
        ASSIGN_OR_RETURN(out.answer, run_admin_call(tx, call->value(), admin));
        return out;
      },
      [call, reply, self, store, clock, reporter, request_id = std::string(ctx.request_id),
       client_ip = std::string(ctx.client_ip),
       path = std::string(path_template(admin_route))](RequestResult<Outcome> outcome) {
        if (outcome.ok() && outcome->unknown_token) {
          return self->refuse_token(RequestContext{{}, client_ip, request_id, {}}, reply);
        }
        if (outcome.ok() && outcome->touch_token_id) {
          // Best effort: last use is for the operator's `token list`.
          const int64_t id = *outcome->touch_token_id;
          submit_call<Ok>(
              *store, TxKind::kWrite,
              [id, clock](StoreTx& tx) { return tx.touch_admin_token(id, clock->now_ms()); },
              [](const Status&) {});
        }
        if (outcome.ok()) return reply(answer_json(outcome->answer, request_id));
        const ApiError error = outcome.error().answer_or(to_admin_api_error);
        if (is_internal_error(error)) {
          // The route's template: error reports carry no key or machine id.
          report_internal_error(reporter, "admin", path, request_id,
                                call->ok() ? call->value().license_key : "", clock->now_ms());
        }
        reply(answer_error(error, request_id));
      },
      // An unknown token's transaction is undone like any refusal.
      [](const RequestResult<Outcome>& outcome) {
        return outcome.ok() && !outcome->unknown_token;
      });
}

}  // namespace licensed
